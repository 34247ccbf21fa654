/**
 * What the API server's type check refuses of a rule at its schema node,
 * for the selections it can follow: `self.a.b` (and `has(self.a.b)`) where
 * `a` is an object whose schema declares its properties, and `b` is none of
 * them, is "undefined field 'b'" at CRD create. Followed from `self` and
 * `oldSelf` through declared properties, list items and map values; an
 * embedded resource declares apiVersion, kind and metadata (of which name
 * and generateName), as the API server's declaration of it does. A node that
 * keeps unknown fields, or one the walk cannot place, is not judged.
 */
import { mapChildren, type Expr } from './ast.ts';
import type { JsonSchemaNode } from './schema-node.ts';
import { unescapeProperty } from './escaping.ts';

const EMBEDDED: Readonly<Record<string, JsonSchemaNode>> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object', properties: { name: { type: 'string' }, generateName: { type: 'string' } } },
};

const ROOT = Symbol('the CRD root');

/**
 * The fields a node declares, or undefined when any may be there (a map) or the node says nothing (no type). An
 * object keeps no unknown field for a rule, not even with x-kubernetes-preserve-unknown-fields: what it does not
 * declare, a rule cannot select.
 */
function declaredFields(s: JsonSchemaNode & { [ROOT]?: true }): Readonly<Record<string, JsonSchemaNode>> | undefined {
  if (s.additionalProperties) return undefined;
  const own = s.properties ?? {};
  // The root of a custom resource, and an embedded one, always have their type and object metadata: what the schema
  // declares of them, and of metadata that it leaves open, name and generateName.
  if (s[ROOT] || s['x-kubernetes-embedded-resource']) {
    const metadata = own.metadata?.properties ? own.metadata : EMBEDDED.metadata!;
    return { ...EMBEDDED, ...own, metadata };
  }
  const type = Array.isArray(s.type) ? s.type : [s.type];
  if (!s.properties && !type.includes('object')) return undefined;
  // A property of unknown type (no type, not int-or-string; or a list or map of such) is not in the rule's type at all.
  return Object.fromEntries(Object.entries(own).filter(([, sub]) => typed(sub)));
}

const typed = (s: JsonSchemaNode): boolean => {
  if (s['x-kubernetes-int-or-string']) return true;
  if (!s.type) return false;
  if (s.items) return typed(s.items);
  if (typeof s.additionalProperties === 'object') return typed(s.additionalProperties);
  return true;
};

/**
 * The schema node an expression reads from a variable the scope binds (`self`, a comprehension's element), when a
 * chain of selections and indexes says which; what the type check refuses on the way goes to `problems`. The cost
 * estimate (cost-estimate.ts) follows ranges with it too.
 */
export function schemaNodeOf(e: Expr, roots: ReadonlyMap<string, JsonSchemaNode>, problems: string[] = []): JsonSchemaNode | undefined {
  const kind = e.exprKind;
  if (kind.case === 'identExpr') return roots.get(kind.value.name);
  if (kind.case === 'selectExpr' && kind.value.operand) {
    const parent = schemaNodeOf(kind.value.operand, roots, problems);
    if (!parent) return undefined;
    const name = unescapeProperty(kind.value.field) ?? kind.value.field;
    if (typeof parent.additionalProperties === 'object') return parent.additionalProperties;
    const fields = declaredFields(parent);
    if (!fields) return undefined;
    const sub = fields[name];
    if (!sub) problems.push(`undefined field '${kind.value.field}'`);
    return sub;
  }
  if (kind.case === 'callExpr' && kind.value.function === '_[_]' && kind.value.args.length === 2) {
    const parent = schemaNodeOf(kind.value.args[0]!, roots, problems);
    if (parent?.items) return parent.items;
    if (typeof parent?.additionalProperties === 'object') return parent.additionalProperties;
    // An object's fields are selected, never indexed.
    if (parent && declaredFields(parent) && !parent.additionalProperties) problems.push("no matching overload for '_[_]'");
    return undefined;
  }
  return undefined;
}

/** A selection or an index: a step of a chain from self. */
const isChain = (e: Expr): boolean => e.exprKind.case === 'selectExpr' || (e.exprKind.case === 'callExpr' && e.exprKind.value.function === '_[_]');

const SCALARS: Readonly<Record<string, string>> = { string: 'string', integer: 'int', number: 'double', boolean: 'bool' };

/** A typed field compared with null, or an object with a map literal: no overload of == takes both. */
function comparisonProblem(e: Expr, roots: ReadonlyMap<string, JsonSchemaNode>, problems: string[]): void {
  if (e.exprKind.case !== 'callExpr') return;
  const { function: fn, args } = e.exprKind.value;
  if ((fn !== '_==_' && fn !== '_!=_') || args.length !== 2) return;
  for (const [field, other] of [
    [args[0]!, args[1]!],
    [args[1]!, args[0]!],
  ] as const) {
    if (!isChain(field)) continue;
    const node = schemaNodeOf(field, roots, []);
    const type = node && !node['x-kubernetes-int-or-string'] ? (Array.isArray(node.type) ? undefined : node.type) : undefined;
    const isNull = other.exprKind.case === 'constExpr' && other.exprKind.value.constantKind.case === 'nullValue';
    if (isNull && type && SCALARS[type]) problems.push(`no matching overload for '${fn}' applied to '(${SCALARS[type]}, null)'`);
    if (other.exprKind.case === 'structExpr' && type === 'object' && node?.properties) problems.push(`found no matching overload for '${fn}'`);
  }
}

/** Every selection of a field the schema does not declare, as the API server's type check words it; empty when none. */
export function typeProblems(expr: Expr, schema: JsonSchemaNode, isRoot = false): string[] {
  const problems: string[] = [];
  const self: JsonSchemaNode & { [ROOT]?: true } = isRoot ? { ...schema, [ROOT]: true } : schema;
  const roots = new Map([
    ['self', self],
    ['oldSelf', self],
  ]);
  const visit = (e: Expr, bound: readonly string[]): Expr => {
    // A comprehension variable named self or oldSelf hides the root below it.
    if (bound.some((b) => roots.has(b))) return e;
    if (isChain(e)) schemaNodeOf(e, roots, problems);
    if (e.exprKind.case === 'callExpr') comparisonProblem(e, roots, problems);
    mapChildren(e, visit);
    return e;
  };
  visit(expr, []);
  return [...new Set(problems)];
}
