/**
 * Two-variable comprehensions (cel-go's TwoVarComprehensions, which the API
 * server declares from 1.33): `all`, `exists` and `existsOne` over an index
 * and element (a list) or a key and value (a map), and `transformList`,
 * `transformMap`, `transformMapEntry`, each with an optional filter. The
 * engine's parser leaves them as plain calls and its evaluator folds over
 * one variable; each is rewritten into the one-variable macros over the
 * receiver's pairs, which the engine evaluates with CEL's own error
 * semantics:
 *   R.all(k, v, P)            →  pairs(R).all(kv, P[k := kv[0], v := kv[1]])
 *   R.transformMap(k, v, F, E) →  toMap(pairs(R).filter(kv, F').map(kv, [kv[0], E']))
 */
import type { CelFunc } from '@bufbuild/cel';
import { identName, mapChildren, replaceIdents, type Expr } from './ast.ts';
import { charge } from './budget.ts';

type Cel = typeof import('@bufbuild/cel');

/** The macro a call becomes, by name and by how many arguments follow the two variables. */
const TEMPLATES: Readonly<Record<string, Readonly<Record<number, string>>>> = {
  all: { 1: '__pairs__(__R__).all(__KV__, __A__)' },
  exists: { 1: '__pairs__(__R__).exists(__KV__, __A__)' },
  existsOne: { 1: '__pairs__(__R__).exists_one(__KV__, __A__)' },
  exists_one: { 1: '__pairs__(__R__).exists_one(__KV__, __A__)' },
  transformList: { 1: '__pairs__(__R__).map(__KV__, __A__)', 2: '__pairs__(__R__).filter(__KV__, __A__).map(__KV__, __B__)' },
  transformMap: {
    1: '__tomap__(__pairs__(__R__).map(__KV__, [__KV__[0], __A__]))',
    2: '__tomap__(__pairs__(__R__).filter(__KV__, __A__).map(__KV__, [__KV__[0], __B__]))',
  },
  transformMapEntry: { 1: '__mergemaps__(__pairs__(__R__).map(__KV__, __A__))', 2: '__mergemaps__(__pairs__(__R__).filter(__KV__, __A__).map(__KV__, __B__))' },
};

/** sortBy(e, key), the lists extension's one macro: the list sorted by each element's key (collections.ts). */
const SORT_BY = '__sortby__(__R__, __R2__.map(__E__, __A__))';

/** Rewrites every two-variable comprehension of a parsed expression, innermost first; other nodes are walked in place. */
export function rewriteTwoVariable(cel: Cel, e: Expr, counter = { n: 0 }): Expr {
  mapChildren(e, (child) => rewriteTwoVariable(cel, child, counter));
  if (e.exprKind.case !== 'callExpr') return e;
  const call = e.exprKind.value;
  if (call.function === 'sortBy' && call.target && call.args.length === 2 && identName(call.args[0]) !== undefined) {
    const target = call.target;
    const holes = new Map<string, () => Expr>([
      ['__R__', () => target],
      ['__R2__', () => structuredClone(target)],
      ['__A__', () => call.args[1]!],
    ]);
    // The macro binds the rule's own variable name: the key expression reads it as written.
    return replaceIdents(cel.parse(SORT_BY.replace('__E__', identName(call.args[0])!)).expr as Expr, holes);
  }
  const template = TEMPLATES[call.function]?.[call.args.length - 2];
  const [k, v] = [identName(call.args[0]), identName(call.args[1])];
  if (!template || !call.target || k === undefined || v === undefined) return e;
  // A name of its own per rewrite: an inner comprehension's pair never captures an outer one's variables.
  const kv = `__kv${counter.n++}__`;
  const element = (i: number) => () => cel.parse(`${kv}[${i}]`).expr as Expr;
  const by = new Map([
    [k, element(0)],
    [v, element(1)],
  ]);
  const body = call.args.slice(2).map((a) => replaceIdents(a, by));
  const holes = new Map<string, () => Expr>([
    ['__R__', () => call.target!],
    ['__A__', () => body[0]!],
    ['__B__', () => body[1]!],
  ]);
  const rewritten = cel.parse(template.replaceAll('__KV__', kv)).expr as Expr;
  return replaceIdents(rewritten, holes);
}

/** The pairs a two-variable comprehension folds over: [index, element] of a list, [key, value] of a map. */
export function twoVariableFunctions(cel: Cel): CelFunc[] {
  const { celFunc, CelScalar, listType, mapType } = cel;
  const DYN = CelScalar.DYN;
  const pairs = (range: unknown): unknown[][] => {
    const map = range as { keys?: () => Iterable<unknown>; get?: (k: unknown) => unknown; size?: number };
    if (typeof map?.get === 'function' && typeof map.keys === 'function' && !Array.isArray(range)) {
      const keys = [...map.keys()];
      charge(keys.length);
      return keys.map((key) => [key, map.get!(key)]);
    }
    const items = [...(range as Iterable<unknown>)];
    charge(items.length);
    return items.map((item, i) => [BigInt(i), item]);
  };
  const entries = (list: unknown): [unknown, unknown][] => [...(list as Iterable<Iterable<unknown>>)].map((p) => [...p] as [unknown, unknown]);
  const merge = (maps: unknown): Map<unknown, unknown> => {
    const out = new Map<unknown, unknown>();
    for (const m of maps as Iterable<{ keys(): Iterable<unknown>; get(k: unknown): unknown }>)
      for (const key of m.keys()) {
        if (out.has(key)) throw new Error(`insert failed: key ${String(key)} already exists`);
        out.set(key, m.get(key));
      }
    return out;
  };
  return [
    celFunc('__pairs__', [DYN], listType(listType(DYN)), (range) => pairs(range) as never),
    celFunc('__tomap__', [listType(DYN)], mapType(DYN, DYN), (list) => new Map(entries(list)) as never),
    celFunc('__mergemaps__', [listType(DYN)], mapType(DYN, DYN), (maps) => merge(maps) as never),
  ];
}
