/**
 * How Go's own flag package (flag.Parse on flag.CommandLine, ExitOnError) reads a program's command line, for the flags
 * an image's facts list. Read from its source (flag.go, parseOne):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for a flag that takes one, the next word whatever it is;
 *     a flag that takes none (a Bool) takes a value only after `=`, as strconv.ParseBool reads it;
 *   - the first word that is not a flag (`-` among them) ends the flags, and `--` does too: what follows is left to the
 *     program, which reads it or not;
 *   - a flag given twice keeps the last value.
 * A flag it does not define ("flag provided but not defined"), a missing value, a value the flag's type refuses (its
 * `Set`: a number, a duration, a float, a Kubernetes quantity, component-base's key=bool map), or bad syntax (`---x`,
 * `-=x`) exits 2 before the program runs; `-h` and `-help`, where the program defines neither, print its usage and
 * exit 0. Then what the program does with the flags it read: a flag that makes it print and stop (exit 0, before the
 * rest), the values it checks as it starts (choices, case aside where it lowers them; a least number; a map's keys),
 * and flags it refuses together (exit 1).
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseBool, isRegExpSource } from '../core/text.ts';
import { goIntegerText, goParsesFloat } from '../go/strconv.ts';
import { parseGoQuantity } from '../go/quantity.ts';

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
  /** The least value the program takes once parsed (it exits 1 below it). */
  min?: number;
  /** A number as strconv.ParseFloat(·, 64) reads it (a Float64 flag). */
  float?: true;
  /** A Kubernetes quantity, as resource.ParseQuantity reads it; an empty value is left unset. */
  quantity?: true;
  /**
   * key=bool pairs, comma-separated, as component-base's MapStringBool sets them (feature gates), gathered over every
   * time the flag is given; each key one of `keys`, which the program checks as it starts.
   */
  boolMap?: { keys: string[] };
}

/**
 * Flags the program refuses together once they are parsed (exit 1): each of `given` true, and `below`'s flag under its
 * `min` where named (its default where not given); or, `exit: 0`, flags that make it do one thing and stop (print its
 * version).
 */
export interface GoFlagConflict {
  given: string[];
  below?: { flag: string; min: number; default: number };
  says: string;
  exit?: 0;
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
  /** The values a flag takes, where its type or the program refuses others. */
  values?: Record<string, GoFlagValue>;
  /** Flags the program refuses together. */
  conflicts?: GoFlagConflict[];
}

export type GoFlagRefusal = { index: number; message: string; exit: 0 | 1 | 2 };

const SHORT = /^-[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && SHORT.test(x));
const isValue = (v: unknown): boolean => {
  const { pattern, fits, duration, choices, min, caseless, float, quantity, boolMap, ...rest } = (v ?? {}) as Record<string, unknown>;
  const keys = (boolMap as { keys?: unknown } | undefined)?.keys;
  return (
    Object.keys(rest).length === 0 &&
    [caseless, float, quantity].every((x) => x === undefined || x === true) &&
    (caseless === undefined || choices !== undefined) &&
    (boolMap === undefined || (Array.isArray(keys) && keys.length > 0 && keys.every((k) => typeof k === 'string'))) &&
    (pattern === undefined || isRegExpSource(pattern)) &&
    (duration === undefined || duration === true) &&
    (fits === undefined || (typeof fits === 'string' && fits in RANGES)) &&
    (choices === undefined || (Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string'))) &&
    (min === undefined || Number.isInteger(min)) &&
    [pattern, duration, choices, min, float, quantity, boolMap].some((x) => x !== undefined)
  );
};

const isConflict = (c: unknown, flags: string[], withValue: string[]): boolean => {
  const { given, below, says, exit, ...rest } = (c ?? {}) as Record<string, unknown>;
  const b = (below ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (exit === undefined || (exit === 0 && below === undefined)) &&
    Array.isArray(given) &&
    given.length > 0 &&
    given.every((g) => flags.includes(g)) &&
    typeof says === 'string' &&
    (below === undefined || (withValue.includes(b.flag as string) && Number.isInteger(b.min) && Number.isInteger(b.default)))
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
    Object.entries(values).every(([k, x]) => (o.withValue as string[]).includes(k) && isValue(x))
  );
}

/** The whole numbers each integer type holds. */
const RANGES: Record<string, [bigint, bigint]> = {
  int32: [-(2n ** 31n), 2n ** 31n - 1n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** Why a flag's type refuses its value (the text its pattern reads, the integer type it fits), or undefined where it reads it. */
export function typeRefusal(flag: string, value: string, type: Pick<GoFlagValue, 'pattern' | 'fits' | 'duration'> | undefined): string | undefined {
  if (type?.pattern !== undefined && !new RegExp(type.pattern).test(value)) return `invalid value ${JSON.stringify(value)} for flag ${flag}: parse error`;
  const duration = type?.duration ? goParseDuration(value) : undefined;
  if (duration && !duration.ok) return `invalid value ${JSON.stringify(value)} for flag ${flag}: ${duration.error}`;
  const number = goIntegerText(value);
  const range = type?.fits && RANGES[type.fits];
  if (range && number !== undefined && (number < range[0] || number > range[1]))
    return `invalid value ${JSON.stringify(value)} for flag ${flag}: value out of range`;
  return undefined;
}

/** Whether a facts entry is a type's `pattern`, with the integer type it `fits` if any, and nothing else. */
export const isTypeValue = (v: unknown): boolean => {
  const { pattern, fits, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern) && (fits === undefined || (typeof fits === 'string' && fits in RANGES));
};

/**
 * Why component-base's MapStringBool.Set (v0.36) refuses a value: a non-empty piece between commas (a space is one)
 * without `=`, or a value, trimmed, strconv.ParseBool does not read.
 */
function boolMapRefusal(value: string): string | undefined {
  for (const item of value.split(',')) {
    if (item === '') continue;
    const eq = item.indexOf('=');
    if (eq === -1) return 'malformed pair, expect string=bool';
    const [key, text] = [item.slice(0, eq).trim(), item.slice(eq + 1).trim()];
    if (goParseBool(text) === undefined) return `invalid value of ${key}: ${text}, err: strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`;
  }
  return undefined;
}

/** Why a flag's type refuses its value as the flag package sets it (exit 2), or undefined. */
function setRefusal(flag: string, value: string, type: GoFlagValue | undefined): string | undefined {
  const refused = typeRefusal(flag, value, type);
  if (refused) return refused;
  const invalid = (why: string) => `invalid value ${JSON.stringify(value)} for flag ${flag}: ${why}`;
  if (type?.float && !goParsesFloat(value)) return invalid('parse error');
  const quantity = type?.quantity && value !== '' ? parseGoQuantity(value) : undefined;
  if (quantity && !quantity.ok) return invalid(quantity.error);
  const pairs = type?.boolMap ? boolMapRefusal(value) : undefined;
  return pairs && invalid(pairs);
}

/** Why a flag's value stops the program, or undefined where it takes it. */
function valueRefusal(flag: string, value: string, type: GoFlagValue | undefined): { message: string; exit: 1 | 2 } | undefined {
  const refused = setRefusal(flag, value, type);
  if (refused) return { message: refused, exit: 2 };
  const number = goIntegerText(value);
  const chosen = type?.caseless ? value.toLowerCase() : value;
  if (type?.choices && !type.choices.includes(chosen))
    return { message: `${JSON.stringify(value)} for ${flag}, which takes one of ${type.choices.join(', ')}`, exit: 1 };
  if (type?.min !== undefined && !(number !== undefined && number >= BigInt(type.min)))
    return { message: `${value} for ${flag}, which must be ${type.min} or more`, exit: 1 };
  return undefined;
}

/**
 * One word as Go's flag package's parseOne reads it: the end of the flags (a word no flag, or `--`), bad syntax, or a
 * flag (one dash or two) with its value after `=`.
 */
export function goFlagWord(word: string): { end: true } | { bad: string } | { flag: string; bare: string; inline: string | undefined } {
  if (word.length < 2 || !word.startsWith('-') || word === '--') return { end: true };
  const name = word.slice(word.startsWith('--') ? 2 : 1);
  if (name === '' || name.startsWith('-') || name.startsWith('=')) return { bad: `bad flag syntax: ${word}` };
  const eq = name.indexOf('=');
  const [bare, inline] = eq === -1 ? [name, undefined] : [name.slice(0, eq), name.slice(eq + 1)];
  return { flag: `-${bare}`, bare, inline };
}

/**
 * The first word of `words` (after the program) that stops it before it serves, or undefined where it takes them all.
 * Values the program itself checks (`choices`, `min`) are read once every flag is parsed, the last of each.
 */
export function goFlagRefusal(words: readonly string[], options: GoFlagOptions): GoFlagRefusal | undefined {
  const names = [...options.flags, ...options.withValue];
  const last = new Map<string, { value: string; index: number }>();
  const all: { flag: string; value: string; index: number }[] = [];
  const on = new Map<string, { value: boolean; index: number }>();
  for (let i = 0; i < words.length; i++) {
    const read = goFlagWord(words[i]!);
    if ('end' in read) break;
    if ('bad' in read) return { index: i, message: read.bad, exit: 2 };
    const { flag, bare, inline } = read;
    if (options.flags.includes(flag)) {
      const value = inline === undefined ? true : goParseBool(inline);
      if (value === undefined) return { index: i, message: `invalid boolean value ${JSON.stringify(inline)} for ${flag}: parse error`, exit: 2 };
      on.set(flag, { value, index: i });
      continue;
    }
    if (!options.withValue.includes(flag)) {
      if (bare === 'h' || bare === 'help') return { index: i, message: `${flag} prints its usage and exits 0`, exit: 0 };
      return { index: i, message: `flag provided but not defined: ${flag}${suggesting(nearestName(flag, names))}`, exit: 2 };
    }
    const value = inline ?? words[i + 1];
    if (value === undefined) return { index: i, message: `flag needs an argument: ${flag}`, exit: 2 };
    const at = inline === undefined ? ++i : i;
    const refused = setRefusal(flag, value, options.values?.[flag]);
    if (refused) return { index: at, message: refused, exit: 2 };
    last.set(flag, { value, index: at });
    all.push({ flag, value, index: at });
  }
  // What the program does once its flags are parsed: a flag that makes it print and stop, then its own checks.
  const conflicts = options.conflicts ?? [];
  const stops = conflictRefusal(
    conflicts.filter((c) => c.exit === 0),
    on,
    last,
  );
  if (stops) return stops;
  for (const [flag, { value, index }] of last) {
    const refused = valueRefusal(flag, value, options.values?.[flag]);
    if (refused) return { index, ...refused };
  }
  return (
    unknownKey(all, options.values ?? {}) ??
    conflictRefusal(
      conflicts.filter((c) => c.exit === undefined),
      on,
      last,
    )
  );
}

/** A key of a key=bool map (every time its flag is given) that is none of the keys the program knows: it exits 1 as it starts. */
function unknownKey(all: readonly { flag: string; value: string; index: number }[], values: Record<string, GoFlagValue>): GoFlagRefusal | undefined {
  for (const { flag, value, index } of all) {
    const keys = values[flag]?.boolMap?.keys;
    if (!keys) continue;
    const key = value
      .split(',')
      .filter((s) => s.includes('='))
      .map((s) => s.slice(0, s.indexOf('=')).trim())
      .find((k) => !keys.includes(k));
    if (key !== undefined)
      return { index, message: `${JSON.stringify(key)} in ${flag} is none the program knows${suggesting(nearestName(key, keys))}`, exit: 1 };
  }
  return undefined;
}

/** The first conflict the parsed flags make, at the last of its flags given. */
function conflictRefusal(
  conflicts: readonly GoFlagConflict[],
  on: ReadonlyMap<string, { value: boolean; index: number }>,
  last: ReadonlyMap<string, { value: string; index: number }>,
): GoFlagRefusal | undefined {
  for (const { given, below, says, exit } of conflicts) {
    if (!given.every((g) => on.get(g)?.value)) continue;
    const set = below && last.get(below.flag);
    const number = set ? goIntegerText(set.value) : below && BigInt(below.default);
    if (below && number !== undefined && number >= BigInt(below.min)) continue;
    const index = Math.max(...given.map((g) => on.get(g)!.index), set?.index ?? -1);
    return {
      index,
      message: `${[...given, ...(below ? [`${below.flag} ${set?.value ?? `${below.default} (its default)`}`] : [])].join(' with ')}: ${says}`,
      exit: exit ?? 1,
    };
  }
  return undefined;
}
