/**
 * Loki's command line as Loki 3.x reads it (cmd/loki/main.go, pkg/util/cfg): before anything else a word `-health`
 * runs its health check and a word `-version` prints its version, each then exiting; then Go's flag package parses
 * every word on the flag set its configuration registers (`cfg.DynamicUnmarshal` on flag.CommandLine):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for one that takes a value, the next word whatever it
 *     is; a Bool takes a value only after `=`, as strconv.ParseBool reads it; the first word that is no flag, or `--`,
 *     ends the flags;
 *   - a flag no field registers, a value its type refuses, a missing value or bad syntax stops the parse, and Loki
 *     exits 2 ("Run with -help to get list of available parameters"); `-h` and `-help` print the usage and exit 2 too;
 *   - once the file is read, `-verify-config` exits 0 after checking it, and `-list-targets` after listing them.
 * The flags are the reference's (`flags`: each field's, as Loki's documentation names it, and the wrapper's own);
 * `undocumented` and `endings` are what Loki's source registers beyond it. A flag the gate does not know is refused
 * where it is a slip of a known one (one Loki's source registers under no prefix); one far from all of them, or one
 * that may be registered under a prefix, is not judged. A value Kubernetes fills in (`$(VAR)`) is not judged.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseBool } from '../core/text.ts';
import { goParsesFloat } from '../go/strconv.ts';
import { dig, isMap } from '../core/dig.ts';
import { byteSizeProblem } from './reference.ts';
import { goFlagWord } from '../command-lines/go-flag.ts';

export type LokiFlagType = 'boolean' | 'int' | 'float' | 'duration' | 'bytes' | 'string';

export interface LokiFlags {
  /** Every flag the reference knows, with the type of its value. */
  known: ReadonlyMap<string, LokiFlagType>;
  /** The ends of the names Loki's source registers under a prefix. */
  endings: readonly string[];
}

/** Why Loki stops on its command line (`exit`), or a word the gate cannot judge. */
export type LokiFlagProblem = { index: number; message: string; exit: 0 | 1 | 2 } | { index: number; unjudged: string };

const TYPES: ReadonlySet<string> = new Set(['boolean', 'int', 'float', 'duration', 'bytes', 'string']);

/** Names written one to a line (or apart by any space). */
const names = (text: unknown): string[] => (typeof text === 'string' ? text.split(/\s+/).filter((n) => n !== '') : []);

/**
 * The flags a reference document lists (`flags` and `undocumented`: the names of each type; `endings`), or undefined
 * where it lists none.
 */
export function lokiFlags(doc: unknown): LokiFlags | undefined {
  const [flags, undocumented, endings] = [dig(doc, ['flags']), dig(doc, ['undocumented']) ?? {}, dig(doc, ['endings']) ?? ''];
  if (!isMap(flags) || !isMap(undocumented) || typeof endings !== 'string') return undefined;
  const known = new Map<string, LokiFlagType>();
  for (const [type, text] of [...Object.entries(flags), ...Object.entries(undocumented)])
    if (TYPES.has(type)) for (const name of names(text)) known.set(name, type as LokiFlagType);
  return { known, endings: names(endings) };
}

/** Why a value is refused by a flag of `type` as Go's flag package sets it, or undefined (a custom int type may read text: not judged). */
function valueRefusal(type: LokiFlagType, value: string): string | undefined {
  if (type === 'duration' && !goParseDuration(value).ok) return 'parse error';
  if (type === 'float' && !goParsesFloat(value)) return 'parse error';
  if (type === 'bytes') return byteSizeProblem(value);
  return undefined;
}

/** A word Loki's main reads before its flags: `-health` or `-version` (any number of dashes, no value). */
const EARLY: readonly [RegExp, string][] = [
  [/^-+health$/, 'runs Loki as its own health check (it asks /ready and exits), so Loki never starts'],
  [/^-+version$/, 'makes Loki print its version and exit 0, so Loki never starts'],
];

/** An unknown flag: a slip of a known one, refused; one a prefix may make, or far from every known one, not judged. */
function unknownFlag(flag: string, index: number, flags: LokiFlags): LokiFlagProblem {
  const name = flag.slice(1);
  const ending = flags.endings.find((e) => name === e || (name.endsWith(e) && (e.startsWith('.') || e.startsWith('-') || name.at(-e.length - 1) === '.')));
  if (ending !== undefined)
    return {
      index,
      unjudged: `${flag} is no flag the reference names, and Loki registers flags ending ${ending} under prefixes the gate does not know: not judged`,
    };
  const near = nearestName(flag, flags.known.keys());
  if (near === undefined)
    return { index, unjudged: `${flag} is no flag the reference names, nor near one: whether a library of Loki's registers it is not judged` };
  return { index, message: `flag provided but not defined: ${flag}${suggesting(near)}`, exit: 2 };
}

/** Each flag a command line sets, with its last value and the word that gave it. */
export type LokiFlagValues = ReadonlyMap<string, { value: string; index: number }>;

/** The flags Loki's words set, as Go's flag package parses them, or the word that stops the parse. */
function parseFlags(words: readonly string[], flags: LokiFlags, last: Map<string, { value: string; index: number }>): LokiFlagProblem | undefined {
  for (let i = 0; i < words.length; i++) {
    const read = goFlagWord(words[i]!);
    if ('end' in read) break;
    if ('bad' in read) return { index: i, message: read.bad, exit: 2 };
    const { flag, bare, inline } = read;
    const type = flags.known.get(flag);
    if (type === undefined) {
      if (bare === 'h' || bare === 'help') return { index: i, message: `${words[i]} prints Loki's usage`, exit: 2 };
      return unknownFlag(flag, i, flags);
    }
    if (type === 'boolean') {
      if (inline?.includes('$('))
        return { index: i, unjudged: `${flag} takes ${inline}, which Kubernetes fills in from the container's environment: not judged` };
      if (inline !== undefined && goParseBool(inline) === undefined)
        return { index: i, message: `invalid boolean value ${JSON.stringify(inline)} for ${flag}: parse error`, exit: 2 };
      last.set(flag, { value: inline ?? 'true', index: i });
      continue;
    }
    const value = inline ?? words[i + 1];
    if (value === undefined) return { index: i, message: `flag needs an argument: ${flag}`, exit: 2 };
    const at = inline === undefined ? ++i : i;
    if (value.includes('$(') && type !== 'string')
      return { index: at, unjudged: `${flag} takes ${value}, which Kubernetes fills in from the container's environment: not judged` };
    const refused = valueRefusal(type, value);
    if (refused) return { index: at, message: `invalid value ${JSON.stringify(value)} for flag ${flag}: ${refused}`, exit: 2 };
    last.set(flag, { value, index: at });
  }
  return undefined;
}

/**
 * What Loki's arguments do: the first word that stops it before it serves (or that the gate cannot judge), and the
 * last value of each flag they set (of the words before that one, where one stops the parse).
 */
export function readLokiFlags(words: readonly string[], flags: LokiFlags): { problem: LokiFlagProblem | undefined; values: LokiFlagValues } {
  const last = new Map<string, { value: string; index: number }>();
  for (const [pattern, says] of EARLY) {
    const index = words.findIndex((w) => pattern.test(w));
    if (index !== -1) return { problem: { index, message: `${words[index]} ${says}`, exit: 0 }, values: last };
  }
  const stopped = parseFlags(words, flags, last);
  if (stopped) return { problem: stopped, values: last };
  for (const [flag, does] of [
    ['-verify-config', 'check its configuration and exit 0'],
    ['-list-targets', 'list its targets and exit 0'],
  ] as const) {
    const set = last.get(flag);
    if (set && goParseBool(set.value) === true)
      return { problem: { index: set.index, message: `${flag} makes Loki ${does}, so it never serves`, exit: 0 }, values: last };
  }
  return { problem: undefined, values: last };
}

/** The first word of Loki's arguments that stops it before it serves (or that the gate cannot judge), or undefined. */
export const lokiFlagProblem = (words: readonly string[], flags: LokiFlags): LokiFlagProblem | undefined => readLokiFlags(words, flags).problem;
