/**
 * The overloads cel-go's type check refuses at compile time, where the
 * argument's type is plain in the text: the Kubernetes constructors and
 * predicates that take a string (isIP, ip, isCIDR, cidr, isQuantity,
 * quantity, isSemver, semver, isURL, url) given a list, a map, a number, a
 * bool, or the value of another constructor (`isIP(cidr(...))`). A value
 * whose type only the schema knows is not judged here (the schema type
 * check, cel-type-check.ts, follows fields).
 */
import { mapChildren, type Expr } from './ast.ts';

const TAKES_STRING = new Set(['isIP', 'ip', 'isCIDR', 'cidr', 'isQuantity', 'quantity', 'isSemver', 'semver', 'isURL', 'url']);
/** The type a constructor's value has, as cel-go names it. */
const CONSTRUCTS: Readonly<Record<string, string>> = {
  ip: 'net.IP',
  cidr: 'net.CIDR',
  quantity: 'kubernetes.Quantity',
  semver: 'kubernetes.Semver',
  url: 'kubernetes.URL',
};

/** The type of an argument, when the text alone says it; undefined when only evaluation (or the schema) could. */
function plainType(e: Expr): string | undefined {
  const kind = e.exprKind;
  if (kind.case === 'listExpr') return 'list';
  if (kind.case === 'structExpr') return 'map';
  if (kind.case === 'constExpr') {
    const c = kind.value.constantKind.case;
    return c === 'stringValue'
      ? 'string'
      : c === 'int64Value'
        ? 'int'
        : c === 'uint64Value'
          ? 'uint'
          : c === 'doubleValue'
            ? 'double'
            : c === 'boolValue'
              ? 'bool'
              : undefined;
  }
  if (kind.case === 'callExpr' && !kind.value.target) return CONSTRUCTS[kind.value.function];
  return undefined;
}

/** Every call of a string-taking function on an argument plainly of another type, in cel-go's words. */
export function overloadProblems(expr: Expr): string[] {
  const problems: string[] = [];
  const visit = (e: Expr): Expr => {
    if (e.exprKind.case === 'callExpr' && !e.exprKind.value.target && TAKES_STRING.has(e.exprKind.value.function)) {
      const arg = e.exprKind.value.args[0];
      const type = arg && plainType(arg);
      if (type && type !== 'string') problems.push(`found no matching overload for '${e.exprKind.value.function}' applied to '(${type})'`);
    }
    mapChildren(e, visit);
    return e;
  };
  visit(expr);
  return problems;
}
