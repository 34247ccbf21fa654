/**
 * Lists as their schema types them (x-kubernetes-list-type): a set or a map
 * list is equal to another with the same elements in any order, and
 * concatenation keeps its type, as the API server's CEL values do: a set
 * gains only the elements it lacks; a map list's element with the same key
 * values is replaced in place, the others appended. Atomic lists, and
 * everything else, keep the engine's own equality.
 */
import type { CelFunc, CelInput } from '@bufbuild/cel';
import { concatLists, listTypeOf, meteredList, type ListType } from './budget.ts';
import { celEquals, items } from './values.ts';

type Cel = typeof import('@bufbuild/cel');

/** The key values of a map list's element, for its identity. */
function keyOf(element: unknown, keys: readonly string[]): unknown[] {
  const map = element as { get?: (k: string) => unknown } | null;
  return keys.map((k) => (typeof map?.get === 'function' ? map.get(k) : undefined));
}
const sameKey = (a: unknown, b: unknown, keys: readonly string[]) => keyOf(a, keys).every((v, i) => celEquals(v, keyOf(b, keys)[i]));

/** Equal as a set: the same elements, each found in the other. */
function unorderedEquals(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((x) => b.some((y) => celEquals(x, y))) && b.every((y) => a.some((x) => celEquals(x, y)));
}

function merged(left: unknown, right: unknown, type: ListType): CelInput {
  const out = items(left);
  for (const x of items(right)) {
    if (type.type === 'set') {
      if (!out.some((y) => celEquals(x, y))) out.push(x);
      continue;
    }
    const at = out.findIndex((y) => sameKey(x, y, type.keys));
    if (at === -1) out.push(x);
    else out[at] = x;
  }
  return meteredList(out as CelInput[], type);
}

export function listTypeFunctions(cel: Cel): CelFunc[] {
  const { celFunc, CelScalar, listType } = cel;
  const [DYN, B, LIST] = [CelScalar.DYN, CelScalar.BOOL, listType(CelScalar.DYN)];
  // The engine's own equality, for every pair that is not a set or map list: planned once, in an environment of its own.
  const plainEquals = cel.plan(cel.celEnv({}), cel.parse('a == b'));
  const equals = (a: unknown, b: unknown): boolean => {
    // Two strings, two ints or two bools, most of a rule's comparisons, are equal as JavaScript says; the engine decides the rest.
    if (typeof a === typeof b && (typeof a === 'string' || typeof a === 'bigint' || typeof a === 'boolean')) return a === b;
    if (!listTypeOf(a) && !listTypeOf(b)) return plainEquals({ a: a as CelInput, b: b as CelInput }) === true;
    return unorderedEquals(items(a), items(b));
  };
  return [
    // Replace the standard overloads (same ids): concatenation made linear (budget.ts), typed lists merged.
    celFunc('_+_', [LIST, LIST], LIST, (a, b) => {
      const type = listTypeOf(a);
      return type ? merged(a, b, type) : concatLists(a, b);
    }),
    celFunc('_==_', [DYN, DYN], B, (a, b) => equals(a, b)),
    celFunc('_!=_', [DYN, DYN], B, (a, b) => !equals(a, b)),
  ];
}
