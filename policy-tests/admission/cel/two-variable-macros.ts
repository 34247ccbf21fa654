/**
 * The macros the evaluator runs in a shape of its own, as cel-go's parser
 * expands them, for the cost estimate. The two-variable comprehensions
 * (ext/comprehensions.go): one comprehension over the
 * receiver with two iteration variables (index and element of a list, key
 * and value of a map), the same accumulator, condition, step and result as
 * cel-go builds. The evaluator runs another, equivalent shape
 * (two-variable.ts); the estimate needs cel-go's, node for node, to cost
 * the rule as the API server does.
 *   R.all(k, v, P)               → all's comprehension over R, iterVar k, iterVar2 v
 *   R.transformMap(k, v, F, E)   → accumulates cel.@mapInsert(acc, k, E) where F holds
 */
import { identName, mapChildren, replaceIdents, type Expr } from './ast.ts';

type Cel = typeof import('@bufbuild/cel');

/** The one-variable macro whose comprehension has cel-go's shape for each, by how many arguments follow the variables. */
const SHAPES: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  all: { 1: '__R__.all(__K__, __A__)' },
  exists: { 1: '__R__.exists(__K__, __A__)' },
  existsOne: { 1: '__R__.exists_one(__K__, __A__)' },
  exists_one: { 1: '__R__.exists_one(__K__, __A__)' },
  transformList: { 1: '__R__.map(__K__, __A__)', 2: '__R__.map(__K__, __A__, __B__)' },
  transformMap: { 1: '__R__.map(__K__, __I__)', 2: '__R__.map(__K__, __A__, __I__)' },
  transformMapEntry: { 1: '__R__.map(__K__, __I__)', 2: '__R__.map(__K__, __A__, __I__)' },
};

type Comprehension = { iterVar: string; iterVar2: string; accuVar: string; accuInit?: Expr; loopStep?: Expr };

/** A node naming a variable CEL text cannot spell (`@__sortBy_input__`, `@result`). */
function identNamed(cel: Cel, name: string): Expr {
  const ident = cel.parse('__name__').expr as Expr;
  (ident.exprKind.value as { name: string }).name = name;
  return ident;
}

/** The map transforms accumulate into a map literal by cel.@mapInsert, where the list macros append a one-item list. */
function insertIntoMap(cel: Cel, c: Comprehension, fn: string, holes: Map<string, () => Expr>): void {
  c.accuInit = cel.parse('{}').expr as Expr;
  const insert = cel.parse(fn === 'transformMap' ? '__insert__(__result__, __KEY__, __T__)' : '__insert__(__result__, __T__)').expr as Expr;
  (insert.exprKind.value as { function: string }).function = 'cel.@mapInsert';
  const step = c.loopStep!;
  // `__result__ + [__I__]`, or `F ? __result__ + [__I__] : __result__`: the append becomes the insert.
  const appended = step.exprKind.case === 'callExpr' && step.exprKind.value.function === '_?_:_' ? step.exprKind.value.args[1]! : step;
  // The accumulator by the name the parser gave it (it need not be an identifier CEL text can spell).
  const filled = replaceIdents(insert, new Map([...holes, ['__KEY__', () => identNamed(cel, c.iterVar)], ['__result__', () => identNamed(cel, c.accuVar)]]));
  Object.assign(appended, filled);
}

/**
 * sortBy(e, key) (ext/lists.go sortByMacro): the list bound once, then sorted by the keys its map makes,
 * cel.bind(@__sortBy_input__, R, @__sortBy_input__.@sortByAssociatedKeys(@__sortBy_input__.map(e, key))).
 */
function sortBy(cel: Cel, target: Expr, args: Expr[]): Expr {
  const input = '@__sortBy_input__';
  const bind = cel.parse('[].map(__unused__, __B__)').expr as Expr;
  const c = bind.exprKind.value as Comprehension & { iterRange?: Expr; loopCondition?: Expr; result?: Expr };
  const keys = replaceIdents(
    cel.parse(`__X__.map(${identName(args[0])!}, __K__)`).expr as Expr,
    new Map([
      ['__X__', () => identNamed(cel, input)],
      ['__K__', () => args[1]!],
    ]),
  );
  const sorted = cel.parse('__X__.__sort__(__Y__)').expr as Expr;
  const call = sorted.exprKind.value as { function: string };
  call.function = '@sortByAssociatedKeys';
  Object.assign(c, { iterVar: '#unused', accuVar: input, accuInit: target, loopCondition: cel.parse('false').expr, loopStep: identNamed(cel, input) });
  c.result = replaceIdents(
    sorted,
    new Map([
      ['__X__', () => identNamed(cel, input)],
      ['__Y__', () => keys],
    ]),
  );
  return bind;
}

/** Expands every two-variable comprehension of a parsed rule as cel-go does, innermost first; other nodes in place. */
export function expandTwoVariableMacros(cel: Cel, e: Expr): Expr {
  mapChildren(e, (child) => expandTwoVariableMacros(cel, child));
  if (e.exprKind.case !== 'callExpr') return e;
  const call = e.exprKind.value;
  if (call.function === 'sortBy' && call.target && call.args.length === 2 && identName(call.args[0]) !== undefined) return sortBy(cel, call.target, call.args);
  const shape = SHAPES[call.function]?.[call.args.length - 2];
  const [k, v] = [identName(call.args[0]), identName(call.args[1])];
  if (!shape || !call.target || k === undefined || v === undefined) return e;
  const [first, second] = call.args.slice(2);
  const isMap = call.function === 'transformMap' || call.function === 'transformMapEntry';
  const holes = new Map<string, () => Expr>([
    ['__R__', () => call.target!],
    ['__A__', () => first!],
    ['__B__', () => second!],
    ['__T__', () => (call.args.length === 4 ? second! : first!)],
  ]);
  const expanded = cel.parse(shape).expr as Expr;
  const c = expanded.exprKind.value as Comprehension;
  c.iterVar = k;
  c.iterVar2 = v;
  if (isMap) insertIntoMap(cel, c, call.function, holes);
  return replaceIdents(expanded, holes);
}
