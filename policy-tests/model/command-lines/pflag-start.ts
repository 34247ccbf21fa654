/**
 * What a cobra command checks of its flags as it starts (its PreRunE, once pflag has set every value), as an image's
 * facts list it (model/command-lines/pflag-facts.ts), in the facts' order: each list's items one the program knows,
 * each map's names, a last value's shape, a whole number's range, each address of a list; then flags it refuses
 * together, and groups it needs whole (cert-manager's TLS settings: files or a dynamic CA, never both, each complete).
 */
import { nearestName, suggesting } from '../core/did-you-mean.ts';
import { goCommaItems, goParseBool } from '../core/text.ts';
import { goIntegerText, goParseFloat } from '../go/strconv.ts';
import { splitHostPort } from '../go/net.ts';
import { parseRequestURI } from '../go/url.ts';
import { goCsvRecord } from './csv-record.ts';
import { readMapOfLists } from './map-of-lists.ts';
import type { PflagOptions, PflagValue } from './pflag-facts.ts';
import { goParseDuration } from '../core/time.ts';

/** One value pflag set: the flag, its value, and the word that gave it. */
export type FlagSet = { flag: string; value: string; index: number };
/** Why the program stops as it starts, at the word that decides it; or a word not judged. */
export type StartRefusal = { index: number; message: string } | { index: number; unjudged: string };

/** The last value a flag was given, with its word; undefined where it was not given. */
export const lastSet = (sets: readonly FlagSet[], flag: string): FlagSet | undefined => sets.findLast((s) => s.flag === flag);

/** A StringSlice value's items, as pflag's readAsCSV reads them (a value it refuses was refused as it was set). */
const sliceItems = (value: string): string[] => {
  const record = value === '' ? undefined : goCsvRecord(value);
  return record && 'fields' in record ? record.fields : [];
};

/** Whether an item is a `host:port` net.SplitHostPort splits, or, where https is taken, an https URL with a host (url.ParseRequestURI). */
function isAddress(item: string, o: { https?: true }): boolean {
  if (o.https && item.startsWith('https://')) {
    try {
      const u = parseRequestURI(item);
      return u.scheme === 'https' && u.host !== '';
    } catch {
      return false;
    }
  }
  return !('error' in splitHostPort(item));
}

/** The names of a map of lists its last value gives (read once every value has been taken). */
const mapKeys = (value: string) => {
  const read = readMapOfLists(value);
  return 'map' in read ? [...read.map.keys()] : [];
};

/**
 * The word that sets a flag, as the program asks whether it is set: a StringSlice where any value given holds an item
 * (a later value adds to the first), any other flag where its last value is not empty; undefined where it is not.
 */
function setBy(flag: string, sets: readonly FlagSet[], options: PflagOptions): FlagSet | undefined {
  const given = sets.filter((s) => s.flag === flag);
  if (options.values?.[flag]?.slice) return given.findLast((s) => sliceItems(s.value).length > 0);
  const last = given.at(-1);
  return last && last.value !== '' ? last : undefined;
}

/** A whole number or a float as strconv reads it, as a number. */
const numberOf = (text: string): number | undefined => {
  const whole = goIntegerText(text);
  return whole === undefined ? goParseFloat(text) : Number(whole);
};

/** The names a key=bool map's values give, as component-base's MapStringBool.Set reads them (trimmed; empty pieces skipped). */
const gateNames = (value: string): string[] =>
  value
    .split(',')
    .filter((piece) => piece !== '')
    .map((piece) => piece.split('=')[0]!.trim());

/** Each feature gate a map flag gives, with the word that gave it. */
const gatesGiven = (sets: readonly FlagSet[], flag: string) =>
  sets.filter((s) => s.flag === flag).flatMap((set) => gateNames(set.value).map((name) => ({ name, set })));

/** A feature gate the program's gate set does not have (featuregate's "unrecognized feature gate"). */
function gateRefusal(sets: readonly FlagSet[], flag: string, gates: { known: string[]; others?: string[] }): StartRefusal | undefined {
  const unknown = gatesGiven(sets, flag).find(({ name }) => !gates.known.includes(name) && !gates.others?.includes(name));
  return unknown && { index: unknown.set.index, message: `unrecognized feature gate: ${unknown.name}${suggesting(nearestName(unknown.name, gates.known))}` };
}

/** A feature gate another build of the program registers, which this one may not: not judged, where nothing else is refused. */
function otherBuildGate(sets: readonly FlagSet[], options: PflagOptions): StartRefusal | undefined {
  for (const [flag, type] of Object.entries(options.values ?? {})) {
    const other = type.gates && gatesGiven(sets, flag).find(({ name }) => !type.gates!.known.includes(name));
    if (other)
      return { index: other.set.index, unjudged: `${other.name} is a feature gate another build of it has: whether this one registers it is not judged` };
  }
  return undefined;
}

/** Whether a value is within its range as the program reads it (a whole number, or a duration's nanoseconds), or is not checked. */
function isWithin(value: string, type: PflagValue, sets: readonly FlagSet[]): boolean {
  const { min, max, while: during } = type.within!;
  if (during && (goParseBool(lastSet(sets, during.flag)?.value) ?? during.default) !== true) return true;
  const duration = type.duration ? goParseDuration(value) : undefined;
  const number = type.float ? goParseFloat(value) : duration ? (duration.ok ? duration.nanoseconds : undefined) : goIntegerText(value);
  // Refused below min or above max as Go's < and > refuse: a NaN is neither.
  return number === undefined || !((min !== undefined && number < min) || (max !== undefined && number > max));
}

/** What the program checks of each flag's values, in the facts' order. */
function valueRefusal(sets: readonly FlagSet[], options: PflagOptions): StartRefusal | undefined {
  const isTrue = (flag: string) => goParseBool(lastSet(sets, flag)?.value) === true;
  for (const [flag, type] of Object.entries(options.values ?? {})) {
    if (type.skippedBy !== undefined && isTrue(type.skippedBy)) continue;
    const given = sets.filter((s) => s.flag === flag);
    for (const set of type.each ? given : []) {
      // A StringSlice's items are its CSV record's fields as written (not trimmed); another list's, trimmed pieces.
      const item = (type.slice ? sliceItems(set.value) : goCommaItems(set.value)).find((x) => !type.each!.includes(x));
      if (item !== undefined)
        return { index: set.index, message: `${JSON.stringify(item)} in ${flag} is none the program knows${suggesting(nearestName(item, type.each!))}` };
    }
    const lastSet = given.at(-1);
    const key = type.keys && lastSet ? mapKeys(lastSet.value).find((x) => !type.keys!.includes(x)) : undefined;
    if (key !== undefined)
      return { index: lastSet!.index, message: `${JSON.stringify(key)} in ${flag} is none the program knows${suggesting(nearestName(key, type.keys!))}` };
    if (type.shape && lastSet && !new RegExp(type.shape.pattern).test(lastSet.value))
      return { index: lastSet.index, message: `${flag} ${JSON.stringify(lastSet.value)}: ${type.shape.says}` };
    if (type.within && lastSet && !isWithin(lastSet.value, type, sets))
      return { index: lastSet.index, message: `${flag} ${JSON.stringify(lastSet.value)}: ${type.within.says}` };
    const gate = type.gates && gateRefusal(sets, flag, type.gates);
    if (gate) return gate;
    const address =
      type.hostPorts && given.flatMap((set) => sliceItems(set.value).map((item) => ({ item, set }))).find((x) => !isAddress(x.item, type.hostPorts!));
    if (address) return { index: address.set.index, message: `${JSON.stringify(address.item)} in ${flag}: ${type.hostPorts!.says}` };
  }
  return undefined;
}

/** What the program refuses together: lists given at once (`exclusive`), groups set at once (`apart`), a group set in part (`whole`). */
function togetherRefusal(sets: readonly FlagSet[], options: PflagOptions): StartRefusal | undefined {
  for (const { flags, says, changed, configured } of options.exclusive ?? []) {
    const given = flags.map((flag) => sets.filter((s) => s.flag === flag && (changed || goCommaItems(s.value).length > 0)).at(-1));
    if (given.every((s) => s !== undefined)) return { index: Math.max(...given.map((s) => s!.index)), message: `${flags.join(' and ')} both given: ${says}` };
    const left = flags.filter((_, k) => given[k] === undefined);
    const set = given.find((s) => s !== undefined);
    if (set && left.every((f) => configured?.includes(f)))
      return {
        index: set.index,
        unjudged: `${options.program} refuses it beside ${left.join(' and ')}, which its configuration file may set as it starts: not judged`,
      };
  }
  for (const { groups, says } of options.apart ?? []) {
    // Each group at its earliest word set; the later of those is the word that sets both.
    const set = groups.map((group) =>
      group
        .map((flag) => setBy(flag, sets, options))
        .filter((s) => s !== undefined)
        .reduce<FlagSet | undefined>((a, s) => (a === undefined || s.index < a.index ? s : a), undefined),
    );
    if (set.every((s) => s !== undefined))
      return { index: Math.max(...set.map((s) => s!.index)), message: `${set.map((s) => s!.flag).join(' and ')} both set: ${says}` };
  }
  for (const { flag, other, defaults, says } of options.notBelow ?? []) {
    const [given, than] = [flag, other].map((f) => lastSet(sets, f));
    // Compared as float32 numbers, as cert-manager compares float32(its API burst) with its QPS.
    const [a, b] = [given?.value ?? defaults[0], than?.value ?? defaults[1]].map((text) => Math.fround(numberOf(text) ?? Number.NaN));
    if (a! < b! && (given || than))
      return {
        index: Math.max(given?.index ?? -1, than?.index ?? -1),
        message: `${flag} ${given?.value ?? defaults[0]} below ${other} ${than?.value ?? defaults[1]}: ${says}`,
      };
  }
  for (const { flags, says } of options.whole ?? []) {
    const set = flags.map((flag) => setBy(flag, sets, options));
    const first = set.find((s) => s !== undefined);
    const missing = flags.filter((_, k) => set[k] === undefined);
    // Said at the word that left one empty where one did, else at the first of the group set.
    const emptied = sets.findLast((s) => missing.includes(s.flag));
    if (first && missing.length > 0) return { index: (emptied ?? first).index, message: `${missing.join(' and ')} not set beside ${first.flag}: ${says}` };
  }
  return undefined;
}

/** The first thing the program refuses as it starts, once its flags are read; undefined where it takes them. */
export const startRefusal = (sets: readonly FlagSet[], options: PflagOptions): StartRefusal | undefined =>
  valueRefusal(sets, options) ?? togetherRefusal(sets, options) ?? otherBuildGate(sets, options);
