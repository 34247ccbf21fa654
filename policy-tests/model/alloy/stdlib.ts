/**
 * What Alloy v1.18.1's standard library gives an expression (syntax/internal/stdlib/stdlib.go and constants.go), as
 * evaluate.ts works it out: a function's value where its arguments are known and the gate computes it as Go does
 * (strings' case and trimming, replacing, joining and splitting; coalesce; concat), else the type it returns; a value
 * read on the host Alloy runs on (sys.env, the constants) by its type, a string. A function the gate does not know the
 * result of (from_json, from_yaml, json_path), or arguments of a type it does not read, leave the value unread.
 */
import type { AlloyValue } from './parser.ts';
import { fromValue, hostString, plainValue, readFrom, stringParts, typeError, vmType, type At, type Evaluated, type Host } from './evaluated.ts';
import { format, fromBase64, fromJson, fromYaml, queryEscape, queryUnescape, toBase64, toJson, type Computed } from './stdlib-encoding.ts';

const typed = (type: string, from: string, at: At): Evaluated => ({ kind: 'typed', ...at, type, from });
const unread = (why: string, at: At): Evaluated => ({ kind: 'unread', ...at, why });

/** The host's values (constants.go): read where Alloy runs, so known by their type alone. */
const CONSTANTS = ['hostname', 'os', 'arch', 'version'];

/** A member of the standard library read as a value: a constant (a string read on the host), a function, or unread. */
export function stdlibMember(names: readonly string[], at: At, host?: Host): Evaluated {
  const full = names.join('.');
  if (full === 'constants.hostname' && host?.hostname) return hostString(host.hostname, { ...at, from: `${full}, read on the host Alloy runs on` });
  if (names[0] === 'constants' && names.length === 2 && CONSTANTS.includes(names[1]!)) return typed('string', `${full}, read on the host Alloy runs on`, at);
  if (Object.hasOwn(FUNCTIONS, full)) return typed('function', full, at);
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
const env: Fn = (args, at, _name, host) => {
  const name = plainValue(args[0] ?? { kind: 'unread', line: 0, text: '', why: '' });
  if (args.length !== 1 || typeof name !== 'string') return unread('sys.env of a name the gate does not read', at);
  const place = { ...at, text: `sys.env(${JSON.stringify(name)})` };
  const from = `sys.env(${JSON.stringify(name)}), read from Alloy's environment`;
  const known = host?.env(name);
  return known ? hostString(known, { ...place, from }) : typed('string', from, place);
};

type Fn = (args: readonly Evaluated[], at: At, name: string, host?: Host) => Evaluated;

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
    // A string that holds a value of the host (a node's name, a hostname) is never empty.
    if (v !== undefined || stringParts(a)?.some((p) => typeof p !== 'string')) {
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

/**
 * A function Go computes from its arguments' values: its value where they are known and it computes one (an error
 * as the vm prints it, after the function's name), else the type it returns (`any`: not worked out).
 */
const ofKnown =
  (returns: string, compute: (values: AlloyValue[]) => Computed): Fn =>
  (args, at, name) => {
    const values = args.map(plainValue);
    const result = values.every((v) => v !== undefined) ? compute(values as AlloyValue[]) : undefined;
    if (result && 'error' in result) return { kind: 'failed', ...at, message: `${name} ${result.error}` };
    if (result) return fromValue(result.value, at);
    return returns === 'any' ? unread(`${name}(…), whose value the gate does not work out`, at) : typed(returns, `${name}(…)`, at);
  };
/** A function of one string. */
const ofText = (returns: string, compute: (text: string) => Computed): Fn => ofKnown(returns, ([v]) => (typeof v === 'string' ? compute(v) : undefined));

/** combine_maps: each pair of objects of two lists whose keys named by the conditions are equal, joined (the right's keys over the left's). */
function combineMaps([left, right, on, passthrough]: AlloyValue[]): Computed {
  type Obj = Record<string, AlloyValue>;
  const isObject = (v: AlloyValue): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!Array.isArray(left) || !Array.isArray(right) || !Array.isArray(on) || ![undefined, true, false].includes(passthrough as never)) return undefined;
  if (![...left, ...right].every(isObject)) return undefined;
  if (on.length === 0) return { error: 'combine_maps: merge conditions must not be empty' };
  const joins = (l: Obj, r: Obj) => on.every((k) => typeof k === 'string' && k in l && k in r && JSON.stringify(l[k]) === JSON.stringify(r[k]));
  const out: AlloyValue[] = [];
  for (const l of left as Obj[])
    for (const r of right as Obj[])
      if (joins(l, r)) out.push({ ...l, ...r });
      else if (passthrough === true) out.push(l);
  return { value: out };
}

const STRING_FUNCTIONS: Record<string, Fn> = {
  to_lower: ofStrings(1, ([s]) => s!.toLowerCase()),
  to_upper: ofStrings(1, ([s]) => s!.toUpperCase()),
  trim_space: ofStrings(1, ([s]) => s!.trim()),
  trim: ofStrings(2, ([s, cut]) => trimSet(s!, cut!)),
  trim_prefix: ofStrings(2, ([s, p]) => (s!.startsWith(p!) ? s!.slice(p!.length) : s!)),
  trim_suffix: ofStrings(2, ([s, p]) => (s!.endsWith(p!) && p !== '' ? s!.slice(0, -p!.length) : s!)),
  replace: ofStrings(3, ([s, old, to]) => s!.split(old!).join(to!)),
  split: ofStrings(2, split, 'list(string)'),
  // strings.Join of a []string: each member decoded into a string (a number converted).
  join: ofKnown('string', ([list, sep]) =>
    Array.isArray(list) && typeof sep === 'string' && list.every((x) => typeof x === 'string' || typeof x === 'number')
      ? { value: list.map(String).join(sep) }
      : undefined,
  ),
  format: ofKnown('string', ([pattern, ...rest]) => (typeof pattern === 'string' ? format(pattern, rest) : undefined)),
};

/** combine_maps' checks of its two lists, in the vm's words: each a list (an ArgError at the argument), each member an object. */
function combineMapsArgs(args: readonly Evaluated[]): Evaluated | undefined {
  for (const list of args.slice(0, 2)) {
    const type = vmType(list);
    if (type !== undefined && type !== 'array') return typeError(list, 'array');
    const members = list.kind === 'array' ? list.members : [];
    const bad = members.find((m) => vmType(m) !== undefined && vmType(m) !== 'object');
    if (bad) return typeError(bad, 'object');
  }
  return undefined;
}

const ENCODING_FUNCTIONS: Record<string, Fn> = {
  from_json: ofText('any', fromJson),
  from_yaml: ofText('any', fromYaml),
  from_base64: ofText('string', (t) => fromBase64(t, 'std')),
  from_URLbase64: ofText('string', (t) => fromBase64(t, 'url')),
  to_base64: ofText('string', (t) => toBase64(t, 'std')),
  to_URLbase64: ofText('string', (t) => toBase64(t, 'url')),
  url_encode: ofText('string', queryEscape),
  url_decode: ofText('string', queryUnescape),
  to_json: ofKnown('string', ([v]) => (v === undefined ? undefined : toJson(v))),
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
  ...Object.fromEntries(Object.entries(ENCODING_FUNCTIONS).map(([n, f]) => [`encoding.${n}`, f])),
  json_decode: ENCODING_FUNCTIONS.from_json!,
  yaml_decode: ENCODING_FUNCTIONS.from_yaml!,
  base64_decode: ENCODING_FUNCTIONS.from_base64!,
  'array.combine_maps': (args, at, name) => combineMapsArgs(args) ?? ofKnown('list(any)', combineMaps)(args, at, name),
  'convert.nonsensitive': ofKnown('string', () => undefined),
  nonsensitive: ofKnown('string', () => undefined),
  'file.path_join': ofKnown('string', () => undefined),
};

/** A call of a function of the standard library, by its name's parts. */
export function stdlibCall(names: readonly string[], args: readonly Evaluated[], at: At, host?: Host): Evaluated {
  const name = names.join('.');
  const fn = FUNCTIONS[name];
  return fn ? fn(args, at, name, host) : unread(`${name}(…), whose value the gate does not work out`, at);
}
