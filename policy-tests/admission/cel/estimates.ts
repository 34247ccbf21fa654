/**
 * cel-go's size and cost estimates (checker/cost.go SizeEstimate and
 * CostEstimate): ranges of uint64 that saturate at the largest uint64 rather
 * than overflow, and a cost factor rounded up as Go rounds a float64.
 */
export const MAX_UINT64 = 2n ** 64n - 1n;

export interface Estimate {
  min: bigint;
  max: bigint;
}

/** common/cost.go */
export const COST = {
  selectAndIdent: 1n,
  constant: 0n,
  listCreateBase: 10n,
  mapCreateBase: 30n,
  structCreateBase: 40n,
  stringTraversalFactor: 0.1,
  regexStringLengthFactor: 0.25,
} as const;

export const fixed = (n: bigint | number): Estimate => ({ min: BigInt(n), max: BigInt(n) });
export const UNKNOWN: Estimate = { min: 0n, max: MAX_UINT64 };
export const ZERO: Estimate = fixed(0);

const addSat = (x: bigint, y: bigint): bigint => (x + y > MAX_UINT64 ? MAX_UINT64 : x + y);
const mulSat = (x: bigint, y: bigint): bigint => (x * y > MAX_UINT64 ? MAX_UINT64 : x * y);

/** multiplyByCostFactor: float64(x) * factor, rounded up; past 2^64 the largest uint64. */
function byFactor(x: bigint, factor: number): bigint {
  const product = Math.ceil(Number(x) * factor);
  return product >= 2 ** 64 ? MAX_UINT64 : BigInt(product);
}

export const add = (a: Estimate, b: Estimate): Estimate => ({ min: addSat(a.min, b.min), max: addSat(a.max, b.max) });
export const multiply = (a: Estimate, b: Estimate): Estimate => ({ min: mulSat(a.min, b.min), max: mulSat(a.max, b.max) });
export const multiplyByFactor = (a: Estimate, factor: number): Estimate => ({ min: byFactor(a.min, factor), max: byFactor(a.max, factor) });
export const union = (a: Estimate, b: Estimate): Estimate => ({ min: a.min < b.min ? a.min : b.min, max: a.max > b.max ? a.max : b.max });
export const sum = (all: readonly Estimate[]): Estimate => all.reduce(add, ZERO);

/** The sizes of a list's or map's keys and values, as the estimator tracks them through literals and concatenation. */
export interface EntrySize {
  container: 'list' | 'map';
  key: Estimate;
  val: Estimate;
}

export const unionEntries = (a: EntrySize | undefined, b: EntrySize | undefined): EntrySize | undefined =>
  a && b ? { container: a.container, key: union(a.key, b.key), val: union(a.val, b.val) } : undefined;
