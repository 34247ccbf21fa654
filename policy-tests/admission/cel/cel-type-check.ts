/**
 * The type of every node of a rule, and the overloads cel-go's checker
 * records for every call (checker/checker.go resolveOverload): each overload
 * whose parameters the arguments are assignable to, dyn assignable to any;
 * the result is the overload's, or dyn when the candidates' results differ.
 * `self` and `oldSelf` have the schema node's declared type (decl-type.ts).
 * A namespaced function written as a call on a name (`format.named(...)`) is
 * resolved to the global function, as the checker rewrites it. What this
 * check cannot type (a function or name it does not declare) is listed, so
 * the cost built on it says it is not judged rather than guessing. What the
 * API server's check refuses at CRD create is listed apart, in its words:
 * a field the schema does not declare (`has()` too), an object indexed, a
 * scalar compared with null, an object with a map literal, a name nothing
 * declares (a CRD's rule has self and oldSelf alone).
 */
import type { Expr } from './ast.ts';
import { simple, type CelType, type DeclType } from './decl-type.ts';
import { unescapeProperty } from './escaping.ts';
import { overloadsOf, splitTop, STRUCT_TYPES, type Overload } from './overload-table.ts';
import { FUNCTION_NAMESPACES } from './environment.ts';

export interface Checked {
  /** The deduced type of a node (dyn where none was deduced). */
  typeOf(e: Expr): CelType;
  /** The overload ids the checker records for a call. */
  overloadIds(e: Expr): readonly string[];
  /** The global function a call on a name resolves to, when it does (`format.named`). */
  resolvedFunction(e: Expr): string | undefined;
  /** The qualified name a selection chain resolves to (`google.protobuf.Duration`), as the checker rewrites it to an identifier. */
  resolvedName(e: Expr): string | undefined;
  /** What the check could not type. */
  readonly untyped: readonly string[];
  /** What the API server's type check refuses at CRD create, in its words. */
  readonly problems: readonly string[];
}

const TYPE_NAMES = new Set([
  'int',
  'uint',
  'double',
  'bool',
  'string',
  'bytes',
  'list',
  'map',
  'null_type',
  'type',
  'dyn',
  'google.protobuf.Duration',
  'google.protobuf.Timestamp',
  'net.IP',
  'net.CIDR',
  'kubernetes.URL',
  'kubernetes.Quantity',
  'kubernetes.Semver',
  'kubernetes.NamedFormat',
  'optional_type',
]);
const DYN = simple('dyn');

/** A type from a signature's spelling, with type parameters substituted (unbound: dyn). */
function typeFrom(text: string, bound: ReadonlyMap<string, CelType>): CelType {
  if (text === 'A' || text === 'B') return bound.get(text) ?? DYN;
  const open = text.indexOf('(');
  const name = open < 0 ? text : text.slice(0, open);
  const args = open < 0 ? [] : splitTop(text.slice(open + 1, -1)).map((a) => typeFrom(a, bound));
  if (name === 'list') return { kind: 'list', elem: args[0] ?? DYN };
  if (name === 'map') return { kind: 'map', key: args[0] ?? DYN, value: args[1] ?? DYN };
  if (STRUCT_TYPES.has(name)) return { kind: 'struct', name };
  if (name.includes('.') || name === 'optional_type') return { kind: 'opaque', name, params: args };
  return simple(name as 'int');
}

export function sameType(a: CelType, b: CelType): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === 'list' && b.kind === 'list') return sameType(a.elem, b.elem);
  if (a.kind === 'map' && b.kind === 'map') return sameType(a.key, b.key) && sameType(a.value, b.value);
  if (a.kind === 'struct' && b.kind === 'struct') return a.name === b.name && a.decl === b.decl;
  if (a.kind === 'opaque' && b.kind === 'opaque')
    return a.name === b.name && a.params.length === b.params.length && a.params.every((p, i) => sameType(p, b.params[i]!));
  return true;
}

const SCALAR_KINDS = new Set(['int', 'uint', 'double', 'bool', 'string', 'bytes']);

/**
 * The calls with no overload that the API server's check refuses, in its words: indexing an object, comparing a
 * scalar with null or an object with a map. Any other call this table cannot match is not judged rather than
 * refused: a gap in the table must not refuse a rule the cluster accepts.
 */
function refusedCall(fn: string, args: readonly CelType[]): string | undefined {
  const [a, b] = args;
  if (fn === '_[_]' && a?.kind === 'struct' && a.decl) return "no matching overload for '_[_]'";
  if ((fn !== '_==_' && fn !== '_!=_') || !a || !b) return undefined;
  for (const [one, other] of [
    [a, b],
    [b, a],
  ] as const) {
    if (other.kind === 'null' && SCALAR_KINDS.has(one.kind)) return `no matching overload for '${fn}' applied to '(${one.kind}, null)'`;
    if (one.kind === 'struct' && one.decl && other.kind === 'map') return `found no matching overload for '${fn}'`;
  }
  return undefined;
}

/** The more specific of two types that agree but for dyn (and null, which any reference type takes), or undefined. */
export function unify(a: CelType, b: CelType): CelType | undefined {
  // null is no scalar's value.
  if ((a.kind === 'null' && SCALAR_KINDS.has(b.kind)) || (b.kind === 'null' && SCALAR_KINDS.has(a.kind))) return undefined;
  if (a.kind === 'dyn' || b.kind === 'null') return b.kind === 'null' && a.kind !== 'dyn' ? a : b;
  if (b.kind === 'dyn' || a.kind === 'null') return a.kind === 'null' ? b : a;
  if (a.kind === 'list' && b.kind === 'list') {
    const elem = unify(a.elem, b.elem);
    return elem && { kind: 'list', elem };
  }
  if (a.kind === 'map' && b.kind === 'map') {
    const [key, value] = [unify(a.key, b.key), unify(a.value, b.value)];
    return key && value && { kind: 'map', key, value };
  }
  if (a.kind === 'opaque' && b.kind === 'opaque' && a.name === b.name && a.params.length === b.params.length) {
    const params = a.params.map((p, i) => unify(p, b.params[i]!));
    return params.every((p) => p !== undefined) ? { kind: 'opaque', name: a.name, params: params as CelType[] } : undefined;
  }
  return sameType(a, b) ? a : undefined;
}

/** Whether an argument of type `arg` is assignable to a parameter spelled `param`, binding its type parameters. */
function assignable(param: string, arg: CelType, bound: Map<string, CelType>): boolean {
  if (param === 'A' || param === 'B') {
    const had = bound.get(param);
    const joinedType = had ? unify(had, arg) : arg;
    if (!joinedType) return false;
    bound.set(param, joinedType);
    return true;
  }
  if (param === 'dyn' || arg.kind === 'dyn') return true;
  const want = typeFrom(param.replace(/\b[AB]\b/g, 'dyn'), new Map());
  if (want.kind !== arg.kind) return false;
  if (arg.kind === 'list') return assignable(innerOf(param)[0]!, arg.elem, bound);
  if (arg.kind === 'map') return assignable(innerOf(param)[0]!, arg.key, bound) && assignable(innerOf(param)[1]!, arg.value, bound);
  if (want.kind === 'opaque' && arg.kind === 'opaque')
    return want.name === arg.name && (want.params.length === 0 || assignable(innerOf(param)[0]!, arg.params[0] ?? DYN, bound));
  if (want.kind === 'struct') return (arg as { name: string }).name === want.name;
  return true;
}

const innerOf = (param: string): string[] => splitTop(param.slice(param.indexOf('(') + 1, -1));

/** A chain of names (`format`, `google.protobuf`) as one qualified name, when the node is one. */
function qualifiedName(e: Expr): string | undefined {
  if (e.exprKind.case === 'identExpr') return e.exprKind.value.name;
  if (e.exprKind.case === 'selectExpr' && !e.exprKind.value.testOnly && e.exprKind.value.operand) {
    const head = qualifiedName(e.exprKind.value.operand);
    return head === undefined ? undefined : `${head}.${e.exprKind.value.field}`;
  }
  return undefined;
}

const CONSTANT_TYPES: Record<string, CelType> = {
  int64Value: simple('int'),
  uint64Value: simple('uint'),
  doubleValue: simple('double'),
  stringValue: simple('string'),
  bytesValue: simple('bytes'),
  boolValue: simple('bool'),
  nullValue: simple('null'),
};

/**
 * `x.?f` and `x[?k]`, which the parser reads as calls of optional-syntax.ts's marks: cel-go's `_?._` and `_[?_]`,
 * an optional of what the selection or index would give.
 */
function optionalSelection(fn: string, args: readonly Expr[], types: CelType[]): { id: string; type: CelType } | undefined {
  if (fn !== '__optselect__' && fn !== '__optindex__') return undefined;
  const [operand = DYN] = types;
  const inner = operand.kind === 'opaque' && operand.name === 'optional_type' ? (operand.params[0] ?? DYN) : operand;
  let held: CelType = DYN;
  const field = args[1]?.exprKind.case === 'constExpr' ? args[1].exprKind.value.constantKind.value : undefined;
  if (inner.kind === 'map') held = inner.value;
  else if (inner.kind === 'list') held = inner.elem;
  else if (inner.kind === 'struct' && inner.decl && typeof field === 'string') held = inner.decl.fields?.get(unescapeProperty(field) ?? field)?.type ?? DYN;
  return { id: fn === '__optselect__' ? 'select_optional_field' : 'optional_index', type: { kind: 'opaque', name: 'optional_type', params: [held] } };
}

/** The common type of a literal's elements: theirs when they agree, else dyn. */
const joined = (types: CelType[]): CelType => (types.length > 0 && types.every((t) => sameType(t, types[0]!)) ? types[0]! : DYN);

class TypeChecker {
  readonly types = new Map<Expr, CelType>();
  readonly ids = new Map<Expr, string[]>();
  readonly resolved = new Map<Expr, string>();
  readonly names = new Map<Expr, string>();
  readonly untyped = new Set<string>();
  readonly problems = new Set<string>();

  private visitCall(e: Expr & { exprKind: { case: 'callExpr' } }, scope: ReadonlyMap<string, CelType>): CelType {
    const call = e.exprKind.value;
    let fn = call.function;
    let target = call.target;
    const qualified = target ? qualifiedName(target) : undefined;
    if (target && qualified !== undefined && !scope.has(qualified.split('.')[0]!) && overloadsOf(`${qualified}.${fn}`)) {
      fn = `${qualified}.${fn}`;
      target = undefined;
      this.resolved.set(e, fn);
    }
    const argTypes = [...(target ? [this.visit(target, scope)] : []), ...call.args.map((a) => this.visit(a, scope))];
    const optional = optionalSelection(fn, call.args, argTypes);
    if (optional) {
      this.ids.set(e, [optional.id]);
      return optional.type;
    }
    const overloads = overloadsOf(fn);
    if (!overloads) {
      this.untyped.add(`function ${fn}`);
      return DYN;
    }
    const chosen: string[] = [];
    let result: CelType | undefined;
    for (const o of overloads as Overload[]) {
      if (o.member !== Boolean(target) || o.params.length !== argTypes.length) continue;
      const bound = new Map<string, CelType>();
      if (!o.params.every((p, i) => assignable(p, argTypes[i]!, bound))) continue;
      chosen.push(o.id);
      const type = typeFrom(o.result, bound);
      result = result === undefined ? type : result.kind === 'dyn' || sameType(result, type) ? result : DYN;
    }
    if (chosen.length === 0) {
      const refusal = refusedCall(fn, argTypes);
      if (refusal) this.problems.add(refusal);
      else this.untyped.add(`no overload of ${fn} for its arguments`);
    }
    this.ids.set(e, chosen);
    return result ?? DYN;
  }
  private visitComprehension(e: Expr & { exprKind: { case: 'comprehensionExpr' } }, scope: ReadonlyMap<string, CelType>): CelType {
    const c = e.exprKind.value;
    const range = c.iterRange ? this.visit(c.iterRange, scope) : DYN;
    let accu = c.accuInit ? this.visit(c.accuInit, scope) : DYN;
    const inner = new Map(scope);
    inner.set(c.accuVar, accu);
    // One variable: a list's element or a map's key; two (iterVar2): a list's index and element, a map's key and value.
    if (c.iterVar2) {
      inner.set(c.iterVar, range.kind === 'list' ? simple('int') : range.kind === 'map' ? range.key : DYN);
      inner.set(c.iterVar2, range.kind === 'list' ? range.elem : range.kind === 'map' ? range.value : DYN);
    } else inner.set(c.iterVar, range.kind === 'list' ? range.elem : range.kind === 'map' ? range.key : DYN);
    if (c.loopCondition) this.visit(c.loopCondition, inner);
    const step = c.loopStep ? this.visit(c.loopStep, inner) : DYN;
    // An empty list or map literal accumulates what the step adds to it: the checker unifies the two.
    if (((accu.kind === 'list' && accu.elem.kind === 'dyn') || (accu.kind === 'map' && accu.value.kind === 'dyn')) && step.kind === accu.kind) accu = step;
    const after = new Map(scope);
    after.set(c.accuVar, accu);
    return c.result ? this.visit(c.result, after) : DYN;
  }
  private visitSelect(e: Expr & { exprKind: { case: 'selectExpr' } }, scope: ReadonlyMap<string, CelType>): CelType {
    const s = e.exprKind.value;
    const name = qualifiedName(e);
    if (name !== undefined && TYPE_NAMES.has(name) && !scope.has(name.split('.')[0]!)) {
      this.names.set(e, name);
      return simple('type');
    }
    const operand = s.operand ? this.visit(s.operand, scope) : DYN;
    // An object selects (and has() tests) only the fields its schema declares: another is refused at CRD create.
    const field = operand.kind === 'struct' && operand.decl ? operand.decl.fields?.get(unescapeProperty(s.field) ?? s.field) : undefined;
    if (operand.kind === 'struct' && operand.decl && !field) this.problems.add(`undefined field '${s.field}'`);
    if (s.testOnly) return simple('bool');
    if (operand.kind === 'map') return operand.value;
    if (operand.kind === 'struct' && operand.decl) return field?.type ?? DYN;
    if (operand.kind !== 'dyn') this.untyped.add(`field ${s.field} of ${operand.kind}`);
    return DYN;
  }
  visit(e: Expr, scope: ReadonlyMap<string, CelType>): CelType {
    const type = this.typeOfNode(e, scope);
    this.types.set(e, type);
    return type;
  }

  private typeOfNode(e: Expr, scope: ReadonlyMap<string, CelType>): CelType {
    const k = e.exprKind;
    switch (k.case) {
      case 'constExpr':
        return CONSTANT_TYPES[k.value.constantKind.case ?? ''] ?? DYN;
      case 'identExpr': {
        const known = scope.get(k.value.name);
        if (known) return known;
        if (TYPE_NAMES.has(k.value.name)) return simple('type');
        // A CRD's rule declares self and oldSelf alone: any other free name is refused at create. A function
        // namespace (math.greatest) whose function the table lacks is not judged instead.
        if (FUNCTION_NAMESPACES.has(k.value.name)) this.untyped.add(`name ${k.value.name}`);
        else this.problems.add(`undeclared reference to '${k.value.name}'`);
        return DYN;
      }
      case 'selectExpr':
        return this.visitSelect(e as never, scope);
      case 'callExpr':
        return this.visitCall(e as never, scope);
      case 'listExpr':
        return { kind: 'list', elem: joined(k.value.elements.map((x) => this.visit(x, scope))) };
      case 'structExpr': {
        if (k.value.messageName) {
          this.untyped.add(`message ${k.value.messageName}`);
          return DYN;
        }
        const keys: CelType[] = [];
        const values: CelType[] = [];
        for (const entry of k.value.entries) {
          if (entry.keyKind.case === 'mapKey') keys.push(this.visit(entry.keyKind.value, scope));
          if (entry.value) values.push(this.visit(entry.value, scope));
        }
        return { kind: 'map', key: joined(keys), value: joined(values) };
      }
      case 'comprehensionExpr':
        return this.visitComprehension(e as never, scope);
      default:
        return DYN;
    }
  }
}

export function checkTypes(expr: Expr, self: DeclType | undefined): Checked {
  const checker = new TypeChecker();
  const rootType = self?.type ?? DYN;
  if (!self) checker.untyped.add('self (its schema node is not declared to CEL)');
  checker.visit(
    expr,
    new Map([
      ['self', rootType],
      ['oldSelf', rootType],
    ]),
  );
  return {
    typeOf: (e) => checker.types.get(e) ?? DYN,
    overloadIds: (e) => checker.ids.get(e) ?? [],
    resolvedFunction: (e) => checker.resolved.get(e),
    resolvedName: (e) => checker.names.get(e),
    untyped: [...checker.untyped],
    problems: [...checker.problems],
  };
}
