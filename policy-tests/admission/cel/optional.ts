/**
 * CEL's optional values (cel-go's OptionalTypes, declared from Kubernetes
 * 1.28): optional.of, optional.ofNonZeroValue, optional.none, and the
 * methods hasValue, value, orValue, or. The engine has no optional type, so
 * an optional is carried as a map under one private-use key (a list of its
 * one value, or empty): two optionals are equal when their values are, as
 * in cel-go. The `.?` and `[?` syntax is the parser's, which this engine
 * does not read: a rule using it is not judged.
 */
import type { CelFunc, CelInput } from '@bufbuild/cel';
import { fail } from './values.ts';

type Cel = typeof import('@bufbuild/cel');

/** The key no rule's map can hold (private use), under which an optional carries its value. */
export const OPTIONAL_KEY = '\uE001optional';

export type Optional = ReadonlyMap<string, readonly CelInput[]>;

export const optionalOf = (value: CelInput): Optional => new Map([[OPTIONAL_KEY, [value]]]);
export const optionalNone = (): Optional => new Map<string, readonly CelInput[]>([[OPTIONAL_KEY, []]]);

/** The optional a value is, or undefined for any other value (a map the engine built from a rule's own map among them). */
export const asOptional = (value: unknown): readonly unknown[] | undefined => heldUnder(value, OPTIONAL_KEY);

/** What a one-entry map carries under a private-use key (an optional's value, a marked optional entry); undefined for any other value. */
export function heldUnder(value: unknown, key: string): readonly unknown[] | undefined {
  // Only a map can be one: a list answers get() too, by index.
  const isMap = value instanceof Map || (typeof value === 'object' && value !== null && Symbol.for('@bufbuild/cel/map') in value);
  const map = value as { size: number; get: (k: unknown) => unknown };
  if (!isMap || map.size !== 1) return undefined;
  const held = map.get(key);
  return held === undefined ? undefined : [...(held as Iterable<unknown>)];
}

const optional = (value: unknown): readonly unknown[] => asOptional(value) ?? fail('no such overload: expected an optional');

/** A value CEL counts as zero: false, 0, 0u, 0.0, "", empty bytes, an empty list or map, a zero duration, the zero timestamp (0001-01-01). */
function isZero(value: unknown): boolean {
  if (value === false || value === 0n || value === 0 || value === '' || value === null) return true;
  const v = value as { value?: unknown; message?: { seconds?: unknown; nanos?: unknown; $typeName?: string } } | undefined;
  if (typeof v === 'object' && v !== null && Symbol.for('@bufbuild/cel/uint') in v) return v.value === 0n;
  if (typeof v?.message?.seconds === 'bigint') {
    const zeroSeconds = v.message.$typeName === 'google.protobuf.Timestamp' ? -62135596800n : 0n;
    return v.message.seconds === zeroSeconds && v.message.nanos === 0;
  }
  if (value instanceof Uint8Array) return value.length === 0;
  const sized = value as { size?: unknown; length?: unknown } | undefined;
  if (typeof sized === 'object' && sized !== null) return sized.size === 0 || sized.length === 0;
  return false;
}

export function optionalFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, CelScalar, mapType, listType } = cel;
  const DYN = CelScalar.DYN;
  const OPT = mapType(CelScalar.STRING, listType(DYN));
  return [
    celFunc('optional.of', [DYN], OPT, (v) => optionalOf(v as CelInput)),
    celFunc('optional.ofNonZeroValue', [DYN], OPT, (v) => (isZero(v) ? optionalNone() : optionalOf(v as CelInput))),
    celFunc('optional.none', [], OPT, () => optionalNone()),
    celMethod('hasValue', DYN, [], CelScalar.BOOL, function () {
      return optional(this).length > 0;
    }),
    celMethod('value', DYN, [], DYN, function () {
      const held = optional(this);
      return held.length ? (held[0] as bigint) : fail('optional.none() dereference');
    }),
    celMethod('orValue', DYN, [DYN], DYN, function (otherwise) {
      const held = optional(this);
      return (held.length ? held[0] : otherwise) as bigint;
    }),
    celMethod('or', DYN, [DYN], DYN, function (other) {
      optional(other);
      return (optional(this).length ? this : other) as bigint;
    }),
  ];
}
