/**
 * How spf13/pflag v1.0.10, under a cobra command, reads a program's command line, for the flags an image's facts list
 * (Alloy's `run`). Read from pflag's flag.go (parseArgs, parseLongArg, parseSingleShortArg) and cobra's command.go:
 *   - a long flag is `--name`, its value after `=`, else, for a flag that takes one, the next word whatever it is; a flag
 *     that takes none (a Bool, its NoOptDefVal "true"; or one with a NoOptDefVal of its own, `optional`) takes a value
 *     only after `=`;
 *   - a short flag is `-x`, bundled (`-xy`), its value attached (`-xVAL`, `-x=VAL`) or the next word;
 *   - a word that is no flag is a positional argument, wherever it stands (cobra parses interspersed), and `--` makes
 *     every word after it one;
 *   - each value is set as it is read: the first a flag's type refuses stops the parse.
 * An unknown flag, a missing value or a value refused is cobra's "Error: ...", exit 1; so is a count of positional
 * arguments the command does not take (cobra.ExactArgs), and so is what the command itself checks as it starts (`needs`:
 * Alloy's experimental flags below its experimental stability level). `--help` (or `-h`) prints its usage and exits 0.
 * A command is found as cobra finds it: the first word (Alloy), cobra's Find over the root's other commands
 * (kube-state-metrics), or, under a root with TraverseChildren, its Traverse down a path of words (falcoctl's
 * `artifact install`), each parent reading the words before its child as its own flags. A StringSlice's value is one
 * CSV record (csv-record.ts), and the program may check each of its items as it starts (cert-manager's nameservers).
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseBool } from '../core/text.ts';
import { goParsesFloat } from '../go/strconv.ts';
import { typeRefusal } from './go-flag.ts';
import { readMapOfLists } from './map-of-lists.ts';
import { goCsvRecord } from './csv-record.ts';
import type { PflagOptions, PflagTraverse } from './pflag-facts.ts';
import { lastSet, startRefusal, type FlagSet } from './pflag-start.ts';

export type { PflagOptions, PflagTraverse, PflagValue } from './pflag-facts.ts';

/**
 * Why the command stops (`started`: by its own check as it starts, not its flag parser's), or a word not judged
 * (`another`: the command line runs another command than the facts' subcommand).
 */
export type PflagRefusal =
  | { index: number; message: string; exit: 0 | 1 | 2; started?: true; fix?: string; another?: true }
  | { index: number; unjudged: string; another?: true };

/** Why a flag's value is refused as pflag sets it (exit 2 where the Go runtime panics on it), or undefined. */
function setRefusal(flag: string, value: string, options: PflagOptions): { message: string; exit: 1 | 2 } | undefined {
  const refused = (message: string) => ({ message: `invalid argument ${JSON.stringify(value)} for "${flag}" flag: ${message}`, exit: 1 as const });
  if (options.flags.includes(flag) || flag === '--help')
    return goParseBool(value) !== undefined ? undefined : refused(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
  const type = options.values?.[flag];
  const typed = typeRefusal(flag, value, type);
  if (typed) return { message: typed, exit: 1 };
  if (type?.float && !goParsesFloat(value)) return refused(`strconv.ParseFloat: parsing ${JSON.stringify(value)}: invalid syntax`);
  const record = type?.slice && value !== '' ? goCsvRecord(value) : undefined;
  if (record && 'error' in record) return refused(record.error);
  const map = type?.mapOfLists ? readMapOfLists(value) : undefined;
  if (map && 'error' in map) return map.panics ? { message: `panic: ${map.error}, reading ${flag}`, exit: 2 } : refused(map.error);
  return type?.choices && !type.choices.includes(value) ? refused(`takes one of ${type.choices.join(', ')}`) : undefined;
}

/** Why the parse stops: exit 1, cobra's error, or 2 where the Go runtime panics on the value. */
type Fail = { index: number; message: string; exit: 1 | 2 };
const fail = (index: number, message: string, exit: 1 | 2 = 1): Fail => ({ index, message, exit });
/** A command's flags as pflag parses them; `helpless` before cobra gives the command its help flag (a parent's, traversed). */
type Reading = PflagOptions & { helpless?: true };
const isBool = (flag: string, options: Reading) => (flag === '--help' && !options.helpless) || options.flags.includes(flag);
/**
 * The value a flag takes where no `=` gives one (pflag's NoOptDefVal): a Bool's "true", or an `optional` flag's own
 * (startupapicheck's `-v`, 2); undefined where it takes the next word. Cobra finds its commands past such flags alike.
 */
const bareValue = (flag: string, options: Reading): string | undefined => (isBool(flag, options) ? 'true' : options.optional?.[flag]);
const takesNextWord = (flag: string, options: Reading) => bareValue(flag, options) === undefined;
/** The one-letter flags and the long ones they stand for: cobra's `-h` of `--help`, and the facts' own. */
const shorthandsOf = (options: Reading): Record<string, string> => ({ ...(options.helpless ? {} : { '-h': '--help' }), ...options.shorthands });
// pflag's answer to a help flag its set does not have.
const HELP_REQUESTED = 'pflag: help requested';

/**
 * One word of one-letter flags (`-v 2`, `-v2`, `-v=2`, `-hv 2`), as pflag's parseShortArg reads it: each letter in turn,
 * a switch taking "true", a flag with a value the rest of the word (after `=`) or else the next word. Returns the words
 * it took, or why it stops.
 */
function readShorts(words: readonly string[], i: number, options: Reading, sets: FlagSet[]): { next: number } | Fail {
  const shorthands = shorthandsOf(options);
  let letters = words[i]!.slice(1);
  let next = i + 1;
  // A go test flag (-test.v) is passed over, as pflag does.
  while (letters.length > 0 && !letters.startsWith('test.')) {
    const flag = shorthands[`-${letters[0]}`];
    if (!flag) return fail(i, letters[0] === 'h' ? HELP_REQUESTED : `unknown shorthand flag: '${letters[0]}' in -${letters}`);
    let value: string;
    let at = i;
    if (letters.length > 2 && letters[1] === '=') [value, letters] = [letters.slice(2), ''];
    else if (!takesNextWord(flag, options)) [value, letters] = [bareValue(flag, options)!, letters.slice(1)];
    else if (letters.length > 1) [value, letters] = [letters.slice(1), ''];
    else if (i + 1 < words.length) [value, letters, next, at] = [words[i + 1]!, '', i + 2, i + 1];
    else return fail(i, `flag needs an argument: '${letters[0]}' in -${letters}`);
    const refused = setRefusal(flag, value, options);
    if (refused) return fail(at, refused.message, refused.exit);
    sets.push({ flag, value, index: at });
  }
  return { next };
}

/** One `--name[=value]` word (and its value's word), as pflag's parseLongArg reads it. */
function readLong(words: readonly string[], i: number, options: Reading, sets: FlagSet[]): { next: number } | Fail {
  const word = words[i]!;
  const name = word.slice(2);
  if (name.startsWith('-') || name.startsWith('=')) return fail(i, `bad flag syntax: ${word}`);
  const all = [...(options.helpless ? [] : ['--help']), ...options.flags, ...options.withValue];
  const eq = name.indexOf('=');
  const flag = `--${eq === -1 ? name : name.slice(0, eq)}`;
  if (flag === '--help' && options.helpless) return fail(i, HELP_REQUESTED);
  if (!all.includes(flag)) return fail(i, `unknown flag: ${flag}${suggesting(nearestName(flag, all))}`);
  let value = eq === -1 ? undefined : name.slice(eq + 1);
  let at = i;
  value ??= bareValue(flag, options);
  if (value === undefined) {
    if (i + 1 >= words.length) return fail(i, `flag needs an argument: ${word}`);
    value = words[++at]!;
  }
  const refused = setRefusal(flag, value, options);
  if (refused) return fail(at, refused.message, refused.exit);
  sets.push({ flag, value, index: at });
  return { next: at + 1 };
}

/**
 * The first word cobra's Find reads as a command's name (stripFlags): the first word that is no flag, passing over a
 * flag's value where `--name` or `-x` takes one (but not the last word, which cobra never strips), none after `--`.
 * Find runs before cobra gives the command its help flag, so `--help` and `-h` take the next word there.
 */
function firstWord(words: readonly string[], command: PflagOptions): number | undefined {
  const options: Reading = { ...command, helpless: true };
  const shorthands = shorthandsOf(options);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--') return undefined;
    const long = word.startsWith('--') && !word.includes('=') && takesNextWord(word, options);
    const short = word.startsWith('-') && !word.includes('=') && word.length === 2 && takesNextWord(shorthands[word] ?? '', options);
    if (long || short) {
      if (i + 1 >= words.length - 1) return undefined;
      i++;
    } else if (word !== '' && !word.startsWith('-')) return i;
  }
  return undefined;
}

/** The root's command a command line runs, as cobra's Find finds it: its first word, where that names one. */
function otherCommand(words: readonly string[], options: PflagOptions): number | undefined {
  const at = firstWord(words, options);
  return at !== undefined && (options.commands?.includes(words[at]!) || COMPLETE.includes(words[at]!)) ? at : undefined;
}

// cobra's own hidden command, on every root: it reads no flag (DisableFlagParsing).
const COMPLETE = ['__complete', '__completeNoDesc'];

/** Every flag and positional argument of `words`, as pflag reads them in turn, or why it stops. */
function readWords(words: readonly string[], from: number, options: Reading): { sets: FlagSet[]; positional: number[] } | Fail {
  const sets: FlagSet[] = [];
  const positional: number[] = [];
  for (let i = from; i < words.length;) {
    const word = words[i]!;
    if (word === '--') {
      for (let k = i + 1; k < words.length; k++) positional.push(k);
      break;
    }
    if (word.length < 2 || !word.startsWith('-')) {
      positional.push(i++);
      continue;
    }
    const read = word.startsWith('--') ? readLong(words, i, options, sets) : readShorts(words, i, options, sets);
    if ('message' in read) return read;
    i = read.next;
  }
  return { sets, positional };
}

/**
 * A command line that runs another of the root's commands: that command reads every other word with its own flags,
 * cobra's help alone (the root's are no persistent ones), so a root's flag stops it (exit 1); else what it does is not judged.
 */
function otherCommandRefusal(words: readonly string[], at: number, options: PflagOptions): PflagRefusal {
  const name = words[at]!;
  // Another command's line (`another`): where an entry of its own reads it (external-secrets' webhook), that one says it.
  const unjudged = { index: at, unjudged: `${options.program}'s ${name} command, whose arguments the facts do not list: not judged`, another: true as const };
  if (COMPLETE.includes(name)) return unjudged;
  const read = readWords([...words.slice(0, at), ...words.slice(at + 1)], 0, { program: options.program, parser: 'pflag', flags: [], withValue: [] });
  if (!('message' in read)) return unjudged;
  const index = read.index >= at ? read.index + 1 : read.index;
  return { ...read, index, message: `${read.message} (its ${name} command has only --help)`, another: true };
}

/** A word cobra's Traverse takes for a flag of its own, with its value after `=` or none (cobra's isFlagArg). */
const isFlagArg = (word: string) => (word.length >= 3 && word.startsWith('--')) || (word.length >= 2 && word[0] === '-' && word[1] !== '-');

/**
 * Where the words of the facts' subcommand begin, as cobra's Traverse finds it from a root with TraverseChildren: the
 * words before each command of the path are its parent's, scanned (a `--name` but a switch the parent has, or a `-x`
 * but a switch's letter, takes the next word, `--` among them) and then parsed with the root's persistent flags and no
 * help flag yet (`--help` there is pflag's "help requested", exit 1). A word naming another command runs that: not
 * judged. A word naming none stops the walk: the command reached has no code of its own, so once its words parse it
 * prints its usage and exits 0.
 */
function traversed(words: readonly string[], path: string[], traverse: PflagTraverse, options: PflagOptions): { from: number } | PflagRefusal {
  const own = (flag: string) => traverse.inherited.includes(flag);
  const shorthands = Object.fromEntries(Object.entries(options.shorthands ?? {}).filter(([, flag]) => own(flag)));
  const parent: Reading = { ...options, flags: options.flags.filter(own), withValue: options.withValue.filter(own), shorthands, helpless: true };
  let from = 0;
  for (const [depth, name] of path.entries()) {
    let at = from;
    for (let inFlag = false; at < words.length; at++) {
      const word = words[at]!;
      if (word.startsWith('--') && !word.includes('=')) inFlag = takesNextWord(word, parent);
      else if (word.startsWith('-') && !word.includes('=') && word.length === 2 && takesNextWord(shorthands[word] ?? '', parent)) inFlag = true;
      else if (inFlag) inFlag = false;
      else if (!isFlagArg(word)) break;
    }
    const word = words[at];
    const other = word !== undefined && word !== name && (traverse.others[depth]!.includes(word) || (depth === 0 && COMPLETE.includes(word)));
    const stops = word !== name && !other;
    // A command found parses its parent's words first; where none is, the parent runs, with its help flag, on every word.
    const read = readWords(stops ? words : words.slice(0, at), from, { ...parent, helpless: stops ? undefined : true });
    if ('message' in read) return read;
    if (word === name) {
      from = at + 1;
      continue;
    }
    const command = [options.program, ...path.slice(0, depth)].join(' ');
    if (other) return { index: at, unjudged: `${command}'s ${word} command, whose flags the facts do not list: not judged`, another: true };
    const named = word === undefined ? 'none' : `no ${JSON.stringify(word)}`;
    return {
      index: Math.min(at, words.length - 1),
      message: `${command} has ${named} among its commands, and with no code of its own it prints its usage and exits 0`,
      exit: 0,
      fix: `name ${options.program} ${options.subcommand} first, with its flags after`,
    };
  }
  return { from };
}

/**
 * The first word of `words` (after the program) that stops the command before it runs, or undefined where it takes
 * them all; where the first word is not the facts' subcommand, or names another of the root's commands, the command
 * line is another command's: not judged.
 */
export function pflagRefusal(words: readonly string[], options: PflagOptions): PflagRefusal | undefined {
  const path = options.subcommand?.split(' ') ?? [];
  const found = options.traverse ? traversed(words, path, options.traverse, options) : { from: path.length };
  if (!('from' in found)) return found;
  // Traversed, the walk found the path; else the path is the first words as written.
  if (!options.traverse && !path.every((name, k) => words[k] === name))
    return { index: 0, unjudged: `another command than ${options.subcommand}, whose flags the facts do not list: not judged`, another: true };
  const other = options.subcommand === undefined ? otherCommand(words, options) : undefined;
  if (other !== undefined) return otherCommandRefusal(words, other, options);
  // cobra's legacyArgs, which Find runs on a root with commands and no Args of its own, before any flag is read.
  const first = options.positional === 'legacy' ? firstWord(words, options) : undefined;
  if (first !== undefined) return fail(first, `unknown command ${JSON.stringify(words[first])} for ${JSON.stringify(options.program)}`);
  const read = readWords(words, found.from, options);
  if ('message' in read) return read;
  const { sets, positional } = read;
  // The help flag's last value decides, as cobra reads it once every flag is set.
  const help = lastSet(sets, '--help');
  if (help && goParseBool(help.value) === true) return { index: help.index, message: '--help prints its usage and exits 0', exit: 0 };
  if (options.positional === 'none' && positional.length > 0)
    return fail(positional[0]!, `unknown command ${JSON.stringify(words[positional[0]!])} for ${JSON.stringify(options.program)}`);
  if (typeof options.positional === 'number' && positional.length !== options.positional)
    return fail(positional[options.positional] ?? words.length - 1, `accepts ${options.positional} arg(s), received ${positional.length}`);
  const last = (flag: string) => lastSet(sets, flag);
  for (const need of options.needs ?? []) {
    const given = last(need.given);
    if (!given || goParseBool(given.value) !== true || need.is.includes(last(need.flag)?.value ?? need.default)) continue;
    const message = `'${need.given}' can only be used with ${need.flag}=${need.is.join(' or ')} (it is ${last(need.flag)?.value ?? `${need.default}, its default`})`;
    return { ...fail(given.index, message), started: true };
  }
  const started = startRefusal(sets, options);
  if (started && 'unjudged' in started) return started;
  const override = options.overriddenBy?.map(last).find((s) => s !== undefined);
  if (started && override)
    return { index: started.index, unjudged: `the file ${options.overriddenBy!.join(' or ')} names may override it as ${options.program} starts: not judged` };
  return started && { ...started, exit: 1, started: true };
}
