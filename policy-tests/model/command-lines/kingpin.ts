/**
 * How kingpin v2 (alecthomas/kingpin 2.4.0, the flag parser of Prometheus' Go programs) reads a program's command line,
 * for the flags an image's facts list. Read from its own source (parser.go, flags.go, app.go):
 *   - a long flag is `--name`, its value after `=` or in the next word, which must not itself be a flag (`-` alone is
 *     a value); a flag that takes no value is `--name`, or `--no-name` for false, and `--name=v` leaves `v` behind as
 *     an argument the program does not take ("unexpected v");
 *   - a short flag is a letter (`-h`), bundled with the next (`-hv`), or with its value attached (`-fARG`);
 *   - after `--` every word is an argument, and a program that declares none refuses it; a word starting with `@` is
 *     replaced by the lines of that file (EnableFileExpansion), which only the running container holds;
 *   - each flag given is then set in order: a flag that is not a list given twice ("cannot be repeated") or a value
 *     its type refuses stops the program.
 * Every refusal ends in `Fatalf` (exit 1) before the program's own code runs. kingpin's own flags print and exit 0:
 * `--help` (usage), `--help-long`, `--help-man`, the completion scripts, and `--version` where the program sets one
 * (Application.Version; given at all, even as `--no-version`, its PreAction prints and exits).
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { isTextList } from '../core/text.ts';
import { goParsesFloat } from '../go/strconv.ts';
import { isTypeValue, type GoFlagValue } from './go-flag-facts.ts';
import { typeRefusal } from './go-flag.ts';

/** What a flag's value must be where its type reads it: a number (strconv.ParseFloat: kingpin's Int and Float64), one of a list, or text a pattern reads (strconv.ParseUint, kingpin's Uint: see go-flag.ts). */
export type KingpinValue = { number: true } | { duration: true } | { choices: string[]; anyCase?: boolean } | { pattern: string; fits?: GoFlagValue['fits'] };

/** A program's flags as its facts list them. */
export interface KingpinOptions {
  /** The binary, as the command line (or the image's ENTRYPOINT) names it: a path ending in it. */
  program: string;
  parser: 'kingpin';
  /** Flags that take no value (Bool): `--x`, or `--no-x`. */
  flags: string[];
  /** Flags that take one value. */
  withValue: string[];
  /** Flags kept each time given (Strings); any other given twice stops the program. */
  repeatable?: string[];
  /** The values a flag takes, where its type refuses others. */
  values?: Record<string, KingpinValue>;
  /** Short flags and the long one each stands for (`-h` for `--help`, as HelpFlag.Short('h') sets it). */
  short?: Record<string, string>;
  /** The program's own flags that, given true, make it exit without serving (a `--dry-run`). */
  exits?: string[];
}

/** Why kingpin (or the program right after it) stops: with the word's index, or a word the gate cannot read. */
export type KingpinRefusal = { index: number; message: string; exit: 0 | 1 } | { index: number; unjudged: string };

/** kingpin's own flags, on every program: each takes no value, prints and exits 0. */
const KINGPIN_FLAGS = ['--help', '--help-long', '--help-man', '--completion-bash', '--completion-script-bash', '--completion-script-zsh'];
/** Those whose PreAction prints and exits before a parse error is reported, given at all. */
const PRE_ACTIONS = ['--help-long', '--help-man', '--completion-script-bash', '--completion-script-zsh', '--version'];

/** A word kingpin replaces with the lines of a file in the container (EnableFileExpansion). */
const ARGUMENTS_FILE = 'a file of arguments kingpin reads a flag from on each line, in the running container: what it gives is not judged';
const LONG = /^--[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && LONG.test(x));
const isValue = (v: unknown): boolean => {
  const o = (v ?? {}) as Record<string, unknown>;
  if (o.number === true || o.duration === true) return Object.keys(o).length === 1;
  if (o.pattern !== undefined) return isTypeValue(o);
  return (
    isTextList(o.choices) && (o.anyCase === undefined || typeof o.anyCase === 'boolean') && Object.keys(o).every((k) => k === 'choices' || k === 'anyCase')
  );
};
const isRecord = (v: unknown, valid: (key: string, value: unknown) => boolean) =>
  v === undefined || (typeof v === 'object' && v !== null && !Array.isArray(v) && Object.entries(v).every(([k, x]) => valid(k, x)));

/** Whether a facts entry is a KingpinOptions whose every named flag is one of its own. */
export function isKingpinOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'kingpin' || !isFlagList(o.flags) || !isFlagList(o.withValue)) return false;
  const own = new Set([...(o.flags as string[]), ...(o.withValue as string[]), ...KINGPIN_FLAGS]);
  const ownList = (list: unknown) => list === undefined || (isFlagList(list) && (list as string[]).every((f) => own.has(f)));
  return (
    ownList(o.repeatable) &&
    ownList(o.exits) &&
    isRecord(o.values, (k, x) => (o.withValue as string[]).includes(k) && isValue(x)) &&
    isRecord(o.short, (k, x) => /^-[A-Za-z0-9]$/.test(k) && typeof x === 'string' && own.has(x))
  );
}

interface Element {
  flag: string;
  value: string;
  index: number;
}

/** The words' flags in order as kingpin's parser matches them, and the first refusal of the parse, if any. */
function parse(words: readonly string[], options: KingpinOptions): { elements: Element[]; refusal?: KingpinRefusal } {
  const bools = new Set([...options.flags, ...KINGPIN_FLAGS]);
  const valued = new Set(options.withValue);
  const longs = [...bools, ...valued];
  const elements: Element[] = [];
  const queue = words.map((word, index) => ({ word, index }));
  const fail = (index: number, message: string) => ({ elements, refusal: { index, message, exit: 1 as const } });
  let argsOnly = false;
  /** The next word as the value of `flag` (named as given), or the refusal. */
  const valueOf = (flag: string, given: string, at: number): KingpinRefusal | undefined => {
    let next = queue.shift();
    if (next?.word === '--' && !argsOnly) [argsOnly, next] = [true, queue.shift()];
    if (next && !argsOnly && next.word.startsWith('@')) return { index: next.index, unjudged: ARGUMENTS_FILE };
    if (!next || (!argsOnly && next.word.startsWith('-') && next.word !== '-')) return { index: at, message: `expected argument for flag '${given}'`, exit: 1 };
    elements.push({ flag, value: next.word, index: next.index });
    return undefined;
  };
  while (queue.length > 0) {
    const { word, index } = queue.shift()!;
    if (argsOnly || (!word.startsWith('-') && !word.startsWith('@')) || word === '-') return fail(index, `unexpected ${word}`);
    if (word === '--') {
      argsOnly = true;
      continue;
    }
    if (word.startsWith('@')) return { elements, refusal: { index, unjudged: ARGUMENTS_FILE } };
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const given = eq === -1 ? word : word.slice(0, eq);
      const inline = eq === -1 ? undefined : word.slice(eq + 1);
      const negated = !bools.has(given) && !valued.has(given) && given.startsWith('--no-');
      const flag = negated ? `--${given.slice(5)}` : given;
      if (bools.has(flag)) {
        elements.push({ flag, value: negated ? 'false' : 'true', index });
        if (inline !== undefined)
          return fail(index, `unexpected ${inline} (a flag that takes no value is given as ${flag}, or ${`--no-${flag.slice(2)}`} for false)`);
        continue;
      }
      if (!valued.has(flag) || negated) return fail(index, `unknown long flag '${given}'${suggesting(nearestName(given, longs))}`);
      if (inline !== undefined) elements.push({ flag, value: inline, index });
      else {
        const refused = valueOf(flag, given, index);
        if (refused) return { elements, refusal: refused };
      }
      continue;
    }
    const letter = word.slice(0, 2);
    const flag = options.short?.[letter];
    if (flag === undefined) return fail(index, `unknown short flag '${letter}'`);
    if (bools.has(flag)) {
      elements.push({ flag, value: 'true', index });
      if (word.length > 2) queue.unshift({ word: `-${word.slice(2)}`, index });
      continue;
    }
    if (word.length > 2) elements.push({ flag, value: word.slice(2), index });
    else {
      const refused = valueOf(flag, letter, index);
      if (refused) return { elements, refusal: refused };
    }
  }
  return { elements };
}

/**
 * The flags' values set in order (setValues): the first that stops the program, a flag given twice that is not a list
 * or a value its type refuses, with how many were set before it; and whether `--completion-bash` was left true.
 */
function setValues(elements: readonly Element[], options: KingpinOptions): { refusal?: KingpinRefusal; completion: boolean } {
  const seen = new Set<string>();
  let completion = false;
  for (const { flag, value, index } of elements) {
    if (seen.has(flag) && !options.repeatable?.includes(flag))
      return { refusal: { index, message: `flag '${flag.slice(2)}' cannot be repeated`, exit: 1 }, completion };
    seen.add(flag);
    const type = options.values?.[flag];
    if (type && 'number' in type && !goParsesFloat(value))
      return {
        refusal: { index, message: `strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax, for ${flag}, which takes a number`, exit: 1 },
        completion,
      };
    // kingpin's Duration is time.ParseDuration's; a Uint's text a pattern.
    const refused = type && ('pattern' in type || 'duration' in type) ? typeRefusal(flag, value, type) : undefined;
    if (refused) return { refusal: { index, message: refused, exit: 1 }, completion };
    if (type && 'choices' in type && !type.choices.some((c) => (type.anyCase ? c.toLowerCase() === value.toLowerCase() : c === value)))
      return { refusal: { index, message: `${JSON.stringify(value)} for ${flag}, which takes one of ${type.choices.join(', ')}`, exit: 1 }, completion };
    if (flag === '--completion-bash') completion = value === 'true';
  }
  return { completion };
}

/** The first word of `words` (after the program) that stops it before it serves, or undefined where kingpin takes them all. */
export function kingpinRefusal(words: readonly string[], options: KingpinOptions): KingpinRefusal | undefined {
  // Application.Parse's order: the values set (an error kept for later), the PreActions, the completion, the parse's
  // error, the help flag, then the values' error.
  const { elements, refusal } = parse(words, options);
  const set = setValues(elements, options);
  const completion = set.completion ? elements.find((e) => e.flag === '--completion-bash') : undefined;
  const printer = completion ?? elements.find((e) => PRE_ACTIONS.includes(e.flag));
  if (printer) return { index: printer.index, message: `${printer.flag} prints and exits 0`, exit: 0 };
  if (refusal) return refusal;
  const help = elements.find((e) => e.flag === '--help');
  if (help) return { index: help.index, message: '--help prints its usage and exits 0', exit: 0 };
  if (set.refusal) return set.refusal;
  const last = new Map(elements.map((e) => [e.flag, e] as const));
  const exit = (options.exits ?? []).map((f) => last.get(f)).find((e) => e?.value === 'true');
  return exit && { index: exit.index, message: `${exit.flag} makes it exit once its settings are read`, exit: 0 };
}
