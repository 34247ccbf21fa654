/**
 * Whether an image's facts entry for pflag under cobra (model/command-lines/pflag.ts) holds together: its values,
 * shorthands, checks and traversal name its own flags, and each type is one the reader reads.
 */
import { isRegExpSource, isTextList } from '../core/text.ts';
import { isTypeValue } from './go-flag.ts';

const LONG = /^--[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && LONG.test(x));
const isValue = (v: unknown, bools: string[]): boolean => {
  const { choices, each, keys, skippedBy, float, mapOfLists, shape, hostPorts, slice, ...type } = (v ?? {}) as Record<string, unknown>;
  if (hostPorts !== undefined && !(isHostPorts(hostPorts) && slice === true)) return false;
  if (slice !== undefined && slice !== true) return false;
  if (![choices, each, keys].every((x) => x === undefined || isTextList(x)) || ![float, mapOfLists].every((x) => x === undefined || x === true)) return false;
  if (skippedBy !== undefined && !(bools.includes(skippedBy as string) && (each !== undefined || keys !== undefined))) return false;
  if (keys !== undefined && mapOfLists !== true) return false;
  if (shape !== undefined && !isShape(shape)) return false;
  if (Object.keys(type).length === 0) return [choices, each, keys, float, mapOfLists, shape, hostPorts, slice].some((x) => x !== undefined);
  return type.pattern === undefined ? Object.keys(type).length === 1 && type.duration === true : isTypeValue(type);
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHostPorts = (v: unknown) => {
  const { https, says, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && (https === undefined || https === true) && typeof says === 'string';
};
const isShape = (v: unknown) => {
  const { pattern, says, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern) && typeof says === 'string';
};
const isTraverse = (v: unknown, all: string[], path: string[]) => {
  const { inherited, others, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    isTextList(inherited) &&
    (inherited as string[]).every((f) => all.includes(f)) &&
    Array.isArray(others) &&
    others.length === path.length &&
    others.every(isTextList)
  );
};

/** Whether a facts entry is a PflagOptions whose values, shorthands and checks name its own flags. */
export function isPflagOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'pflag' || !isFlagList(o.flags) || !isFlagList(o.withValue)) return false;
  const flags = o.flags as string[];
  const withValue = o.withValue as string[];
  const all = [...flags, ...withValue, '--help'];
  if (o.subcommand !== undefined && (typeof o.subcommand !== 'string' || !/^[a-z][\w-]*( [a-z][\w-]*)*$/.test(o.subcommand))) return false;
  if (o.traverse !== undefined && !(o.subcommand !== undefined && isTraverse(o.traverse, all, (o.subcommand as string).split(' ')))) return false;
  if (o.commands !== undefined && !(isTextList(o.commands) && o.subcommand === undefined)) return false;
  if (o.positional !== undefined && !((Number.isInteger(o.positional) && (o.positional as number) >= 0) || o.positional === 'none')) return false;
  if (
    o.shorthands !== undefined &&
    !(isRecord(o.shorthands) && Object.entries(o.shorthands).every(([k, f]) => /^-[A-Za-z0-9]$/.test(k) && all.includes(f as string)))
  )
    return false;
  const isNeed = (n: unknown) => {
    const { given, flag, is, default: fallback, ...rest } = (n ?? {}) as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 && flags.includes(given as string) && withValue.includes(flag as string) && isTextList(is) && typeof fallback === 'string'
    );
  };
  if (o.needs !== undefined && !(Array.isArray(o.needs) && o.needs.every(isNeed))) return false;
  const isExclusive = (x: unknown) => {
    const { flags: together, says, changed, configured, ...rest } = (x ?? {}) as Record<string, unknown>;
    if (!(isTextList(together) && (together as string[]).every((f) => withValue.includes(f)))) return false;
    const isConfigured =
      configured === undefined || (changed === true && isTextList(configured) && (configured as string[]).every((f) => (together as string[]).includes(f)));
    return Object.keys(rest).length === 0 && typeof says === 'string' && (changed === undefined || changed === true) && isConfigured;
  };
  if (o.exclusive !== undefined && !(Array.isArray(o.exclusive) && o.exclusive.every(isExclusive))) return false;
  if (o.overriddenBy !== undefined && !(isTextList(o.overriddenBy) && (o.overriddenBy as string[]).every((f) => withValue.includes(f)))) return false;
  return o.values === undefined || (isRecord(o.values) && Object.entries(o.values).every(([k, x]) => withValue.includes(k) && isValue(x, flags)));
}
