/** Reads the value at a path of keys and indexes; undefined as soon as a step is missing or not a container. */
import type { PathSegment } from './positions.ts';

export function dig(value: unknown, path: readonly PathSegment[]): unknown {
  let cur = value;
  for (const seg of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

/** How many steps of `path` are there in `value` (its own keys and indexes): `path.length` where the whole path is set. */
export function depthIn(value: unknown, path: readonly PathSegment[]): number {
  let cur = value;
  for (let i = 0; i < path.length; i++) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, path[i]!)) return i;
    cur = (cur as Record<string | number, unknown>)[path[i]!];
  }
  return path.length;
}

/** A plain object (a YAML mapping), not an array or null. */
export const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type Obj = Record<string, unknown>;
/** The value as a mapping; anything else reads as an empty one. */
export const obj = (v: unknown): Obj => (isMap(v) ? v : {});
/** The value as a list; anything else reads as an empty one. */
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
/** The value as a list of mappings, as Go decodes a list of structs: no list is none, and a null (or scalar) item an empty one. */
export const objects = (v: unknown): Obj[] => list(v).map(obj);
/** The value as a string; anything else reads as an empty one (Go's zero value for a string field). */
export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A field Go decodes as set (a pointer, an interface): present, even when empty (`{}`, `""`), but not null. */
export const isSet = (v: unknown): boolean => v !== undefined && v !== null;
