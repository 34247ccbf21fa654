/**
 * Rewriting a parsed CEL expression (the engine's protobuf AST) in place:
 * replacing free identifiers by fresh subtrees, and visiting every child.
 * Two-variable comprehensions, optional syntax and the optional macros are
 * rewritten with these into what the engine evaluates.
 */
type Cel = typeof import('@bufbuild/cel');
export type Expr = ReturnType<Cel['parse']>['expr'] & object;

/** Replaces each child of `e` by what `f` makes of it (comprehension parts with their scope's bindings), in place. */
export function mapChildren(e: Expr, f: (child: Expr, bound: readonly string[]) => Expr): void {
  const kind = e.exprKind;
  if (kind.case === 'comprehensionExpr') {
    const c = kind.value;
    if (c.iterRange) c.iterRange = f(c.iterRange, []);
    if (c.accuInit) c.accuInit = f(c.accuInit, []);
    const bound = [c.iterVar, c.accuVar];
    for (const part of ['loopCondition', 'loopStep', 'result'] as const) if (c[part]) c[part] = f(c[part], bound);
  } else if (kind.case === 'callExpr') {
    if (kind.value.target) kind.value.target = f(kind.value.target, []);
    kind.value.args = kind.value.args.map((a) => f(a, []));
  } else if (kind.case === 'selectExpr' && kind.value.operand) kind.value.operand = f(kind.value.operand, []);
  else if (kind.case === 'listExpr') kind.value.elements = kind.value.elements.map((x) => f(x, []));
  else if (kind.case === 'structExpr')
    for (const entry of kind.value.entries) {
      if (entry.keyKind.case === 'mapKey') entry.keyKind.value = f(entry.keyKind.value, []);
      if (entry.value) entry.value = f(entry.value, []);
    }
}

/** Replaces every free occurrence of the named identifiers by a fresh subtree (a comprehension that binds one shadows it). */
export function replaceIdents(e: Expr, by: ReadonlyMap<string, () => Expr>): Expr {
  if (e.exprKind.case === 'identExpr') return by.get(e.exprKind.value.name)?.() ?? e;
  mapChildren(e, (child, bound) => replaceIdents(child, bound.length ? new Map([...by].filter(([n]) => !bound.includes(n))) : by));
  return e;
}

/** The identifier's name, when the node is one. */
export const identName = (e: Expr | undefined): string | undefined => (e?.exprKind.case === 'identExpr' ? e.exprKind.value.name : undefined);
