/**
 * The call costs cel-go's extensions register for the estimator
 * (checker.OverloadCostEstimate, consulted before any other estimate), for
 * the extensions the API server enables: sets (ext/sets.go: the product of
 * the two lists' sizes, equivalence twice) and lists at version 3
 * (ext/lists.go: slice, flatten, lists.range, reverse and distinct by the
 * list they make, sort and sortBy by the square of its length). Each charges the call
 * 1, and a call that makes a list the list's creation too. Undefined where
 * no extension estimates the overload.
 */
import type { Expr } from './ast.ts';
import { add, COST, fixed, MAX_UINT64, multiply, multiplyByFactor, type Estimate } from './estimates.ts';
import type { AstNode, CallEstimate } from './kubernetes-call-costs.ts';

type Size = (node: AstNode) => Estimate;

const SETS_FACTORS: Readonly<Record<string, number>> = { list_sets_contains_list: 1, list_sets_intersects_list: 1, list_sets_equivalent_list: 2 };

/** ext/costs.go nodeAsUintValue: an int literal (0 when negative), else the default. */
function literalUint(e: Expr | undefined, otherwise: bigint): bigint {
  const k = e?.exprKind;
  if (k?.case !== 'constExpr' || k.value.constantKind.case !== 'int64Value') return otherwise;
  const v = k.value.constantKind.value;
  return v < 0n ? 0n : v;
}

/** estimateListCall, allocating: the list's size times the factor, the call, and the list's creation. */
const allocatingList = (factor: number, size: Estimate): CallEstimate => ({
  ...add(add(multiplyByFactor(size, factor), fixed(1)), fixed(COST.listCreateBase)),
  resultSize: size,
});

export function extensionCallCost(overload: string, call: { target: AstNode | undefined; args: AstNode[] }, size: Size): CallEstimate | undefined {
  const { target, args } = call;
  const setsFactor = SETS_FACTORS[overload];
  if (setsFactor !== undefined) return args.length === 2 ? add(multiplyByFactor(multiply(size(args[0]!), size(args[1]!)), setsFactor), fixed(1)) : undefined;
  switch (overload) {
    case 'list_slice': {
      if (!target || args.length !== 2) return undefined;
      const start = literalUint(args[0]!.expr, 0n);
      const end = literalUint(args[1]!.expr, size(target).max);
      // Go's uint64 subtraction wraps.
      return allocatingList(1, fixed(BigInt.asUintN(64, end - start)));
    }
    case 'lists_range':
      return !target && args.length === 1 ? allocatingList(1, fixed(literalUint(args[0]!.expr, MAX_UINT64))) : undefined;
    case 'list_reverse':
      return target && args.length === 0 ? allocatingList(1, size(target)) : undefined;
    case 'list_flatten':
    case 'list_flatten_int': {
      if (!target || args.length > 1) return undefined;
      const depth = args.length === 1 ? literalUint(args[0]!.expr, MAX_UINT64) : 1n;
      return allocatingList(Number(depth), size(target));
    }
    case 'list_distinct': {
      if (!target || args.length !== 0) return undefined;
      const sz = size(target);
      return allocatingList(2, multiply(sz, sz));
    }
  }
  // sort by the list's own elements, sortBy by the keys its map made (estimateListSortCost of the list compared).
  const sorted =
    /^list_(.+)_sort$/.exec(overload) && target && args.length === 0
      ? target
      : /^list_(.+)_sortByAssociatedKeys$/.exec(overload) && target && args.length === 1
        ? args[0]
        : undefined;
  if (sorted) {
    const sz = size(sorted);
    const stringLike = /^list_(string|bytes)_sort/.test(overload);
    return allocatingList(2 + (stringLike ? COST.stringTraversalFactor : 0), multiply(sz, sz));
  }
  return undefined;
}
