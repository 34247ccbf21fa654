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
}
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
