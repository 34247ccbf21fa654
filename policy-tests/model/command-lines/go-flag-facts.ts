/**
 * What an image's facts say of a program that reads its flags with Go's own flag package (`parser: goflag`): its
 * flags, the values each takes, and the flags it refuses together; and whether an entry holds together, so that a
 * malformed one is refused as a whole. The reading itself is `go-flag.ts`.
 */
import { isRegExpSource } from '../core/text.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseFloat } from '../go/strconv.ts';

/**
 * What a flag's value must be: text its type reads (`pattern`, a JavaScript regular expression), a whole number that
 * fits its type (`fits`: strconv's ErrRange beyond it), one of a list the program checks, or a whole number it holds at
 * `min` or more.
 */
export interface GoFlagValue {
  pattern?: string;
  fits?: 'int32' | 'int64' | 'uint64';
  /** A Go duration, as time.ParseDuration reads it. */
  duration?: true;
  choices?: string[];
  /** The choices compared as the program compares them, case aside (strings.ToLower). */
  caseless?: true;
  /** The least value the program takes once parsed (it exits 1 below it): a whole number, or a duration's nanoseconds. */
  min?: number;
  /** Text the program takes once parsed (a JavaScript regular expression), saying `says` of another (exit 1). */
  shape?: { pattern: string; says: string };
  /** A number as strconv.ParseFloat(·, 64) reads it (a Float64 flag). */
  float?: true;
  /** A Kubernetes quantity, as resource.ParseQuantity reads it; an empty value is left unset. */
  quantity?: true;
  /**
   * key=bool pairs, comma-separated, as component-base's MapStringBool sets them (feature gates), gathered over every
   * time the flag is given; each key one of `keys`, which the program checks as it starts, and none of `locked` set
   * other than its value there (featuregate's LockToDefault). `fatal`: the program sets them with klog.Fatal once its
   * other checks pass (exit 255).
   */
  boolMap?: { keys: string[]; locked?: Record<string, boolean>; fatal?: true };
}

/**
 * Flags the program refuses together once they are parsed (exit 1): each of `given` true, and `below`'s flag under its
 * `min` where named (its default where not given); or, `exit: 0`, flags that make it do one thing and stop (print its
 * version): before its own checks, or after them all where `late`. `valued`: flags that take a value, each given with
 * one its `pattern` finds (the last value, its `default` where not given, or, `any`, any value given, where the program
 * gathers them); `above`: a
 * float flag's value over `than` (as float32 holds it, where `float32`); `notAbove`: a duration not over another's (or
 * a fixed one) times `times`, as Go multiplies a Duration by a float64; each flag's `default` where it is not given.
 * Any of these may stand for `given`, which may then be empty. `running`: refused only once the program runs, past its
 * flags that print and stop, by a library it starts (a client's rate, a leader election), with its own `exit`.
 */
export interface GoFlagConflict {
  given: string[];
  below?: { flag: string; min: number; default: number };
  valued?: { flag: string; pattern: string; any?: true; default?: string }[];
  above?: { flag: string; than: number; default: string; float32?: true };
  notAbove?: { flag: string; default: string; than: { flag?: string; default: string; times?: number } };
  says: string;
  exit?: 0 | 2 | 255;
  late?: true;
  running?: true;
}

/** A program's flags as its facts list them, each written with one dash. */
export interface GoFlagOptions {
  /** The binary, as the command line (or the image's ENTRYPOINT) names it: a path ending in it. */
  program: string;
  parser: 'goflag';
  /** Flags that take no value (Bool): `-x`, or `-x=false`. */
  flags: string[];
  /** Flags that take one value. */
  withValue: string[];
  /**
   * The values a flag takes, where its type or the program refuses others; for a flag that takes none, the text its
   * own Set reads after `=` (flag.BoolFunc's function), as a `pattern`, in place of strconv.ParseBool.
   */
  values?: Record<string, GoFlagValue>;
  /** Flags the program refuses together. */
  conflicts?: GoFlagConflict[];
}

/** The whole numbers each integer type holds. */
export const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

const SHORT = /^-[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && SHORT.test(x));
const isValue = (v: unknown): boolean => {
  const { pattern, fits, duration, choices, min, caseless, float, quantity, boolMap, shape, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    [caseless, float, quantity].every((x) => x === undefined || x === true) &&
    (caseless === undefined || choices !== undefined) &&
    (boolMap === undefined || isBoolMap(boolMap)) &&
    (shape === undefined || isShape(shape)) &&
    (pattern === undefined || isRegExpSource(pattern)) &&
    (duration === undefined || duration === true) &&
    (fits === undefined || (typeof fits === 'string' && fits in RANGES)) &&
    (choices === undefined || (Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string'))) &&
    (min === undefined || Number.isInteger(min)) &&
    [pattern, duration, choices, min, float, quantity, boolMap, shape].some((x) => x !== undefined)
  );
};

const isShape = (v: unknown): boolean => {
  const { pattern, says, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern) && typeof says === 'string' && says !== '';
};

const isBoolMap = (v: unknown): boolean => {
  const { keys, locked, fatal, ...rest } = (v ?? {}) as Record<string, unknown>;
  const names = Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string') ? (keys as string[]) : undefined;
  return (
    Object.keys(rest).length === 0 &&
    names !== undefined &&
    (fatal === undefined || fatal === true) &&
    (locked === undefined ||
      (typeof locked === 'object' &&
        locked !== null &&
        !Array.isArray(locked) &&
        Object.entries(locked).every(([k, b]) => names.includes(k) && typeof b === 'boolean')))
  );
};

/** A flag that takes no value may name only the text its own Set reads. */
const isOwnBoolSet = (v: unknown): boolean => {
  const { pattern, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern);
};

const isConflict = (c: unknown, flags: string[], withValue: string[]): boolean => {
  const { given, below, says, exit, late, valued, above, notAbove, running, ...rest } = (c ?? {}) as Record<string, unknown>;
  const b = (below ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (running === undefined || running === true) &&
    (exit === undefined || (exit === 0 && below === undefined && running === undefined) || (running === true && (exit === 2 || exit === 255))) &&
    (late === undefined || (late === true && exit === 0)) &&
    (valued === undefined || (Array.isArray(valued) && valued.length > 0 && valued.every((x) => isValued(x, withValue)))) &&
    (above === undefined || isAbove(above, withValue)) &&
    (notAbove === undefined || isNotAbove(notAbove, withValue)) &&
    Array.isArray(given) &&
    given.length + (Array.isArray(valued) ? valued.length : 0) + (above ? 1 : 0) + (notAbove ? 1 : 0) > 0 &&
    given.every((g) => flags.includes(g)) &&
    typeof says === 'string' &&
    (below === undefined || (withValue.includes(b.flag as string) && Number.isInteger(b.min) && Number.isInteger(b.default)))
  );
};

const isDuration = (v: unknown) => typeof v === 'string' && goParseDuration(v).ok;

const isAbove = (v: unknown, withValue: string[]): boolean => {
  const { flag, than, default: byDefault, float32, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    withValue.includes(flag as string) &&
    typeof than === 'number' &&
    typeof byDefault === 'string' &&
    goParseFloat(byDefault) !== undefined &&
    (float32 === undefined || float32 === true)
  );
};

const isNotAbove = (v: unknown, withValue: string[]): boolean => {
  const { flag, default: byDefault, than, ...rest } = (v ?? {}) as Record<string, unknown>;
  const { flag: other, default: otherDefault, times, ...more } = (than ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length + Object.keys(more).length === 0 &&
    withValue.includes(flag as string) &&
    isDuration(byDefault) &&
    (other === undefined || withValue.includes(other as string)) &&
    isDuration(otherDefault) &&
    (times === undefined || (typeof times === 'number' && Number.isFinite(times)))
  );
};

const isValued = (v: unknown, withValue: string[]): boolean => {
  const { flag, pattern, any, default: byDefault, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    withValue.includes(flag as string) &&
    isRegExpSource(pattern) &&
    (any === undefined || (any === true && byDefault === undefined)) &&
    (byDefault === undefined || typeof byDefault === 'string')
  );
};

/** Whether a facts entry is a GoFlagOptions whose values and conflicts name its own flags. */
export function isGoFlagOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'goflag' || !isFlagList(o.flags) || !isFlagList(o.withValue)) return false;
  const conflicts = o.conflicts;
  if (conflicts !== undefined && !(Array.isArray(conflicts) && conflicts.every((c) => isConflict(c, o.flags as string[], o.withValue as string[]))))
    return false;
  const values = o.values;
  if (values === undefined) return true;
  return (
    typeof values === 'object' &&
    values !== null &&
    !Array.isArray(values) &&
    Object.entries(values).every(([k, x]) => ((o.withValue as string[]).includes(k) && isValue(x)) || ((o.flags as string[]).includes(k) && isOwnBoolSet(x)))
  );
}

/** Whether a facts entry is a type's `pattern`, with the integer type it `fits` if any, and nothing else. */
export const isTypeValue = (v: unknown): boolean => {
  const { pattern, fits, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern) && (fits === undefined || (typeof fits === 'string' && fits in RANGES));
};
