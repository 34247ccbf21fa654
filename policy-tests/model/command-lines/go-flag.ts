/**
 * How Go's own flag package (flag.Parse on flag.CommandLine, ExitOnError) reads a program's command line, for the flags
 * an image's facts list. Read from its source (flag.go, parseOne):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for a flag that takes one, the next word whatever it is;
 *     a flag that takes none (a Bool) takes a value only after `=`, as strconv.ParseBool reads it;
 *   - the first word that is not a flag (`-` among them) ends the flags, and `--` does too: what follows is left to the
 *     program, which reads it or not;
 *   - a flag given twice keeps the last value.
 * A flag it does not define ("flag provided but not defined"), a missing value, a value the flag's type refuses, or
 * bad syntax (`---x`, `-=x`) exits 2 before the program runs; `-h` and `-help`, where the program defines neither,
 * print its usage and exit 0.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseBool, isRegExpSource } from '../core/text.ts';
import { goIntegerText } from '../go/strconv.ts';

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
  /** The least value the program takes once parsed (it exits 1 below it). */
  min?: number;
}

/** Flags the program refuses together once they are parsed (exit 1): each of `given` true, and `below`'s flag under its `min` where named (its default where not given). */
export interface GoFlagConflict {
  given: string[];
  below?: { flag: string; min: number; default: number };
  says: string;
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
  const { pattern, fits, duration, choices, min, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    (pattern === undefined || isRegExpSource(pattern)) &&
    (duration === undefined || duration === true) &&
    (fits === undefined || (typeof fits === 'string' && fits in RANGES)) &&
    (choices === undefined || (Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string'))) &&
    (min === undefined || Number.isInteger(min)) &&
    [pattern, duration, choices, min].some((x) => x !== undefined)
  );
};

const isConflict = (c: unknown, flags: string[], withValue: string[]): boolean => {
  const { given, below, says, ...rest } = (c ?? {}) as Record<string, unknown>;
  const b = (below ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
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

/** Why a flag's value stops the program, or undefined where it takes it. */
function valueRefusal(flag: string, value: string, type: GoFlagValue | undefined): { message: string; exit: 1 | 2 } | undefined {
  const refused = typeRefusal(flag, value, type);
  if (refused) return { message: refused, exit: 2 };
  const number = goIntegerText(value);
  if (type?.choices && !type.choices.includes(value))
    return { message: `${JSON.stringify(value)} for ${flag}, which takes one of ${type.choices.join(', ')}`, exit: 1 };
  if (type?.min !== undefined && !(number !== undefined && number >= BigInt(type.min)))
    return { message: `${value} for ${flag}, which must be ${type.min} or more`, exit: 1 };
  return undefined;
}

/**
 * The first word of `words` (after the program) that stops it before it serves, or undefined where it takes them all.
 * Values the program itself checks (`choices`, `min`) are read once every flag is parsed, the last of each.
 */
export function goFlagRefusal(words: readonly string[], options: GoFlagOptions): GoFlagRefusal | undefined {
  const names = [...options.flags, ...options.withValue];
  const last = new Map<string, { value: string; index: number }>();
  const on = new Map<string, { value: boolean; index: number }>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.length < 2 || !word.startsWith('-') || word === '--') break;
    const name = word.slice(word.startsWith('--') ? 2 : 1);
    if (name === '' || name.startsWith('-') || name.startsWith('=')) return { index: i, message: `bad flag syntax: ${word}`, exit: 2 };
    const eq = name.indexOf('=');
    const [bare, inline] = eq === -1 ? [name, undefined] : [name.slice(0, eq), name.slice(eq + 1)];
    const flag = `-${bare}`;
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
    const type = options.values?.[flag];
    const refused = valueRefusal(flag, value, type && { pattern: type.pattern, fits: type.fits, duration: type.duration });
    if (refused) return { index: at, ...refused };
    last.set(flag, { value, index: at });
  }
  for (const [flag, { value, index }] of last) {
    const refused = valueRefusal(flag, value, options.values?.[flag]);
    if (refused) return { index, ...refused };
  }
  return conflictRefusal(options.conflicts ?? [], on, last);
}

/** The first conflict the parsed flags make, at the last of its flags given. */
function conflictRefusal(
  conflicts: readonly GoFlagConflict[],
  on: ReadonlyMap<string, { value: boolean; index: number }>,
  last: ReadonlyMap<string, { value: string; index: number }>,
): GoFlagRefusal | undefined {
  for (const { given, below, says } of conflicts) {
    if (!given.every((g) => on.get(g)?.value)) continue;
    const set = below && last.get(below.flag);
    const number = set ? goIntegerText(set.value) : below && BigInt(below.default);
    if (below && number !== undefined && number >= BigInt(below.min)) continue;
    const index = Math.max(...given.map((g) => on.get(g)!.index), set?.index ?? -1);
    return {
      index,
      message: `${[...given, ...(below ? [`${below.flag} ${set?.value ?? `${below.default} (its default)`}`] : [])].join(' with ')}: ${says}`,
      exit: 1,
    };
  }
  return undefined;
}
