/**
 * The command line of a Grafana program (Loki, Tempo) as Go's flag package parses it on the flag set its
 * configuration registers, against the flags its source registers (a reference file's `flags` and `undocumented`,
 * each name under the type of value it takes, and `endings`: the ends of the names it registers under a prefix):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for one that takes a value, the next word whatever it
 *     is; a Bool takes a value only after `=`, as strconv.ParseBool reads it; the first word that is no flag, or `--`,
 *     ends the flags;
 *   - a flag no field registers, a value its type refuses, a missing value or bad syntax stops the parse, exit 2;
 *     `-h` and `-help` print the usage and exit as the program's flag set does (`help`);
 *   - words the program reads before its flags (`early`), and flags that make it stop once its file is read (`stops`),
 *     end it before it serves.
 * A flag the gate does not know is refused where it is a slip of a known one (one the source registers under no
 * prefix); one far from all of them, or one that may be registered under a prefix, is not judged. A value Kubernetes
 * fills in (`$(VAR)`) is not judged.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseBool } from '../core/text.ts';
import { goIntegerText, goParsesFloat } from '../go/strconv.ts';
import { dig, isMap } from '../core/dig.ts';
import { goFlagWord } from './go-flag.ts';

export type RegisteredFlagType = 'boolean' | 'int' | 'float' | 'duration' | 'bytes' | 'string';

export interface RegisteredFlags {
  /** Every flag the reference knows, with the type of its value. */
  known: ReadonlyMap<string, RegisteredFlagType>;
  /** The ends of the names the program's source registers under a prefix. */
  endings: readonly string[];
  /**
   * Where the reference lists every prefix the program registers flags under (Tempo's modules): a flag under none of
   * them that it does not know is one the flag set does not hold, and one under one of them is not judged.
   */
  prefixes?: readonly string[];
}

/** How one program reads its command line beyond Go's flag package. */
export interface FlagProgram {
  name: string;
  /** Words it looks for before it parses its flags, anywhere among them, with what each does (each exits 0). */
  early: readonly (readonly [RegExp, string])[];
  /** Flags that, set true, make it stop once its flags and file are read, with what each does (each exits 0). */
  stops: readonly (readonly [string, string])[];
  /** The exit of `-h` and `-help`: 0 on a flag set that exits on error (flag.CommandLine), else the program's. */
  helpExit: 0 | 2;
  /** Why a byte size is refused, where its flags take one. */
  byteSize?: (value: string) => string | undefined;
  /** Whether its int flags are Go's own (`IntVar`: strconv.ParseInt in base 0, 64 bits), not a type of the program's that may read text. */
  goInts?: boolean;
}

/** Why the program stops on its command line (`exit`), or a word the gate cannot judge. */
export type RegisteredFlagProblem = { index: number; message: string; exit: 0 | 1 | 2 } | { index: number; unjudged: string };

const TYPES: ReadonlySet<string> = new Set(['boolean', 'int', 'float', 'duration', 'bytes', 'string']);

/** Names written one to a line (or apart by any space). */
const names = (text: unknown): string[] => (typeof text === 'string' ? text.split(/\s+/).filter((n) => n !== '') : []);

/**
 * The flags a reference document lists (`flags` and `undocumented`: the names of each type; `endings`), or undefined
 * where it lists none.
 */
export function registeredFlagsOf(doc: unknown): RegisteredFlags | undefined {
  const [flags, undocumented, endings] = [dig(doc, ['flags']), dig(doc, ['undocumented']) ?? {}, dig(doc, ['endings']) ?? ''];
  const prefixes = dig(doc, ['prefixes']);
  if (!isMap(flags) || !isMap(undocumented) || typeof endings !== 'string') return undefined;
  if (prefixes !== undefined && !(Array.isArray(prefixes) && prefixes.every((p) => typeof p === 'string'))) return undefined;
  const known = new Map<string, RegisteredFlagType>();
  for (const [type, text] of [...Object.entries(flags), ...Object.entries(undocumented)])
    if (TYPES.has(type)) for (const name of names(text)) known.set(name, type as RegisteredFlagType);
  return { known, endings: names(endings), ...(prefixes ? { prefixes: prefixes as string[] } : {}) };
}

/** Why a value is refused by a flag of `type` as Go's flag package sets it, or undefined (a custom int type may read text: not judged). */
function valueRefusal(type: RegisteredFlagType, value: string, program: FlagProgram): string | undefined {
  if (type === 'duration' && !goParseDuration(value).ok) return 'parse error';
  if (type === 'float' && !goParsesFloat(value)) return 'parse error';
  if (type === 'bytes') return program.byteSize?.(value);
  if (type === 'int' && program.goInts) {
    const n = goIntegerText(value);
    if (n === undefined) return 'parse error';
    if (n < -(2n ** 63n) || n >= 2n ** 63n) return 'value out of range';
  }
  return undefined;
}

/** An unknown flag: a slip of a known one, refused; one a prefix may make, or far from every known one, not judged. */
function unknownFlag(flag: string, index: number, flags: RegisteredFlags, program: FlagProgram): RegisteredFlagProblem {
  const name = flag.slice(1);
  if (flags.prefixes) return unlistedFlag(flag, index, flags as RegisteredFlags & { prefixes: readonly string[] }, program);
  const ending = flags.endings.find((e) => name === e || (name.endsWith(e) && (e.startsWith('.') || e.startsWith('-') || name.at(-e.length - 1) === '.')));
  if (ending !== undefined)
    return {
      index,
      unjudged: `${flag} is no flag the reference names, and ${program.name} registers flags ending ${ending} under prefixes the gate does not know: not judged`,
    };
  const near = nearestName(flag, flags.known.keys());
  if (near === undefined)
    return { index, unjudged: `${flag} is no flag the reference names, nor near one: whether a library of ${program.name}'s registers it is not judged` };
  return { index, message: `flag provided but not defined: ${flag}${suggesting(near)}`, exit: 2 };
}

/** An unknown flag where every prefix is listed: under one of them not judged, else not defined (exit 2). */
function unlistedFlag(flag: string, index: number, flags: RegisteredFlags & { prefixes: readonly string[] }, program: FlagProgram): RegisteredFlagProblem {
  const prefix = flags.prefixes.find((p) => flag.startsWith(`-${p}`));
  if (prefix !== undefined)
    return {
      index,
      unjudged: `${flag} is no flag the reference names, and ${program.name}'s ${prefix.slice(0, -1)} module registers flags under ${prefix} that the gate does not list: not judged`,
    };
  const near = nearestName(flag, [...flags.known.keys(), ...flags.prefixes.map((p) => `-${p}${flag.slice(1).split('.').slice(1).join('.')}`)]);
  return { index, message: `flag provided but not defined: ${flag}${suggesting(near)}`, exit: 2 };
}

/** Each flag a command line sets, with its last value and the word that gave it. */
export type RegisteredFlagValues = ReadonlyMap<string, { value: string; index: number }>;

/** The flags the words set, as Go's flag package parses them, or the word that stops the parse. */
function parseFlags(
  words: readonly string[],
  o: { flags: RegisteredFlags; program: FlagProgram },
  last: Map<string, { value: string; index: number }>,
): RegisteredFlagProblem | undefined {
  const { flags, program } = o;
  for (let i = 0; i < words.length; i++) {
    const read = goFlagWord(words[i]!);
    if ('end' in read) break;
    if ('bad' in read) return { index: i, message: read.bad, exit: 2 };
    const { flag, bare, inline } = read;
    const type = flags.known.get(flag);
    if (type === undefined) {
      if (bare === 'h' || bare === 'help') return { index: i, message: `${words[i]} prints ${program.name}'s usage`, exit: program.helpExit };
      return unknownFlag(flag, i, flags, program);
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
    const refused = valueRefusal(type, value, program);
    if (refused) return { index: at, message: `invalid value ${JSON.stringify(value)} for flag ${flag}: ${refused}`, exit: 2 };
    last.set(flag, { value, index: at });
  }
  return undefined;
}

/**
 * What the program's arguments do: the first word that stops it before it serves (or that the gate cannot judge),
 * and the last value of each flag they set (of the words before that one, where one stops the parse).
 */
export function readRegisteredFlags(
  words: readonly string[],
  flags: RegisteredFlags,
  program: FlagProgram,
): { problem: RegisteredFlagProblem | undefined; values: RegisteredFlagValues } {
  const last = new Map<string, { value: string; index: number }>();
  for (const [pattern, says] of program.early) {
    const index = words.findIndex((w) => pattern.test(w));
    if (index !== -1) return { problem: { index, message: `${words[index]} ${says}`, exit: 0 }, values: last };
  }
  const stopped = parseFlags(words, { flags, program }, last);
  if (stopped) return { problem: stopped, values: last };
  for (const [flag, does] of program.stops) {
    const set = last.get(flag);
    if (set && goParseBool(set.value) === true)
      return { problem: { index: set.index, message: `${flag} makes ${program.name} ${does}, so it never serves`, exit: 0 }, values: last };
  }
  return { problem: undefined, values: last };
}
