/**
 * cel-go's sets extension (declared from Kubernetes 1.29) and lists
 * extension (version 3, from 1.34): sets.contains, sets.equivalent,
 * sets.intersects; lists.range, slice, flatten, distinct, reverse, sort,
 * sortBy, first, last. Elements compare with CEL's equality and ordering
 * (values.ts); every list walked is charged to the runtime cost.
 */
import type { CelFunc, CelInput } from '@bufbuild/cel';
import { charge } from './budget.ts';
import { optionalNone, optionalOf } from './optional.ts';
import { celEquals, compare, fail, items } from './values.ts';

type Cel = typeof import('@bufbuild/cel');

const includes = (list: readonly unknown[], x: unknown) => list.some((y) => celEquals(x, y));
const isList = (v: unknown) => Array.isArray(v) || (typeof v === 'object' && v !== null && Symbol.for('@bufbuild/cel/list') in v);

/** A list flattened `depth` levels (cel-go: a negative depth is an error). */
function flatten(list: readonly unknown[], depth: bigint): unknown[] {
  if (depth < 0n) fail('level must be non-negative');
  const out: unknown[] = [];
  for (const x of list) {
    if (depth > 0n && isList(x)) out.push(...flatten(items(x), depth - 1n));
    else out.push(x);
  }
  return out;
}

/** The list sorted by CEL's ordering; elements of different types cannot be sorted. */
function sorted(list: readonly unknown[], keys: readonly unknown[] = list): unknown[] {
  const order = list.map((_, i) => i).sort((a, b) => compare(keys[a], keys[b]) || a - b);
  return order.map((i) => list[i]);
}

export function collectionFunctions(cel: Cel): CelFunc[] {
  const { celFunc, celMethod, CelScalar, listType, mapType } = cel;
  const [B, I, DYN] = [CelScalar.BOOL, CelScalar.INT, CelScalar.DYN];
  const LIST = listType(DYN);
  const OPT = mapType(CelScalar.STRING, listType(DYN));
  return [
    celFunc('sets.contains', [LIST, LIST], B, (a, b) => {
      const xs = items(a);
      return items(b).every((y) => includes(xs, y));
    }),
    celFunc('sets.equivalent', [LIST, LIST], B, (a, b) => {
      const [xs, ys] = [items(a), items(b)];
      return xs.every((x) => includes(ys, x)) && ys.every((y) => includes(xs, y));
    }),
    celFunc('sets.intersects', [LIST, LIST], B, (a, b) => {
      const xs = items(a);
      return items(b).some((y) => includes(xs, y));
    }),
    celFunc('lists.range', [I], listType(I), (n) => {
      charge(Number(n < 0n ? 0n : n));
      return Array.from({ length: Number(n < 0n ? 0n : n) }, (_, i) => BigInt(i));
    }),
    celMethod('slice', LIST, [I, I], LIST, function (start, end) {
      const xs = items(this);
      if (start < 0n || end < 0n) fail(`cannot slice(${start}, ${end}), negative indexes not supported`);
      if (start > end) fail(`cannot slice(${start}, ${end}), start index must be less than or equal to end index`);
      if (end > BigInt(xs.length)) fail(`cannot slice(${start}, ${end}), list is length ${xs.length}`);
      return xs.slice(Number(start), Number(end)) as CelInput[];
    }),
    celMethod('flatten', LIST, [], LIST, function () {
      return flatten(items(this), 1n) as CelInput[];
    }),
    celMethod('flatten', LIST, [I], LIST, function (depth) {
      return flatten(items(this), depth) as CelInput[];
    }),
    celMethod('distinct', LIST, [], LIST, function () {
      const out: unknown[] = [];
      for (const x of items(this)) if (!includes(out, x)) out.push(x);
      return out as CelInput[];
    }),
    celMethod('reverse', LIST, [], LIST, function () {
      return items(this).reverse() as CelInput[];
    }),
    // The strings extension's reverse (its version 3), which the engine's strings extension lacks: by code point.
    celMethod('reverse', CelScalar.STRING, [], CelScalar.STRING, function () {
      // oxlint-disable-next-line typescript/no-misused-spread -- cel-go reverses by rune, a code point: what spreading a string gives
      return [...this].reverse().join('');
    }),
    celMethod('sort', LIST, [], LIST, function () {
      return sorted(items(this)) as CelInput[];
    }),
    // sortBy(e, key) is a macro: the rule is rewritten to __sortby__(list, list.map(e, key)) (two-variable.ts).
    celFunc('__sortby__', [LIST, LIST], LIST, (list, keys) => sorted(items(list), items(keys)) as CelInput[]),
    celMethod('first', LIST, [], OPT, function () {
      const xs = items(this);
      return xs.length ? optionalOf(xs[0] as CelInput) : optionalNone();
    }),
    celMethod('last', LIST, [], OPT, function () {
      const xs = items(this);
      return xs.length ? optionalOf(xs.at(-1) as CelInput) : optionalNone();
    }),
  ];
}
