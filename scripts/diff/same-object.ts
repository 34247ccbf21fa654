/**
 * Whether two rendered objects are equal, remembered per pair: the comparison (changes.ts) and the update judgment
 * (refusals.ts) both ask it of every object the two refs apply, and a CRD's deep compare is not cheap.
 */
import { isDeepStrictEqual } from 'node:util';

const seen = new WeakMap<object, WeakMap<object, boolean>>();

export function sameObject(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  if (a === b) return true;
  let row = seen.get(a);
  if (!row) seen.set(a, (row = new WeakMap()));
  let same = row.get(b);
  if (same === undefined) row.set(b, (same = isDeepStrictEqual(a, b)));
  return same;
}
