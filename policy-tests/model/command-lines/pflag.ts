/**
 * How spf13/pflag v1.0.10, under a cobra command, reads a program's command line, for the flags an image's facts list
 * (Alloy's `run`). Read from pflag's flag.go (parseArgs, parseLongArg, parseSingleShortArg) and cobra's command.go:
 *   - a long flag is `--name`, its value after `=`, else, for a flag that takes one, the next word whatever it is; a flag
 *     that takes none (a Bool, its NoOptDefVal "true") takes a value only after `=`;
 *   - a short flag is `-x`, bundled (`-xy`), its value attached (`-xVAL`, `-x=VAL`) or the next word;
 *   - a word that is no flag is a positional argument, wherever it stands (cobra parses interspersed), and `--` makes
 *     every word after it one;
 *   - each value is set as it is read: the first a flag's type refuses stops the parse.
 * An unknown flag, a missing value or a value refused is cobra's "Error: ...", exit 1; so is a count of positional
 * arguments the command does not take (cobra.ExactArgs), and so is what the command itself checks as it starts (`needs`:
 * Alloy's experimental flags below its experimental stability level). `--help` (or `-h`) prints its usage and exits 0.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseBool } from '../core/text.ts';
import { isTypeValue, typeRefusal, type GoFlagValue } from './go-flag.ts';

/** A command's flags as its facts list them. */
export interface PflagOptions {
  /** The binary, as the command line (or the image's ENTRYPOINT) names it: a path ending in it. */
  program: string;
  parser: 'pflag';
  /** The cobra subcommand these flags are of, the first word; a command line that runs another is not judged. */
  subcommand?: string;
  /** How many positional arguments the command takes (cobra.ExactArgs), where it says. */
  positional?: number;
  /** Flags that take no value (Bool): `--x`, or `--x=false`. */
  flags: string[];
  /** Flags that take one value. */
  withValue: string[];
  /** The values a flag's type reads (a pattern, the integer type it fits, a duration) or takes (choices). */
  values?: Record<string, Pick<GoFlagValue, 'pattern' | 'fits' | 'duration' | 'choices'>>;
  /** What the command checks as it starts: a flag given true needs another's value (its last, else its default) among `is`. */
  needs?: { given: string; flag: string; is: string[]; default: string }[];
}

/** Why the command stops (`started`: by its own check as it starts, not its flag parser's), or a word not judged. */
export type PflagRefusal = { index: number; message: string; exit: 0 | 1; started?: true } | { index: number; unjudged: string };

const LONG = /^--[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && LONG.test(x));
const isValue = (v: unknown): boolean => {
  const { choices, ...type } = (v ?? {}) as Record<string, unknown>;
  if (choices !== undefined && !(Array.isArray(choices) && choices.length > 0 && choices.every((c) => typeof c === 'string'))) return false;
  if (Object.keys(type).length === 0) return choices !== undefined;
  return type.pattern === undefined ? Object.keys(type).length === 1 && type.duration === true : isTypeValue(type);
};

/** Whether a facts entry is a PflagOptions whose values name its own flags that take one. */
export function isPflagOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'pflag' || !isFlagList(o.flags) || !isFlagList(o.withValue)) return false;
  if (o.subcommand !== undefined && (typeof o.subcommand !== 'string' || !/^[a-z][\w-]*$/.test(o.subcommand))) return false;
  if (o.positional !== undefined && !(Number.isInteger(o.positional) && (o.positional as number) >= 0)) return false;
  const isNeed = (n: unknown) => {
    const { given, flag, is, default: fallback, ...rest } = (n ?? {}) as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 &&
      (o.flags as string[]).includes(given as string) &&
      (o.withValue as string[]).includes(flag as string) &&
      Array.isArray(is) &&
      is.length > 0 &&
      is.every((v) => typeof v === 'string') &&
      typeof fallback === 'string'
    );
  };
  if (o.needs !== undefined && !(Array.isArray(o.needs) && o.needs.every(isNeed))) return false;
  const values = o.values;
  return (
    values === undefined ||
    (typeof values === 'object' &&
      values !== null &&
      !Array.isArray(values) &&
      Object.entries(values).every(([k, x]) => (o.withValue as string[]).includes(k) && isValue(x)))
  );
}

/** Why a flag's value is refused as pflag sets it, or undefined. */
function setRefusal(flag: string, value: string, options: PflagOptions): string | undefined {
  if (options.flags.includes(flag) || flag === '--help')
    return goParseBool(value) !== undefined
      ? undefined
      : `invalid argument ${JSON.stringify(value)} for "${flag}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`;
  const type = options.values?.[flag];
  const refused = typeRefusal(flag, value, type);
  if (refused) return refused;
  return type?.choices && !type.choices.includes(value)
    ? `invalid argument ${JSON.stringify(value)} for "${flag}" flag: takes one of ${type.choices.join(', ')}`
    : undefined;
}

/**
 * The first word of `words` (after the program) that stops the command before it runs, or undefined where it takes
 * them all; where the first word is not the facts' subcommand, the command line is another command's: not judged.
 */
export function pflagRefusal(words: readonly string[], options: PflagOptions): PflagRefusal | undefined {
  if (options.subcommand !== undefined && words[0] !== options.subcommand)
    return { index: 0, unjudged: `another command than ${options.subcommand}, whose flags the facts do not list: not judged` };
  const bools = [...options.flags, '--help'];
  const all = [...bools, ...options.withValue];
  const fail = (index: number, message: string) => ({ index, message, exit: 1 as const });
  const positional: number[] = [];
  let help: number | undefined;
  const last = new Map<string, { value: string; index: number }>();
  for (let i = options.subcommand === undefined ? 0 : 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') {
      for (let k = i + 1; k < words.length; k++) positional.push(k);
      break;
    }
    if (word.length < 2 || !word.startsWith('-')) {
      positional.push(i);
      continue;
    }
    if (!word.startsWith('--')) {
      // Only cobra's -h is a shorthand here; a go test flag (-test.v) is passed over.
      if (word.startsWith('-test.')) continue;
      if (word[1] !== 'h') return fail(i, `unknown shorthand flag: '${word[1]}' in ${word}`);
      if (word.length > 2 && word[2] !== '=') return fail(i, `unknown shorthand flag: '${word[2]}' in -${word.slice(2)}`);
      const refused = word.length > 2 ? setRefusal('--help', word.slice(3), options) : undefined;
      if (refused) return fail(i, refused);
      // The help flag's last value decides, as cobra reads it once every flag is set.
      help = word.length === 2 || goParseBool(word.slice(3)) === true ? (help ?? i) : undefined;
      continue;
    }
    const name = word.slice(2);
    if (name.startsWith('-') || name.startsWith('=')) return fail(i, `bad flag syntax: ${word}`);
    const eq = name.indexOf('=');
    const flag = `--${eq === -1 ? name : name.slice(0, eq)}`;
    if (!all.includes(flag)) return fail(i, `unknown flag: ${flag}${suggesting(nearestName(flag, all))}`);
    let value = eq === -1 ? undefined : name.slice(eq + 1);
    let at = i;
    if (value === undefined && bools.includes(flag)) value = 'true';
    if (value === undefined) {
      if (i + 1 >= words.length) return fail(i, `flag needs an argument: ${word}`);
      value = words[++i]!;
      at = i;
    }
    const refused = setRefusal(flag, value, options);
    if (refused) return fail(at, refused);
    if (flag === '--help') help = goParseBool(value) === true ? (help ?? at) : undefined;
    last.set(flag, { value, index: at });
  }
  if (help !== undefined) return { index: help, message: '--help prints its usage and exits 0', exit: 0 };
  if (options.positional !== undefined && positional.length !== options.positional)
    return fail(positional[options.positional] ?? words.length - 1, `accepts ${options.positional} arg(s), received ${positional.length}`);
  for (const need of options.needs ?? []) {
    const given = last.get(need.given);
    if (!given || goParseBool(given.value) !== true || need.is.includes(last.get(need.flag)?.value ?? need.default)) continue;
    const message = `'${need.given}' can only be used with ${need.flag}=${need.is.join(' or ')} (it is ${last.get(need.flag)?.value ?? `${need.default}, its default`})`;
    return { ...fail(given.index, message), started: true };
  }
  return undefined;
}
