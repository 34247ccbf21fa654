/**
 * Whether an image's facts entry for pflag under cobra (model/command-lines/pflag.ts) holds together: its values,
 * shorthands, checks and traversal name its own flags, and each type is one the reader reads.
 */
import { isRegExpSource, isTextList } from '../core/text.ts';
import { isTypeValue, type GoFlagValue } from './go-flag-facts.ts';

/** What a flag's value must be: what its type reads or takes, and what the program checks of it as it starts. */
export interface PflagValue extends Pick<GoFlagValue, 'pattern' | 'fits' | 'duration' | 'choices'> {
  /**
   * Its comma-separated items (trimmed, empty ones dropped; a StringSlice's, its CSV fields as written), gathered over
   * every time it is given, each one of these.
   */
  each?: string[];
  /** The name before each `=[` of its last value (a map of lists, `pods=[app],nodes=[*]`), each one of these. */
  keys?: string[];
  /** A switch that, given true, makes the program read neither `each` nor `keys` of this value. */
  skippedBy?: string;
  /** A number as strconv.ParseFloat(·, 64) reads it. */
  float?: true;
  /** A map of lists, as kube-state-metrics' LabelsAllowList.Set reads it (map-of-lists.ts). */
  mapOfLists?: true;
  /** What the program checks of its last value given, as it starts (falcoctl's `--platform` OS/Arch). */
  shape?: { pattern: string; says: string };
  /**
   * A StringSlice whose every item (over every time it is given) the program checks as it starts: a `host:port` Go's
   * net.SplitHostPort splits, or, `https`, a URL with that scheme and a host (cert-manager's DNS-over-HTTPS servers).
   */
  hostPorts?: { https?: true; says: string };
  /** A StringSlice: its value read as one record of comma-separated fields, as Go's encoding/csv reads it (readAsCSV). */
  slice?: true;
  /**
   * Feature gates, `name=bool` pairs component-base's MapStringBool gathers over every time the flag is given, whose
   * names the program's gate set (featuregate.SetFromMap) checks as it starts: each one of `known`; one of `others`
   * (another build of the same project registers it, and which of them this binary links is not read) not judged.
   */
  gates?: { known: string[]; others?: string[] };
  /**
   * What the program checks of a whole number or a duration (in nanoseconds) as it starts: its last value given from
   * `min` to `max` (a port; a leader election's lease above 0), where named; checked only `while` a switch holds (its
   * last value given, else its default).
   */
  within?: { min?: number; max?: number; says: string; while?: { flag: string; default: boolean } };
}

/** A root command with cobra's TraverseChildren (falcoctl): the words before each command of the path are read as flags. */
export interface PflagTraverse {
  /** The root's persistent flags: the only ones a command of the path before the last reads. */
  inherited: string[];
  /** Each command's other commands along the path, the root's first (cobra's help and completion among them). */
  others: string[][];
}

/** A command's flags as its facts list them. */
export interface PflagOptions {
  /** The binary, as the command line (or the image's ENTRYPOINT) names it: a path ending in it. */
  program: string;
  parser: 'pflag';
  /** The cobra subcommand these flags are of, its words (`artifact install`); a command line that runs another is not judged. */
  subcommand?: string;
  /** How the root finds the subcommand where it traverses its children, reading flags on the way (cobra's Traverse). */
  traverse?: PflagTraverse;
  /** The root command's other commands (cobra's own help and __complete among them): a command line whose first word that is no flag names one runs it, and is not judged. */
  commands?: string[];
  /**
   * How many positional arguments the command takes (cobra.ExactArgs), or `none` (cobra.NoArgs: any is an unknown
   * command), or `legacy` (a root with commands and no Args: cobra's Find refuses the first word that is no flag and
   * names no command, before it reads a flag, --help too).
   */
  positional?: number | 'none' | 'legacy';
  /** Flags that take no value (Bool): `--x`, or `--x=false`. */
  flags: string[];
  /** Flags that take one value. */
  withValue: string[];
  /** Flags that take a value only after `=`, else this one (pflag's NoOptDefVal: startupapicheck's `-v` is `-v=2`). */
  optional?: Record<string, string>;
  /** One-letter shorthands of long flags (`-v` of `--v`, as pflag gives a Go flag of one letter); `-h` is `--help`'s. */
  shorthands?: Record<string, string>;
  /** The values a flag's type reads (a pattern, the integer type it fits, a duration) or takes (choices), and what the program checks of them as it starts. */
  values?: Record<string, PflagValue>;
  /** What the command checks as it starts: a flag given true needs another's value (its last, else its default) among `is`. */
  needs?: { given: string; flag: string; is: string[]; default: string }[];
  /**
   * Lists the program refuses together as it starts: each flag given an item; or, `changed`, each given at all (cobra's
   * MarkFlagsMutuallyExclusive), where a flag in `configured` left out may be set by the program's configuration file as
   * it starts (falcoctl's PreRunE): not judged.
   */
  exclusive?: { flags: string[]; says: string; changed?: true; configured?: string[] }[];
  /**
   * Groups of flags the program refuses set together as it starts: a group is set where any of its flags is (a
   * StringSlice holding an item, any other flag's last value not empty), and every group set is refused.
   */
  apart?: { groups: string[][]; says: string }[];
  /** A number the program needs not below another's as it starts (their last values, else their defaults), compared as float32. */
  notBelow?: { flag: string; other: string; defaults: [string, string]; says: string }[];
  /** Groups the program needs whole as it starts: where any flag of one is set (as `apart` reads it), every one must be. */
  whole?: { flags: string[]; says: string }[];
  /** Flags naming a file whose settings override the command line's: what the program checks as it starts is then not judged. */
  overriddenBy?: string[];
}

const LONG = /^--[A-Za-z0-9][\w.-]*$/;
const isFlagList = (v: unknown) => Array.isArray(v) && v.every((x) => typeof x === 'string' && LONG.test(x));
const isValue = (v: unknown, bools: string[]): boolean => {
  const { choices, each, keys, skippedBy, float, mapOfLists, shape, hostPorts, slice, within, gates, ...type } = (v ?? {}) as Record<string, unknown>;
  if (gates !== undefined && !isGates(gates)) return false;
  if (hostPorts !== undefined && !(isHostPorts(hostPorts) && slice === true)) return false;
  // A range is of a whole number (its type's pattern reads one), a duration or a float; `while` names a switch.
  if (within !== undefined && !(isWithin(within, bools) && (typeof type.pattern === 'string' || type.duration === true || float === true))) return false;
  if (slice !== undefined && slice !== true) return false;
  if (![choices, each, keys].every((x) => x === undefined || isTextList(x)) || ![float, mapOfLists].every((x) => x === undefined || x === true)) return false;
  if (skippedBy !== undefined && !(bools.includes(skippedBy as string) && (each !== undefined || keys !== undefined))) return false;
  if (keys !== undefined && mapOfLists !== true) return false;
  if (shape !== undefined && !isShape(shape)) return false;
  if (Object.keys(type).length === 0) return [choices, each, keys, float, mapOfLists, shape, hostPorts, slice, gates].some((x) => x !== undefined);
  return type.pattern === undefined ? Object.keys(type).length === 1 && type.duration === true : isTypeValue(type);
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isHostPorts = (v: unknown) => {
  const { https, says, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && (https === undefined || https === true) && typeof says === 'string';
};
const isWithin = (v: unknown, bools: string[]) => {
  const { min, max, says, while: during, ...rest } = (v ?? {}) as Record<string, unknown>;
  const { flag, default: fallback, ...more } = (during ?? {}) as Record<string, unknown>;
  const isSwitch = during === undefined || (Object.keys(more).length === 0 && bools.includes(flag as string) && typeof fallback === 'boolean');
  const bounds = [min, max].filter((x) => x !== undefined);
  const ordered = bounds.length < 2 || (min as number) <= (max as number);
  return Object.keys(rest).length === 0 && bounds.length > 0 && bounds.every(Number.isSafeInteger) && ordered && typeof says === 'string' && isSwitch;
};
const isGates = (v: unknown) => {
  const { known, others, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isTextList(known) && (known as string[]).length > 0 && (others === undefined || isTextList(others));
};
const isShape = (v: unknown) => {
  const { pattern, says, ...rest } = (v ?? {}) as Record<string, unknown>;
  return Object.keys(rest).length === 0 && isRegExpSource(pattern) && typeof says === 'string';
};
const isTraverse = (v: unknown, all: string[], path: string[]) => {
  const { inherited, others, ...rest } = (v ?? {}) as Record<string, unknown>;
  return (
    Object.keys(rest).length === 0 &&
    isTextList(inherited) &&
    (inherited as string[]).every((f) => all.includes(f)) &&
    Array.isArray(others) &&
    others.length === path.length &&
    others.every(isTextList)
  );
};

/** Whether a facts entry is a PflagOptions whose values, shorthands and checks name its own flags. */
export function isPflagOptions(v: unknown): boolean {
  const o = (v ?? {}) as Record<string, unknown>;
  if (typeof o.program !== 'string' || o.program === '' || o.parser !== 'pflag' || !isFlagList(o.flags) || !isFlagList(o.withValue)) return false;
  const flags = o.flags as string[];
  const withValue = o.withValue as string[];
  const all = [...flags, ...withValue, '--help'];
  if (o.subcommand !== undefined && (typeof o.subcommand !== 'string' || !/^[a-z][\w-]*( [a-z][\w-]*)*$/.test(o.subcommand))) return false;
  if (o.traverse !== undefined && !(o.subcommand !== undefined && isTraverse(o.traverse, all, (o.subcommand as string).split(' ')))) return false;
  if (o.commands !== undefined && !(isTextList(o.commands) && o.subcommand === undefined)) return false;
  if (
    o.positional !== undefined &&
    !((Number.isInteger(o.positional) && (o.positional as number) >= 0) || o.positional === 'none' || o.positional === 'legacy')
  )
    return false;
  if (
    o.shorthands !== undefined &&
    !(isRecord(o.shorthands) && Object.entries(o.shorthands).every(([k, f]) => /^-[A-Za-z0-9]$/.test(k) && all.includes(f as string)))
  )
    return false;
  if (
    o.optional !== undefined &&
    !(isRecord(o.optional) && Object.entries(o.optional).every(([k, value]) => withValue.includes(k) && typeof value === 'string' && value !== ''))
  )
    return false;
  const isNeed = (n: unknown) => {
    const { given, flag, is, default: fallback, ...rest } = (n ?? {}) as Record<string, unknown>;
    return (
      Object.keys(rest).length === 0 && flags.includes(given as string) && withValue.includes(flag as string) && isTextList(is) && typeof fallback === 'string'
    );
  };
  if (o.needs !== undefined && !(Array.isArray(o.needs) && o.needs.every(isNeed))) return false;
  const isExclusive = (x: unknown) => {
    const { flags: together, says, changed, configured, ...rest } = (x ?? {}) as Record<string, unknown>;
    if (!(isTextList(together) && (together as string[]).every((f) => withValue.includes(f)))) return false;
    const isConfigured =
      configured === undefined || (changed === true && isTextList(configured) && (configured as string[]).every((f) => (together as string[]).includes(f)));
    return Object.keys(rest).length === 0 && typeof says === 'string' && (changed === undefined || changed === true) && isConfigured;
  };
  if (o.exclusive !== undefined && !(Array.isArray(o.exclusive) && o.exclusive.every(isExclusive))) return false;
  const isFlagsOf = (x: unknown) => isTextList(x) && (x as string[]).length > 0 && (x as string[]).every((f) => withValue.includes(f));
  const isApart = (x: unknown) => {
    const { groups, says, ...rest } = (x ?? {}) as Record<string, unknown>;
    return Object.keys(rest).length === 0 && Array.isArray(groups) && groups.length >= 2 && groups.every(isFlagsOf) && typeof says === 'string';
  };
  const isWhole = (x: unknown) => {
    const { flags: group, says, ...rest } = (x ?? {}) as Record<string, unknown>;
    return Object.keys(rest).length === 0 && isFlagsOf(group) && (group as string[]).length >= 2 && typeof says === 'string';
  };
  if (o.apart !== undefined && !(Array.isArray(o.apart) && o.apart.every(isApart))) return false;
  const isNotBelow = (x: unknown) => {
    const { flag, other, defaults, says, ...rest } = (x ?? {}) as Record<string, unknown>;
    const pair = isTextList(defaults) && (defaults as string[]).length === 2;
    return Object.keys(rest).length === 0 && withValue.includes(flag as string) && withValue.includes(other as string) && pair && typeof says === 'string';
  };
  if (o.notBelow !== undefined && !(Array.isArray(o.notBelow) && o.notBelow.every(isNotBelow))) return false;
  if (o.whole !== undefined && !(Array.isArray(o.whole) && o.whole.every(isWhole))) return false;
  if (o.overriddenBy !== undefined && !(isTextList(o.overriddenBy) && (o.overriddenBy as string[]).every((f) => withValue.includes(f)))) return false;
  return o.values === undefined || (isRecord(o.values) && Object.entries(o.values).every(([k, x]) => withValue.includes(k) && isValue(x, flags)));
}
