/**
 * How Go's own flag package (flag.Parse on flag.CommandLine, ExitOnError) reads a program's command line, for the flags
 * an image's facts list. Read from its source (flag.go, parseOne):
 *   - a flag is `-name` or `--name`, its value after `=`, or, for a flag that takes one, the next word whatever it is;
 *     a flag that takes none (a Bool) takes a value only after `=`, as strconv.ParseBool reads it (or its own Set,
 *     flag.BoolFunc's);
 *   - the first word that is not a flag (`-` among them) ends the flags, and `--` does too: what follows is left to the
 *     program, which reads it or not;
 *   - a flag given twice keeps the last value.
 * A flag it does not define ("flag provided but not defined"), a missing value, a value the flag's type refuses (its
 * `Set`: a number, a duration, a float, a Kubernetes quantity, component-base's key=bool map), or bad syntax (`---x`,
 * `-=x`) exits 2 before the program runs; `-h` and `-help`, where the program defines neither, print its usage and
 * exit 0. Then what the program does with the flags it read: a flag that makes it print and stop (exit 0, before the
 * rest), the values it checks as it starts (choices, case aside where it lowers them; a least number or duration; a
 * shape; a map's keys, and its locked ones), and flags it refuses together (exit 1); gates it sets with klog.Fatal
 * once those pass (exit 255); a flag that makes it print and stop only after them all; and what a library it starts
 * then refuses (a client's rate, a leader election's timings: `running`). The facts' fields, and
 * whether an entry holds together, are `go-flag-facts.ts`.
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goParseDuration } from '../core/time.ts';
import { goParseBool } from '../core/text.ts';
import { goIntegerText, goParseFloat, goParsesFloat } from '../go/strconv.ts';
import { parseGoQuantity } from '../go/quantity.ts';
import { RANGES, type GoFlagConflict, type GoFlagOptions, type GoFlagValue } from './go-flag-facts.ts';

/** A refusal, `started` where the program's own code refuses once it runs (a panic's exit 2 is not its parser's). */
export type GoFlagRefusal = { index: number; message: string; exit: 0 | 1 | 2 | 255; started?: true };

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
  const duration = type?.duration ? goParseDuration(value) : undefined;
  const number = duration?.ok ? duration.nanoseconds : goIntegerText(value);
  const chosen = type?.caseless ? value.toLowerCase() : value;
  if (type?.choices && !type.choices.includes(chosen))
    return { message: `${JSON.stringify(value)} for ${flag}, which takes one of ${type.choices.map((c) => c || '""').join(', ')}`, exit: 1 };
  if (type?.min !== undefined && !(number !== undefined && number >= BigInt(type.min)))
    return { message: `${value} for ${flag}, which must be ${type.min}${duration ? 'ns' : ''} or more`, exit: 1 };
  if (type?.shape && !new RegExp(type.shape.pattern).test(value)) return { message: `${JSON.stringify(value)} for ${flag}: ${type.shape.says}`, exit: 1 };
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
  const all: Word[] = [];
  const on = new Map<string, { value: boolean; index: number }>();
  for (let i = 0; i < words.length; i++) {
    const read = goFlagWord(words[i]!);
    if ('end' in read) break;
    if ('bad' in read) return { index: i, message: read.bad, exit: 2 };
    const { flag, bare, inline } = read;
    if (options.flags.includes(flag)) {
      const value = inline === undefined ? true : boolValue(inline, options.values?.[flag]?.pattern);
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
  // What the program does once its flags are parsed: a flag that makes it print and stop, then its own checks, its gates
  // where it sets them last, and a flag that makes it print and stop only once they all pass.
  const conflicts = options.conflicts ?? [];
  const read = { on, last, all };
  const stops = (late: boolean) =>
    conflictRefusal(
      conflicts.filter((c) => c.exit === 0 && (c.late === true) === late),
      read,
    );
  const early = stops(false);
  if (early) return early;
  for (const [flag, { value, index }] of last) {
    const refused = valueRefusal(flag, value, options.values?.[flag]);
    if (refused) return { index, ...refused };
  }
  const values = options.values ?? {};
  return (
    gateRefusal(all, values, false) ??
    conflictRefusal(
      conflicts.filter((c) => c.exit === undefined && !c.running),
      read,
    ) ??
    gateRefusal(all, values, true) ??
    stops(true) ??
    conflictRefusal(
      conflicts.filter((c) => c.running),
      read,
    )
  );
}

/** A Bool's value after `=`: strconv.ParseBool's, or, where its own Set reads `pattern`, on unless it reads false. */
function boolValue(inline: string, pattern: string | undefined): boolean | undefined {
  if (pattern === undefined) return goParseBool(inline);
  return new RegExp(pattern).test(inline) ? goParseBool(inline) !== false : undefined;
}

/**
 * A key of a key=bool map (every time its flag is given) that is none of the keys the program knows, or a locked key
 * its last setting sets other than its value: it exits as it starts (1, or 255 where it sets them with klog.Fatal).
 */
function gateRefusal(all: readonly Word[], values: Record<string, GoFlagValue>, fatal: boolean): GoFlagRefusal | undefined {
  const exit = fatal ? 255 : 1;
  const set = new Map<string, { on: boolean; index: number; flag: string }>();
  for (const { flag, value, index } of all) {
    const map = values[flag]?.boolMap;
    if (!map || (map.fatal === true) !== fatal) continue;
    for (const item of value.split(',').filter((s) => s.includes('='))) {
      const key = item.slice(0, item.indexOf('=')).trim();
      if (!map.keys.includes(key))
        return { index, message: `${JSON.stringify(key)} in ${flag} is none the program knows${suggesting(nearestName(key, map.keys))}`, exit };
      if (map.locked && key in map.locked) set.set(key, { on: goParseBool(item.slice(item.indexOf('=') + 1).trim()) === true, index, flag });
    }
  }
  for (const [key, { on, index, flag }] of set) {
    const locked = values[flag]?.boolMap?.locked?.[key];
    if (locked !== undefined && on !== locked)
      return {
        index,
        message: `${flag} sets ${JSON.stringify(key)} to ${on}, which the program holds at ${locked} (locked to its default)`,
        exit,
      };
  }
  return undefined;
}

/** A flag's value and the word it is at (-1: its default, at no word). */
type Word = { flag: string; value: string; index: number };

/** The flags as parsed: each Bool's last value, each other flag's last value, and every value given, in order. */
type Parsed = {
  on: ReadonlyMap<string, { value: boolean; index: number }>;
  last: ReadonlyMap<string, { value: string; index: number }>;
  all: readonly Word[];
};

/** The word of each `valued` flag whose value its pattern finds, or undefined where one has none. */
function valuedWords(valued: GoFlagConflict['valued'], { last, all }: Parsed): Word[] | undefined {
  const found = (valued ?? []).map(({ flag, pattern, any, default: byDefault }) => {
    const finds = (v: { value: string }) => new RegExp(pattern).test(v.value);
    if (!any) {
      const set = last.get(flag) ?? (byDefault === undefined ? undefined : { value: byDefault, index: -1 });
      return set && finds(set) ? { flag, ...set } : undefined;
    }
    return all.filter((v) => v.flag === flag && finds(v)).at(-1);
  });
  return found.every((x) => x !== undefined) ? found : undefined;
}

/** A flag's last value, or its default where it is not given (at no word: index -1). */
function valueOf(flag: string, byDefault: string, last: Parsed['last']): Word {
  const set = last.get(flag);
  return set ? { flag, ...set } : { flag, value: byDefault, index: -1 };
}

/** Go's int64(f) on amd64: toward zero, and the least int64 for what it cannot hold. */
const goInt64 = (f: number): bigint => (Number.isFinite(f) && Math.abs(f) < 2 ** 63 ? BigInt(Math.trunc(f)) : -(2n ** 63n));

/** A Go duration's nanoseconds (0 for text the flag's type has already refused). */
const nanoseconds = (text: string): bigint => {
  const parsed = goParseDuration(text);
  return parsed.ok ? parsed.nanoseconds : 0n;
};

/** The words of an `above` and a `notAbove` where each holds, or undefined where one does not. */
function comparedWords({ above, notAbove }: GoFlagConflict, { last }: Parsed): Word[] | undefined {
  const words: Word[] = [];
  if (above) {
    const word = valueOf(above.flag, above.default, last);
    const read = goParseFloat(word.value) ?? NaN;
    if (!((above.float32 ? Math.fround(read) : read) > above.than)) return undefined;
    words.push(word);
  }
  if (notAbove) {
    const { flag, default: byDefault, than } = notAbove;
    const word = valueOf(flag, byDefault, last);
    const other = than.flag ? valueOf(than.flag, than.default, last) : undefined;
    const bound = nanoseconds(other?.value ?? than.default);
    if (nanoseconds(word.value) > (than.times === undefined ? bound : goInt64(than.times * Number(bound)))) return undefined;
    words.push(word, ...(other ? [other] : []));
  }
  return words;
}

/** The first conflict the parsed flags make, at the last of its flags given. */
function conflictRefusal(conflicts: readonly GoFlagConflict[], read: Parsed): GoFlagRefusal | undefined {
  const { on, last } = read;
  for (const conflict of conflicts) {
    const { given, below, valued, says, exit } = conflict;
    if (!given.every((g) => on.get(g)?.value)) continue;
    const found = valuedWords(valued, read);
    const compared = found && comparedWords(conflict, read);
    if (!found || !compared) continue;
    const words = [...found, ...compared];
    const set = below && last.get(below.flag);
    const number = set ? goIntegerText(set.value) : below && BigInt(below.default);
    if (below && number !== undefined && number >= BigInt(below.min)) continue;
    const index = Math.max(...given.map((g) => on.get(g)!.index), ...words.map((w) => w.index), set?.index ?? -1);
    const named = [...given, ...words.map((w) => (w.index === -1 ? `${w.flag} ${w.value || '""'} (its default)` : `${w.flag}=${JSON.stringify(w.value)}`))];
    return {
      index,
      message: `${[...named, ...(below ? [`${below.flag} ${set?.value ?? `${below.default} (its default)`}`] : [])].join(' with ')}: ${says}`,
      exit: exit ?? 1,
      ...(conflict.running ? { started: true as const } : {}),
    };
  }
  return undefined;
}
