/**
 * Falco's conditions, parsed as Falco parses them (condition-parser.ts, a port of libsinsp's filter parser), and the
 * walks the tuning checks make over them: the top-level alternatives, what a conjunction pins, every node.
 */
import { FIELD_NAME_PATTERN, parseFalcoCondition, type Expr } from './condition-parser.ts';

export { ConditionSyntaxError, type Expr } from './condition-parser.ts';

/** Each condition's tree (or its refusal), once per text: the tuning checks and the exemptions read the same conditions. Never mutated. */
const parsed = new Map<string, Expr | Error>();

export function parseCondition(source: string): Expr {
  let result = parsed.get(source);
  if (result === undefined) {
    try {
      result = parseFalcoCondition(source);
    } catch (err) {
      result = err as Error;
    }
    parsed.set(source, result);
  }
  if (result instanceof Error) throw result;
  return result;
}

/** The name an appended fragment's upstream condition goes by: a macro name Falco's grammar takes (a letter first). */
export const UPSTREAM = 'upstream__';

/** Parses an appended fragment (`and not (...)`) by giving it a left-hand side to attach to. */
export function parseAppend(fragment: string): Expr {
  return parseCondition(`${UPSTREAM} ${fragment}`);
}

export function unwrap(expr: Expr): Expr {
  return expr.kind === 'group' ? unwrap(expr.expr) : expr;
}

/** The top-level alternatives of an expression (`a or b or c` gives three). */
export function disjuncts(expr: Expr): Expr[] {
  const e = unwrap(expr);
  return e.kind === 'or' ? [...disjuncts(e.left), ...disjuncts(e.right)] : [e];
}

/** Every comparison reachable through `and` and groups: what a conjunction pins. */
export function pinned(expr: Expr): Expr[] {
  const e = unwrap(expr);
  if (e.kind === 'and') return [...pinned(e.left), ...pinned(e.right)];
  return [e];
}

/** Every node of the tree, for searches such as "which lists are referenced". */
export function* walk(expr: Expr): Generator<Expr> {
  yield expr;
  if (expr.kind === 'and' || expr.kind === 'or') {
    yield* walk(expr.left);
    yield* walk(expr.right);
  } else if (expr.kind === 'not' || expr.kind === 'group') yield* walk(expr.expr);
}

/** A field's name with the argument that follows it, inside a field's or a transformer's text. */
const FIELD_WITH_ARG = new RegExp(`${FIELD_NAME_PATTERN}(?:\\[[^\\]]*\\])?`, 'g');

/**
 * The fields a condition reads, each as written with its argument (`proc.aname[2]`): those its checks test, and those
 * a right-hand side reads through `val()` or a transformer. A list's or a value's text is no field.
 */
export function fieldsOf(expr: Expr): string[] {
  const out: string[] = [];
  const take = (text: string) => {
    // A field inside a transformer or val(): each name, with the argument that follows it.
    for (const m of text.matchAll(FIELD_WITH_ARG)) out.push(m[0]);
  };
  for (const node of walk(expr)) {
    if (node.kind === 'compare' || node.kind === 'unary' || node.kind === 'list') take(node.field);
    if (node.kind === 'compare' && node.valueIsField) take(node.value);
  }
  return out;
}
