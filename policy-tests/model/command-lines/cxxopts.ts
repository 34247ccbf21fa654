/**
 * How cxxopts v3.0.0 (the option parser Falco 0.44 links, with its regular expressions) reads a program's command
 * line, for the options an image's facts list. Read from include/cxxopts.hpp (OptionParser::parse, ParseArgument,
 * checked_parse_arg, the value parsers):
 *   - a word is an option only whole: `--name` (two characters or more of letters, digits, `-` and `_`), `--name=value`
 *     (the value any text of one line), or `-abc`, letters and digits; any other word that starts with `-` is a syntax
 *     error, and any other word is left aside (the program declares no positional argument, and reads none);
 *   - `--` ends the options;
 *   - an option with a value of its own where none is given (a bool's "true", `--list`'s "") takes no next word: its
 *     value comes only after `=`; any other takes the next word, whatever it is, and is missing at the end;
 *   - `-abc` is read letter by letter: one with a value of its own takes it, one that takes a value takes the rest of
 *     the word (`-pk`), the last takes the next word;
 *   - each value is read by its type as it is given: a bool `t`, `true`, `T`, `True`, `1` or the false ones, a whole
 *     number in cxxopts' syntax and range (`integer_parser`: unsigned arithmetic of the type's width, wrapping where
 *     its own check of overflow does not see it), a list of texts split at each comma.
 * Any refusal is an exception the program reports (Falco: "Error: ...", exit 1), before it starts. Then, in the
 * program's order, what it checks of its options (`conflicts`, `values`' choices and items: exit 1) and the options
 * that print or run something else and exit (`exits`: a bool given true, an option with a value given a non-empty
 * one, one with a value of its own given at all); a check's `after` names the exit whose turn comes just before it.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { isRegExpSource, isTextList } from '../core/text.ts';

/** What a value must be: a whole number of a C++ type, one of a few words in any case, or text a pattern reads. */
export interface CxxoptsValue {
  int?: 'int32';
  choices?: string[];
  /** A pattern each comma-separated item of a list's value must match, as the program reads them once loaded. */
  items?: string;
  /** The exit whose turn comes just before this check (none: before every exit). */
  after?: string;
}

/** A program's options as its facts list them, each long one with `--` and each short one with `-`. */
export interface CxxoptsOptions {
  program: string;
  parser: 'cxxopts';
  /** Options whose value is a bool ("true" where none is given). */
  flags: string[];
  /** Options that take a value. */
  withValue: string[];
  /** Options that take a value, with one of their own where none is given (after `=` only). */
  implicit?: string[];
  /** Options whose value is a list of texts (std::vector): each value given adds its items. */
  lists?: string[];
  /** A short name and the long one of the same option (`-h` of `--help`). */
  short?: Record<string, string>;
  values?: Record<string, CxxoptsValue>;
  /** Options that end the program before it serves: a bool given true, another given a value that is not empty (`implicit`: given at all). */
  exits?: string[];
  /** Options the program refuses together: each given (`items`: each holding an item), checked after the exit `after` names. */
  conflicts?: { given: string[]; says: string; items?: true; after?: string }[];
}

/** Why the program stops before it serves (`started`: its own check of its options, once cxxopts has read them). */
export type CxxoptsRefusal = { index: number; message: string; exit: 0 | 1; started?: true };

const OPTION = /^(?:--(?<long>[A-Za-z0-9][-_A-Za-z0-9]+)(?<set>=(?<value>.*))?|-(?<group>[A-Za-z0-9]+))$/;
const NAME = /^(--[A-Za-z0-9][-_A-Za-z0-9]+|-[A-Za-z0-9])$/;
const isNames = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && NAME.test(x));

/** Whether a facts entry is a CxxoptsOptions whose short names, values, exits and conflicts name its own options. */
export function isCxxoptsOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'cxxopts' || !isNames(o.flags) || !isNames(o.withValue)) return false;
  if (o.implicit !== undefined && !isNames(o.implicit)) return false;
  if (o.lists !== undefined && !(isNames(o.lists) && (o.lists as string[]).every((f) => (o.withValue as string[]).includes(f)))) return false;
  const all = [...(o.flags as string[]), ...(o.withValue as string[]), ...((o.implicit as string[] | undefined) ?? [])];
  const short = (o.short ?? {}) as Record<string, unknown>;
  if (typeof short !== 'object' || Array.isArray(short) || !Object.entries(short).every(([s, l]) => /^-[A-Za-z0-9]$/.test(s) && all.includes(l as string)))
    return false;
  const isAfter = (after: unknown) => after === undefined || ((o.exits as string[] | undefined) ?? []).includes(after as string);
  const isValue = ([flag, x]: [string, unknown]) => {
    const { int, choices, items, after, ...rest } = (x ?? {}) as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 &&
      isAfter(after) &&
      [...(o.withValue as string[])].includes(flag) &&
      (int === undefined || int === 'int32') &&
      (choices === undefined || isTextList(choices)) &&
      (items === undefined || isRegExpSource(items)) &&
      [int, choices, items].some((y) => y !== undefined)
    );
  };
  if (o.values !== undefined && !(typeof o.values === 'object' && o.values !== null && Object.entries(o.values).every(isValue))) return false;
  if (o.exits !== undefined && !(isNames(o.exits) && (o.exits as string[]).every((f) => all.includes(f)))) return false;
  const isConflict = (c: unknown) => {
    const { given, says, items, after, ...rest } = (c ?? {}) as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 &&
      isTextList(given) &&
      (given as string[]).every((f) => all.includes(f)) &&
      typeof says === 'string' &&
      (items === undefined || items === true) &&
      isAfter(after)
    );
  };
  return o.conflicts === undefined || (Array.isArray(o.conflicts) && o.conflicts.every(isConflict));
}

const TRUE = /^(?:[tT](?:rue)?|1)$/;
const FALSE = /^(?:[fF](?:alse)?|0)$/;

/** Whether cxxopts' integer_parser reads `text` as a C++ int: its syntax, then unsigned 32-bit arithmetic with its own overflow check, then the range. */
export function cxxoptsReadsInt32(text: string): boolean {
  const m = /^(?:(?<negative>-)?(?<hex>0x)?(?<digits>[0-9a-zA-Z]+)|(?:0x)?0)$/.exec(text);
  if (!m) return false;
  if (m.groups?.digits === undefined) return true;
  const base = m.groups.hex ? 16 : 10;
  let result = 0;
  for (const ch of m.groups.digits) {
    const digit = /[0-9]/.test(ch) ? Number(ch) : base === 16 && /[a-fA-F]/.test(ch) ? parseInt(ch, 16) : undefined;
    if (digit === undefined) return false;
    const next = (Math.imul(result, base) + digit) >>> 0;
    if (result > next) return false;
    result = next;
  }
  return result <= (m.groups.negative ? 2 ** 31 : 2 ** 31 - 1);
}

/** Why the option's type refuses `value`, or undefined. */
function valueRefusal(option: string, value: string, options: CxxoptsOptions): string | undefined {
  if (options.flags.includes(option)) return TRUE.test(value) || FALSE.test(value) ? undefined : `Argument '${value}' failed to parse`;
  return options.values?.[option]?.int && !cxxoptsReadsInt32(value) ? `Argument '${value}' failed to parse` : undefined;
}

type Given = { option: string; value: string; index: number };

/** Every option given, in order, as cxxopts reads `words`; or why it stops. */
function readOptions(words: readonly string[], options: CxxoptsOptions): Given[] | CxxoptsRefusal {
  const fail = (index: number, message: string): CxxoptsRefusal => ({ index, message, exit: 1 });
  const long = (name: string) => options.short?.[name] ?? name;
  const all = [...options.flags, ...options.withValue, ...(options.implicit ?? [])];
  const known = [...all, ...Object.keys(options.short ?? {})];
  const ownValue = (option: string) => (options.flags.includes(option) ? 'true' : options.implicit?.includes(option) ? '' : undefined);
  const given: Given[] = [];
  const take = (option: string, value: string, index: number) => {
    const refused = valueRefusal(option, value, options);
    if (refused) return fail(index, refused);
    given.push({ option, value, index });
    return undefined;
  };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') break;
    const m = OPTION.exec(word);
    if (!m) {
      if (word.startsWith('-') && word.length > 1) return fail(i, `Argument '${word}' starts with a - but has incorrect syntax`);
      continue;
    }
    const { long: name, set, value, group } = m.groups ?? {};
    // A short or long name alone, then its value: given, its own, or the next word.
    const read = (option: string, at: number): CxxoptsRefusal | undefined => {
      const own = ownValue(option);
      if (own !== undefined) return take(option, own, at);
      if (at + 1 >= words.length) return fail(at, `Option '${option.replace(/^-+/, '')}' is missing an argument`);
      i = at + 1;
      return take(option, words[at + 1]!, at + 1);
    };
    if (name !== undefined) {
      const option = `--${name}`;
      if (!known.includes(option)) return fail(i, `Option '${name}' does not exist${suggesting(nearestName(option, known))}`);
      const refused = set !== undefined ? take(long(option), value ?? '', i) : read(long(option), i);
      if (refused) return refused;
      continue;
    }
    for (let k = 0; k < group!.length; k++) {
      const letter = `-${group![k]}`;
      if (!known.includes(letter)) return fail(i, `Option '${group![k]}' does not exist${suggesting(nearestName(letter, known))}`);
      const option = long(letter);
      if (k + 1 === group!.length) {
        const refused = read(option, i);
        if (refused) return refused;
      } else if (ownValue(option) !== undefined) {
        const refused = take(option, ownValue(option)!, i);
        if (refused) return refused;
      } else {
        const refused = take(option, group!.slice(k + 1), i);
        if (refused) return refused;
        break;
      }
    }
  }
  return given;
}

/** The first word of `words` (after the program) that stops it before it serves, or undefined where it takes them all. */
export function cxxoptsRefusal(words: readonly string[], options: CxxoptsOptions): CxxoptsRefusal | undefined {
  const given = readOptions(words, options);
  if (!Array.isArray(given)) return given;
  const last = (option: string) => given.findLast((g) => g.option === option);
  const checksAfter = (exit: string | undefined) => checkRefusal(given, options, exit);
  const first = checksAfter(undefined);
  if (first) return first;
  for (const option of options.exits ?? []) {
    const g = last(option);
    // A list given holds an item (the empty text is one); a text, where it is not empty.
    const ends =
      g && (options.flags.includes(option) ? TRUE.test(g.value) : options.implicit?.includes(option) || options.lists?.includes(option) || g.value !== '');
    if (ends) return { index: g.index, message: `${option} does something else and exits`, exit: 0 };
    const refused = checksAfter(option);
    if (refused) return refused;
  }
  return undefined;
}

/** What the program checks of its options at one turn (after the exit `after` names, or before every exit): options refused together, a value's choices, a list's items. */
function checkRefusal(given: readonly Given[], options: CxxoptsOptions, after: string | undefined): CxxoptsRefusal | undefined {
  const last = (option: string) => given.findLast((g) => g.option === option);
  const holding = (option: string) => given.findLast((g) => g.option === option && (options.lists?.includes(option) || g.value !== ''));
  for (const { given: together, says, items, after: turn } of options.conflicts ?? []) {
    const each = together.map(items ? holding : last);
    if (turn === after && each.every((g) => g !== undefined))
      return { index: Math.max(...each.map((g) => g!.index)), message: `${together.join(' and ')} given together: ${says}`, exit: 1, started: true };
  }
  for (const [option, type] of Object.entries(options.values ?? {})) {
    if (type.after !== after) continue;
    const value = last(option)?.value;
    if (type.choices && value !== undefined && value !== '' && !type.choices.includes(value.toLowerCase()))
      return { index: last(option)!.index, message: `invalid ${option} '${value}': it takes ${type.choices.join(', ')}`, exit: 1, started: true };
    const items = type.items ? given.filter((g) => g.option === option).flatMap((g) => itemsOf(g.value).map((item) => ({ item, index: g.index }))) : [];
    const bad = items.find(({ item }) => !new RegExp(type.items!).test(item));
    if (bad) return { index: bad.index, message: `${option} '${bad.item}' is not of the form it reads`, exit: 1, started: true };
  }
  return undefined;
}

/** A list's value as cxxopts splits it: the empty text is one empty item; else std::getline at each comma, none after a last one. */
export const itemsOf = (value: string): string[] => (value === '' ? [''] : value.replace(/,$/, '').split(','));
