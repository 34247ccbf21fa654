/**
 * What cel-go charges a call itself when no library estimator speaks for it
 * (checker/cost.go functionCost): by the overload the checker chose, string
 * functions by the sizes they walk, `in` by the list's length, `&&` and `||`
 * at most both sides, the conditional the dearer branch, concatenation by its
 * result, equality and string ordering by the shorter side; every other call
 * 1. Each adds its arguments' costs.
 */
import type { Expr } from './ast.ts';
import { add, COST, fixed, multiply, multiplyByFactor, sum, union, unionEntries, type EntrySize, type Estimate } from './estimates.ts';
import type { AstNode, CallEstimate } from './kubernetes-call-costs.ts';

export interface CostContext {
  sizeOrUnknown(node: AstNode): Estimate;
  entrySize(e: Expr | undefined): EntrySize | undefined;
  /** Records the entry sizes of the call's result (a list or map). */
  setEntrySize(entry: EntrySize): void;
}

interface Call {
  overload: string;
  target: AstNode | undefined;
  args: AstNode[];
  argCosts: Estimate[];
}

/** The conversions that walk their argument, with the size of what they make. */
const CONVERSIONS: Readonly<Record<string, (size: Estimate) => Estimate>> = {
  string_to_bytes: (sz) => ({ min: sz.min, max: multiply(sz, fixed(4)).max }),
  bytes_to_string: (sz) => ({ min: sz.min / 4n, max: sz.max }),
  strings_quote: (sz) => ({ min: sz.min + 2n, max: add(multiply(sz, fixed(2)), fixed(2)).max }),
};

export function celGoCallCost(call: Call, ctx: CostContext): CallEstimate {
  const { overload, target, args, argCosts } = call;
  const withArgs = (cost: Estimate, resultSize?: Estimate): CallEstimate => ({ ...add(cost, sum(argCosts)), ...(resultSize ? { resultSize } : {}) });
  const walk = (n: AstNode) => multiplyByFactor(ctx.sizeOrUnknown(n), COST.stringTraversalFactor);
  const conversion = CONVERSIONS[overload];
  if (conversion && args.length === 1) return withArgs(walk(args[0]!), conversion(ctx.sizeOrUnknown(args[0]!)));
  switch (overload) {
    case 'string_format':
      if (target) return withArgs(walk(target));
      break;
    case 'starts_with_string':
    case 'ends_with_string':
      if (args.length === 1) return withArgs(walk(args[0]!));
      break;
    case 'in_list':
      if (args.length === 2) return withArgs(multiplyByFactor(ctx.sizeOrUnknown(args[1]!), 1));
      break;
    case 'matches_string':
      if (target && args.length === 1) {
        const strCost = multiplyByFactor(add(ctx.sizeOrUnknown(target), fixed(1)), COST.stringTraversalFactor);
        const regexCost = multiplyByFactor(ctx.sizeOrUnknown(args[0]!), COST.regexStringLengthFactor);
        return withArgs(multiply(strCost, regexCost));
      }
      break;
    case 'contains_string':
      if (target && args.length === 1) return withArgs(multiply(walk(target), walk(args[0]!)));
      break;
    case 'logical_or':
    case 'logical_and':
      return { min: argCosts[0]!.min, max: add(argCosts[0]!, argCosts[1]!).max };
    case 'conditional': {
      const size = union(ctx.sizeOrUnknown(args[1]!), ctx.sizeOrUnknown(args[2]!));
      const entry = unionEntries(ctx.entrySize(args[1]!.expr), ctx.entrySize(args[2]!.expr));
      if (entry) ctx.setEntrySize(entry);
      return { ...add(argCosts[0]!, union(argCosts[1]!, argCosts[2]!)), resultSize: size };
    }
    case 'add_string':
    case 'add_bytes':
    case 'add_list':
      if (args.length === 2) {
        const resultSize = add(ctx.sizeOrUnknown(args[0]!), ctx.sizeOrUnknown(args[1]!));
        const entry = unionEntries(ctx.entrySize(args[0]!.expr), ctx.entrySize(args[1]!.expr));
        if (entry) ctx.setEntrySize(entry);
        return overload === 'add_list' ? withArgs(fixed(1), resultSize) : withArgs(multiplyByFactor(resultSize, COST.stringTraversalFactor), resultSize);
      }
      break;
    case 'less_string':
    case 'greater_string':
    case 'less_equals_string':
    case 'greater_equals_string':
    case 'less_bytes':
    case 'greater_bytes':
    case 'less_equals_bytes':
    case 'greater_equals_bytes':
    case 'equals':
    case 'not_equals': {
      const lhs = ctx.sizeOrUnknown(args[0]!);
      const rhs = ctx.sizeOrUnknown(args[1]!);
      const smallestMax = rhs.max < lhs.max ? rhs.max : lhs.max;
      return withArgs(multiplyByFactor({ min: smallestMax > 0n ? 1n : 0n, max: smallestMax }, COST.stringTraversalFactor));
    }
  }
  return withArgs(fixed(1));
}
