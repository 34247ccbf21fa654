/**
 * A value as evaluate.ts works it out before Alloy runs: known, built of members, known by its type alone, not read,
 * or an error the vm returns; and what the evaluator and the standard library read of one.
 */
import type { AlloyValue } from './parser.ts';

export interface At {
  line: number;
  text: string;
}

/** A value worked out; a number's kind (an integer or a float), as the vm keeps it, decides its arithmetic. */
export interface Known extends At {
  kind: 'known';
  value: AlloyValue;
  float?: boolean;
}
/** A list or object whose members are worked out one by one (some known, some typed). */
export interface Built extends At {
  kind: 'array' | 'object';
  members: readonly Evaluated[];
  keys?: readonly string[];
}
/**
 * A value of a known type (attrType's words: string, number, bool, list(<type>), map, object(<schema>),
 * opaque(<Go type>), secret, function) whose value is read when Alloy runs (`from`).
 */
export interface Typed extends At {
  kind: 'typed';
  type: string;
  from: string;
  /** A string's value, where the gate knows it as text and what stands for a value of the host (`spec.nodeName=` and the node's name). */
  parts?: readonly StringPart[];
}
/** Text, or what stands for a value read on the host whose meaning the gate knows (`the node's name`). */
export type StringPart = string | { symbol: string };

/** What Alloy's process reads of its host where the gate knows it: a variable of its environment, and its hostname (a text, or what it stands for). */
export type HostValue = { value: string } | { symbol: string };
export interface Host {
  env(name: string): HostValue | undefined;
  hostname?: HostValue;
}

/** A string's parts (adjacent texts joined), where the gate knows them. */
export function stringParts(e: Evaluated): StringPart[] | undefined {
  if (e.kind === 'known') return typeof e.value === 'string' ? [e.value] : undefined;
  if (e.kind !== 'typed' || !e.parts) return undefined;
  const out: StringPart[] = [];
  for (const p of e.parts)
    if (typeof p === 'string' && typeof out.at(-1) === 'string') out[out.length - 1] = `${out.at(-1) as string}${p}`;
    else out.push(p);
  return out;
}

/** A host value as evaluated: a text as a known string, a symbol as a string of that one part. */
export const hostString = (v: HostValue, place: At & { from: string }): Evaluated =>
  'value' in v
    ? { kind: 'known', line: place.line, text: place.text, value: v.value }
    : { kind: 'typed', line: place.line, text: place.text, type: 'string', from: place.from, parts: [v] };
export interface Unread extends At {
  kind: 'unread';
  why: string;
}
export interface Failed extends At {
  kind: 'failed';
  message: string;
}
export type Evaluated = Known | Built | Typed | Unread | Failed;

/** The vm's name of an evaluated value's type (value.Type's String), or undefined where it is not known. */
export function vmType(e: Evaluated): string | undefined {
  if (e.kind === 'array' || e.kind === 'object') return e.kind;
  if (e.kind === 'known') {
    const v = e.value;
    return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'object' ? 'object' : typeof v === 'boolean' ? 'bool' : typeof v;
  }
  if (e.kind !== 'typed') return undefined;
  if (/^list\(/.test(e.type)) return 'array';
  if (e.type === 'map' || e.type.startsWith('object(')) return 'object';
  if (e.type.startsWith('opaque') || e.type === 'secret') return 'capsule';
  return e.type;
}

/** A value known or built whole, as a plain value (for a function or an operator that reads it), else undefined. */
export function plainValue(e: Evaluated): AlloyValue | undefined {
  if (e.kind === 'known') return e.value;
  if (e.kind !== 'array' && e.kind !== 'object') return undefined;
  const members = e.members.map(plainValue);
  if (members.some((m) => m === undefined)) return undefined;
  return e.kind === 'array' ? (members as AlloyValue[]) : Object.fromEntries(e.keys!.map((k, i) => [k, members[i]!]));
}

/** A plain value as evaluated, each member of a list or object its own (with the whole's place). */
export function fromValue(value: AlloyValue, place: At, float?: boolean): Evaluated {
  if (Array.isArray(value)) return { kind: 'array', ...place, members: value.map((v) => fromValue(v, place)) };
  if (value !== null && typeof value === 'object') {
    const keys = Object.keys(value);
    return { kind: 'object', ...place, keys, members: keys.map((k) => fromValue((value as Record<string, AlloyValue>)[k]!, place)) };
  }
  return { kind: 'known', ...place, value, ...(float ? { float } : {}) };
}

/** What the typed values among `values` are read from, or `fallback`. */
export const readFrom = (values: readonly Evaluated[], fallback: string): string =>
  values
    .filter((v): v is Typed => v.kind === 'typed')
    .map((v) => v.from)
    .join(' and ') || fallback;

/** A TypeError as makeDiagnostic words it: the expression as written, what it should be, what it is. */
export const typeError = (e: Evaluated, expected: string): Failed => ({
  kind: 'failed',
  line: e.line,
  text: e.text,
  message: `${e.text} should be ${expected}, got ${vmType(e)}`,
});
