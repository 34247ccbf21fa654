/**
 * The API server's static cost check at CRD create, from below: each rule's
 * estimated cost against the per-expression limit (10,000,000) and the
 * CRD's total against its limit (100,000,000), as
 * k8s.io/apiextensions-apiserver's validation.go applies them. cel-go's
 * estimator is not reproduced: this counts the iterations every
 * comprehension makes over a list or map the schema bounds (its maxItems or
 * maxProperties, else as many as fit in a 3 MiB request, with the
 * apiserver's minimum serialized sizes), times the iterations of those
 * around it, and the string walks cel-go charges by the estimated size of
 * the string (string-size-estimate.ts: replace's result among them). That count is a lower bound of cel-go's estimate, so a rule
 * over the limit by it is refused by the API server too; a rule under it
 * may still be refused there (not judged here).
 */
import { mapChildren, type Expr } from './ast.ts';
import type { JsonSchemaNode } from './schema-node.ts';
import { schemaNodeOf } from './schema-type-check.ts';
import { stringCallCost } from './string-size-estimate.ts';

export const PER_EXPRESSION_LIMIT = 10_000_000;
export const PER_CRD_LIMIT = 100_000_000;
const MAX_REQUEST_BYTES = 3 * 1024 * 1024;

const typesOf = (s: JsonSchemaNode): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/** The fewest bytes a value of this node takes in a request (k8s.io/apiserver pkg/cel/common/schemas.go, limits.go). */
export function minSerializedSize(s: JsonSchemaNode | undefined): number {
  if (!s) return 1;
  if (s['x-kubernetes-int-or-string']) return 1;
  const type = typesOf(s)[0];
  if (type === 'string') return s.format === 'duration' ? 3 : s.format === 'date' ? 12 : s.format === 'date-time' ? 21 : 2;
  if (type === 'boolean') return 4;
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'object' && !s.additionalProperties) {
    // {} plus each required property with no default: its name, its value, quotes and a colon and comma.
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    let size = 2;
    for (const [name, prop] of Object.entries(s.properties ?? {}))
      if (required.has(name) && prop.default === undefined) size += name.length + minSerializedSize(prop) + 4;
    return size;
  }
  return 2;
}

/** How many elements a list or map node can hold: its maxItems or maxProperties, else as many as fit in a request. */
export function maxElements(s: JsonSchemaNode): number | undefined {
  if (s.items) return typeof s.maxItems === 'number' ? s.maxItems : Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(s.items) + 1));
  if (typeof s.additionalProperties === 'object')
    return typeof s.maxProperties === 'number' ? s.maxProperties : Math.floor((MAX_REQUEST_BYTES - 2) / (minSerializedSize(s.additionalProperties) + 6));
  return undefined;
}

type Scope = ReadonlyMap<string, JsonSchemaNode>;

/** How many times a comprehension's body runs at most, by its range: a bounded schema list or map, or a list literal. */
function iterations(range: Expr, scope: Scope): { count: number; element?: JsonSchemaNode } {
  if (range.exprKind.case === 'listExpr') return { count: range.exprKind.value.elements.length };
  // A two-variable comprehension folds over its receiver's pairs (two-variable.ts): as many as the receiver holds.
  if (range.exprKind.case === 'callExpr' && range.exprKind.value.function === '__pairs__') {
    const receiver = schemaNodeOf(range.exprKind.value.args[0]!, scope);
    return { count: receiver ? (maxElements(receiver) ?? 0) : 0 };
  }
  const node = schemaNodeOf(range, scope);
  if (!node) return { count: 0 };
  // A list's variable is its element; a map's is its key, a string.
  return { count: maxElements(node) ?? 0, ...(node.items ? { element: node.items } : {}) };
}

/** A lower bound of cel-go's estimated cost of an expression, with `self` (and `oldSelf`) bound to this node. */
export function costLowerBound(expr: Expr, schema: JsonSchemaNode): number {
  return bound(
    expr,
    new Map([
      ['self', schema],
      ['oldSelf', schema],
    ]),
  );
}

function bound(e: Expr, scope: Scope): number {
  if (e.exprKind.case !== 'comprehensionExpr') {
    // A string function that walks its receiver: as long as the longest string the receiver could be.
    let total = stringCallCost(e, scope);
    mapChildren(e, (child) => {
      total += bound(child, scope);
      return child;
    });
    return total;
  }
  const c = e.exprKind.value;
  const outer = (c.iterRange ? bound(c.iterRange, scope) : 0) + (c.accuInit ? bound(c.accuInit, scope) : 0);
  const { count, element } = c.iterRange ? iterations(c.iterRange, scope) : { count: 0 };
  const inner = new Map(scope);
  inner.delete(c.accuVar);
  if (element) inner.set(c.iterVar, element);
  else inner.delete(c.iterVar);
  const body = (c.loopCondition ? bound(c.loopCondition, inner) : 0) + (c.loopStep ? bound(c.loopStep, inner) : 0);
  return outer + count * (1 + body) + (c.result ? bound(c.result, scope) : 0);
}

/** The API server's words for a cost over its limit (validation.go getCostErrorMessage), from a lower bound of the cost. */
export function costMessage(what: string, lowerBound: number, limit: number): string {
  const factor = lowerBound / limit;
  const said = factor > 100 ? 'more than 100x' : `at least ${factor.toFixed(1)}x`;
  return `${what} exceeds budget by factor of ${said} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
