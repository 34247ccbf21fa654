/**
 * What Alloy v1.18.1's standard library gives an expression (syntax/internal/stdlib/stdlib.go and constants.go), as
 * evaluate.ts works it out: a function's value where its arguments are known and the gate computes it as Go does
 * (strings' case and trimming, replacing, joining and splitting; coalesce; concat), else the type it returns; a value
 * read on the host Alloy runs on (sys.env, the constants) by its type, a string. A function the gate does not know the
 * result of (from_json, from_yaml, json_path), or arguments of a type it does not read, leave the value unread.
 */
import type { AlloyValue } from './parser.ts';
import { fromValue, plainValue, readFrom, vmType, type At, type Evaluated } from './evaluated.ts';

const typed = (type: string, from: string, at: At): Evaluated => ({ kind: 'typed', ...at, type, from });
const unread = (why: string, at: At): Evaluated => ({ kind: 'unread', ...at, why });

/** The host's values (constants.go): read where Alloy runs, so known by their type alone. */
const CONSTANTS = ['hostname', 'os', 'arch', 'version'];

/** A member of the standard library read as a value: a constant (a string read on the host), a function, or unread. */
export function stdlibMember(names: readonly string[], at: At): Evaluated {
  const full = names.join('.');
  if (names[0] === 'constants' && names.length === 2 && CONSTANTS.includes(names[1]!)) return typed('string', `${full}, read on the host Alloy runs on`, at);
  if (full in FUNCTIONS) return typed('function', full, at);
  return unread(`${full}, which the gate does not work out`, at);
}

/** Each argument's text where every one is a known string, else undefined. */
const knownStrings = (args: readonly Evaluated[]): string[] | undefined => {
  const values = args.map(plainValue);
  return values.every((v) => typeof v === 'string') ? (values as string[]) : undefined;
};

/** A function of strings to a string or a list of strings: computed where its arguments are known, else its type. */
const ofStrings =
  (arity: number, compute: (s: string[]) => AlloyValue, returns = 'string') =>
  (args: readonly Evaluated[], at: At, name: string): Evaluated => {
    if (args.length !== arity || args.some((a) => vmType(a) !== 'string')) return unread(`${name} with arguments the gate does not read`, at);
    const known = knownStrings(args);
    if (known) return fromValue(compute(known), at);
    return typed(returns, readFrom(args, name), at);
  };

/** Go's strings.Trim: the characters of the cutset cut from both ends. */
const trimSet = (s: string, cutset: string): string => {
  const chars = Array.from(s);
  while (chars.length && cutset.includes(chars[0]!)) chars.shift();
  while (chars.length && cutset.includes(chars.at(-1)!)) chars.pop();
  return chars.join('');
};

/** strings.Split: an empty separator splits after each character. */
const split = ([s, sep]: string[]): string[] => (sep === '' ? Array.from(s!) : s!.split(sep!));

/** sys.env: a string read from Alloy's environment when it runs. */
const env = (args: readonly Evaluated[], at: At): Evaluated => {
  const name = plainValue(args[0] ?? { kind: 'unread', line: 0, text: '', why: '' });
  if (args.length !== 1 || typeof name !== 'string') return unread('sys.env of a name the gate does not read', at);
  return typed('string', `sys.env(${JSON.stringify(name)}), read from Alloy's environment`, { ...at, text: `sys.env(${JSON.stringify(name)})` });
};

/** Whether a known value is its type's zero value or empty (coalesce skips it). */
const isEmpty = (v: AlloyValue): boolean =>
  v === null || v === '' || v === 0 || v === false || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);

/**
 * coalesce: the first argument that is neither null, zero nor empty, else the last. With values read at run time,
 * its type where every argument it may return has one type.
 */
function coalesce(args: readonly Evaluated[], at: At): Evaluated {
  if (args.length === 0) return { kind: 'known', ...at, value: null };
  const candidates: Evaluated[] = [];
  let decided = false;
  for (const a of args) {
    const v = plainValue(a);
    if (v !== undefined && isEmpty(v)) continue;
    candidates.push(a);
    if (v !== undefined) {
      decided = true;
      break;
    }
  }
  if (!decided) candidates.push(args.at(-1)!);
  if (candidates.length === 1) return { ...candidates[0]!, ...at };
  const types = new Set(candidates.map(vmType));
  const [type] = [...types];
  if (types.size !== 1 || type === undefined || type === 'array' || type === 'object' || type === 'capsule')
    return unread('coalesce of values of more than one type', at);
  return typed(type, readFrom(candidates, 'coalesce(…)').replaceAll(' and ', ' or '), at);
}

/** concat: the lists joined, where each is known; else a list of values the gate does not know. */
function concat(args: readonly Evaluated[], at: At, name: string): Evaluated {
  if (args.some((a) => vmType(a) !== 'array')) return unread(`${name} of a value that is no list`, at);
  const lists = args.map(plainValue);
  if (lists.every((l) => Array.isArray(l))) return fromValue((lists as AlloyValue[][]).flat(), at);
  return typed('list(any)', name, at);
}

type Fn = (args: readonly Evaluated[], at: At, name: string) => Evaluated;
const returns =
  (type: string): Fn =>
  (_args, at, name) =>
    typed(type, `${name}(…)`, at);

const STRING_FUNCTIONS: Record<string, Fn> = {
  to_lower: ofStrings(1, ([s]) => s!.toLowerCase()),
  to_upper: ofStrings(1, ([s]) => s!.toUpperCase()),
  trim_space: ofStrings(1, ([s]) => s!.trim()),
  trim: ofStrings(2, ([s, cut]) => trimSet(s!, cut!)),
  trim_prefix: ofStrings(2, ([s, p]) => (s!.startsWith(p!) ? s!.slice(p!.length) : s!)),
  trim_suffix: ofStrings(2, ([s, p]) => (s!.endsWith(p!) && p !== '' ? s!.slice(0, -p!.length) : s!)),
  replace: ofStrings(3, ([s, old, to]) => s!.split(old!).join(to!)),
  split: ofStrings(2, split, 'list(string)'),
  join: (args, at, name) => {
    const [list, sep] = args.map(plainValue);
    if (args.length !== 2 || !Array.isArray(list) || !list.every((x) => typeof x === 'string') || typeof sep !== 'string')
      return args.length === 2 && vmType(args[0]!) === 'array' && vmType(args[1]!) === 'string'
        ? typed('string', `${name}(…)`, at)
        : unread(`${name} of values the gate does not read`, at);
    return fromValue(list.join(sep), at);
  },
  format: returns('string'),
};

/** The functions the gate knows, by their full name (a deprecated name beside its namespaced one). */
const FUNCTIONS: Record<string, Fn> = {
  ...Object.fromEntries(
    Object.entries(STRING_FUNCTIONS).flatMap(([n, f]) => [
      [`string.${n}`, f],
      [n, f],
    ]),
  ),
  'sys.env': env,
  env,
  coalesce,
  concat,
  'array.concat': concat,
  'convert.nonsensitive': returns('string'),
  nonsensitive: returns('string'),
  'encoding.to_json': returns('string'),
  'encoding.to_base64': returns('string'),
  'encoding.to_URLbase64': returns('string'),
  'encoding.url_encode': returns('string'),
  'file.path_join': returns('string'),
};

/** A call of a function of the standard library, by its name's parts. */
export function stdlibCall(names: readonly string[], args: readonly Evaluated[], at: At): Evaluated {
  const name = names.join('.');
  const fn = FUNCTIONS[name];
  return fn ? fn(args, at, name) : unread(`${name}(…), whose value the gate does not work out`, at);
}
