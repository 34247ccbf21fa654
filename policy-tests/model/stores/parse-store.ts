/**
 * A warm-start store of parsed files (model/stores/outcome-store.ts), keyed by the
 * parser's make-up (the yaml package's version; the gate's whole code and
 * Node's version join every store's key), the file's path and its text. A file
 * unchanged since the last run is read back as JSON instead of parsed as YAML
 * with positions, which is most of a warm start's parse phase. Positions are
 * not stored: a finding that needs a line parses the file then
 * (model/core/manifest.ts lazyPositions). Values JSON cannot carry (an .inf or
 * .nan scalar) are never stored, so what is read back is what a parse gives.
 */
import { outcomeStore, packageVersion } from './outcome-store.ts';
import { lazyPositions, type FilePosition, type Positions } from '../core/manifest.ts';
import type { Document, LineCounter } from 'yaml';

const store = outcomeStore<unknown>('parsed', () => packageVersion('yaml'));
const places = outcomeStore<FilePosition>('positions', () => packageVersion('yaml'));

/** What a parse of this text gave before, if this make-up parsed it. Shared, never to be mutated (parsed files never are). */
export function recall<T>(kind: 'manifest' | 'data', file: string, text: string): T | undefined {
  return store.get([kind, file, text]) as T | undefined;
}

/** Whether JSON carries a value unchanged: plain data, no non-finite number, no hole in a list. */
function jsonSafe(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value) && !Object.is(value, -0);
  if (Array.isArray(value)) return value.every((v) => v !== undefined && jsonSafe(v));
  // An absent property reads as undefined either way (a cluster-scoped resource's namespace).
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
    return Object.values(value as object).every((v) => v === undefined || jsonSafe(v));
  return false;
}

/** Remembers a parse for the next run, when JSON carries it exactly. */
export function remember(kind: 'manifest' | 'data', file: string, text: string, value: unknown): void {
  if (jsonSafe(value)) store.set([kind, file, text], value);
}

/**
 * Positions of a parse read back from the store (or from a worker): the file is parsed again only when a finding
 * needs a place, and each place found is kept, keyed by the file's text, so the next run that reports the same
 * finding in an unchanged file (a source not rendered, a warning) parses nothing to place it.
 */
export function storedPositions(file: string, text: string, doc: number, memo: { docs?: Document[]; lineCounter?: LineCounter }): Positions {
  const lazy = lazyPositions(text, doc, memo);
  return {
    at(path, target) {
      const key = [file, text, String(doc), JSON.stringify(path), target];
      const known = places.get(key);
      if (known) return known;
      const found = lazy.at(path, target);
      places.set(key, found);
      return found;
    },
  };
}
