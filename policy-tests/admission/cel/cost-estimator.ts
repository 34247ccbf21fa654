/**
 * cel-go's static cost estimate of a rule (checker/cost.go), as the API
 * server runs it at CRD create: walked node by node over the checked rule
 * (cel-type-check.ts), each call costed by the overloads the checker chose,
 * Kubernetes' call costs first (kubernetes-call-costs.ts), sizes from the
 * literals, from what earlier calls made, and from the schema by path
 * (apiextensions' sizeEstimator over decl-type.ts). Presence tests cost
 * nothing, as the API server configures it (PresenceTestHasCost(false)).
 * Ported to follow upstream line by line, Go's names kept where they help a
 * reader hold the two side by side.
 */
import type { Expr } from './ast.ts';
import type { Checked } from './cel-type-check.ts';
import type { CelType, DeclType } from './decl-type.ts';
import { add, COST, fixed, multiply, sum, union, UNKNOWN, ZERO, type EntrySize, type Estimate, MAX_UINT64 } from './estimates.ts';
import { codePoints } from './string-costs.ts';
import { unescapeProperty } from './escaping.ts';
import { celGoCallCost } from './cel-go-call-costs.ts';
import { extensionCallCost } from './extension-call-costs.ts';
import { kubernetesCallCost, type AstNode, type CallEstimate } from './kubernetes-call-costs.ts';

const ACCUMULATORS = new Set(['__result__', '@result']);

interface LocalVar {
  path: readonly string[];
  size?: Estimate;
  entrySize?: EntrySize;
}

const isScalar = (t: CelType): boolean =>
  ['bool', 'double', 'duration', 'int', 'timestamp', 'uint'].includes(t.kind) ||
  (t.kind === 'opaque' && t.name === 'optional_type' && t.params[0] !== undefined && isScalar(t.params[0]));

/** A literal's own size: a string's code points, a bytes' length, a list's or map's entries, 1 for a scalar. */
function computeExprSize(e: Expr): Estimate | undefined {
  const k = e.exprKind;
  if (k.case === 'listExpr') return fixed(k.value.elements.length);
  if (k.case === 'structExpr' && !k.value.messageName) return fixed(k.value.entries.length);
  if (k.case !== 'constExpr') return undefined;
  const c = k.value.constantKind;
  if (c.case === 'stringValue') return fixed(codePoints(c.value));
  if (c.case === 'bytesValue') return fixed(c.value.length);
  return c.case === undefined ? undefined : fixed(1);
}

/** apiextensions' sizeEstimator: the declared node a path reaches from the rule's node, and its most elements. */
function sizeByPath(root: DeclType | undefined, path: readonly string[]): Estimate | undefined {
  if (path.length === 0 || !root) return undefined;
  let node: DeclType | undefined = root;
  for (const name of path.slice(1)) {
    if (name === '@items' || name === '@values') node = node.elem;
    else if (name === '@keys') node = node.key;
    // A path names a field as the rule spells it (`__namespace__`); the declaration keeps the property's name.
    else node = node.fields?.get(unescapeProperty(name) ?? name);
    if (!node) return undefined;
  }
  return { min: 0n, max: node.maxElements };
}

class Coster {
  private readonly exprPaths = new Map<Expr, readonly string[]>();
  private readonly localVars = new Map<string, LocalVar[]>();
  private readonly computedSizes = new Map<Expr, Estimate>();
  private readonly computedEntrySizes = new Map<Expr, EntrySize>();

  private readonly checked: Checked;
  private readonly root: DeclType | undefined;

  constructor(checked: Checked, root: DeclType | undefined) {
    this.checked = checked;
    this.root = root;
  }

  private readonly estimateSize = (node: AstNode): Estimate | undefined => sizeByPath(this.root, node.path);

  cost(e: Expr | undefined): Estimate {
    if (!e) return ZERO;
    switch (e.exprKind.case) {
      case 'constExpr':
        return fixed(COST.constant);
      case 'identExpr': {
        const v = this.peek(e.exprKind.value.name);
        this.exprPaths.set(e, v ? v.path : [e.exprKind.value.name]);
        return fixed(COST.selectAndIdent);
      }
      case 'selectExpr': {
        // A qualified name is an identifier to the checker (a type name such as google.protobuf.Duration).
        const name = this.checked.resolvedName(e);
        if (name === undefined) return this.costSelect(e as never);
        this.exprPaths.set(e, [name]);
        return fixed(COST.selectAndIdent);
      }
      case 'callExpr':
        return this.costCall(e as never);
      case 'listExpr':
        return this.costCreateList(e as never);
      case 'structExpr':
        return e.exprKind.value.messageName ? this.costCreateStruct(e as never) : this.costCreateMap(e as never);
      case 'comprehensionExpr':
        return this.isBind(e as never) ? this.costBind(e as never) : this.costComprehension(e as never);
      default:
        return ZERO;
    }
  }

  private peek(name: string): LocalVar | undefined {
    return this.localVars.get(name)?.at(-1);
  }

  private push(name: string, v: LocalVar): void {
    this.localVars.set(name, [...(this.localVars.get(name) ?? []), v]);
  }

  private pop(name: string): void {
    this.localVars.get(name)?.pop();
  }

  private getPath(e: Expr): readonly string[] {
    if (e.exprKind.case === 'identExpr') {
      const v = this.peek(e.exprKind.value.name);
      if (v) return v.path;
    }
    return this.exprPaths.get(e) ?? [];
  }

  private costSelect(e: Expr & { exprKind: { case: 'selectExpr' } }): Estimate {
    const sel = e.exprKind.value;
    // A presence test costs nothing of its own at CRD create.
    if (sel.testOnly) return this.cost(sel.operand);
    let total = this.cost(sel.operand);
    const target = sel.operand ? this.checked.typeOf(sel.operand) : undefined;
    if (target && (target.kind === 'map' || target.kind === 'struct')) total = add(total, fixed(COST.selectAndIdent));
    this.exprPaths.set(e, [...(sel.operand ? this.getPath(sel.operand) : []), sel.field]);
    return total;
  }

  private newAstNode(e: Expr): AstNode {
    let path = this.getPath(e);
    if (path.length > 0 && ACCUMULATORS.has(path[0]!)) path = [];
    const computedSize = this.computeSize(e);
    return { path, type: this.checked.typeOf(e), expr: e, ...(computedSize ? { computedSize } : {}) };
  }

  private costCall(e: Expr & { exprKind: { case: 'callExpr' } }): Estimate {
    const call = e.exprKind.value;
    const fn = this.checked.resolvedFunction(e) ?? call.function;
    const targetExpr = this.checked.resolvedFunction(e) ? undefined : call.target;
    if (fn === 'dyn' && call.args[0]) {
      const argCost = this.cost(call.args[0]);
      this.copySizeEstimates(e, call.args[0]);
      return add(fixed(1), argCost);
    }
    const argCosts = call.args.map((a) => this.cost(a));
    const args = call.args.map((a) => this.newAstNode(a));
    const overloadIds = this.checked.overloadIds(e);
    if (overloadIds.length === 0) return ZERO;
    let total = ZERO;
    let target: AstNode | undefined;
    if (targetExpr) {
      total = add(total, this.cost(targetExpr));
      target = this.newAstNode(targetExpr);
    }
    let fnCost: Estimate = { min: MAX_UINT64, max: 0n };
    let resultSize: Estimate | undefined;
    for (const overload of overloadIds) {
      const o = this.functionCost(e, { fn, overload, target, args, argCosts });
      fnCost = union(fnCost, o);
      if (o.resultSize) resultSize = resultSize ? union(resultSize, o.resultSize) : o.resultSize;
      if ((overload === 'index_list' || overload === 'index_map') && call.args[0]) {
        resultSize = this.computeEntrySize(call.args[0])?.val;
        this.exprPaths.set(e, [...this.getPath(call.args[0]), overload === 'index_list' ? '@items' : '@values']);
      }
      resultSize ??= this.computeSize(e);
    }
    if (resultSize) this.computedSizes.set(e, resultSize);
    return add(total, fnCost);
  }

  private costCreateList(e: Expr & { exprKind: { case: 'listExpr' } }): Estimate {
    const elements = e.exprKind.value.elements;
    let total = ZERO;
    let itemSize: Estimate = { min: elements.length === 0 ? 0n : MAX_UINT64, max: 0n };
    for (const x of elements) {
      total = add(total, this.cost(x));
      itemSize = union(itemSize, this.sizeOrUnknown(x));
    }
    this.computedEntrySizes.set(e, { container: 'list', key: fixed(1), val: itemSize });
    return add(total, fixed(COST.listCreateBase));
  }

  private costCreateMap(e: Expr & { exprKind: { case: 'structExpr' } }): Estimate {
    const entries = e.exprKind.value.entries;
    let total = ZERO;
    const empty = entries.length === 0;
    let keySize: Estimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
    let valSize: Estimate = { min: empty ? 0n : MAX_UINT64, max: 0n };
    for (const entry of entries) {
      const key = entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined;
      total = add(add(total, this.cost(key)), this.cost(entry.value));
      keySize = union(keySize, key ? this.sizeOrUnknown(key) : UNKNOWN);
      valSize = union(valSize, entry.value ? this.sizeOrUnknown(entry.value) : UNKNOWN);
    }
    this.computedEntrySizes.set(e, { container: 'map', key: keySize, val: valSize });
    return add(total, fixed(COST.mapCreateBase));
  }

  private costCreateStruct(e: Expr & { exprKind: { case: 'structExpr' } }): Estimate {
    return add(sum(e.exprKind.value.entries.map((entry) => this.cost(entry.value))), fixed(COST.structCreateBase));
  }

  private rangeEntry(range: Expr): { path: readonly string[]; entry: EntrySize | undefined; container: string } {
    const entry = this.computeEntrySize(range);
    return { path: this.getPath(range), entry, container: entry?.container ?? this.checked.typeOf(range).kind };
  }

  private costComprehension(e: Expr & { exprKind: { case: 'comprehensionExpr' } }): Estimate {
    const c = e.exprKind.value;
    let total = add(this.cost(c.iterRange), this.cost(c.accuInit));
    this.pushLocalVar(c.accuVar, c.accuInit);
    if (c.iterRange) {
      const { path, entry, container } = this.rangeEntry(c.iterRange);
      const isList = container === 'list';
      const bind = (name: string, sub: string, size: Estimate | undefined) => this.push(name, { path: [...path, sub], ...(size ? { size } : {}) });
      if (c.iterVar2) {
        // pushIterKey and pushIterValue: a list's index and item, a map's key and value.
        bind(c.iterVar, isList ? '@indices' : '@keys', entry?.key);
        bind(c.iterVar2, isList ? '@items' : '@values', entry?.val);
      } else bind(c.iterVar, isList ? '@items' : '@keys', isList ? entry?.val : entry?.key);
    }
    const loopCost = this.cost(c.loopCondition);
    const stepCost = this.cost(c.loopStep);
    this.pop(c.iterVar);
    if (c.iterVar2) this.pop(c.iterVar2);
    total = add(total, this.cost(c.result));
    this.pop(c.accuVar);
    const rangeCount = c.iterRange ? this.sizeOrUnknown(c.iterRange) : ZERO;
    total = add(total, multiply(rangeCount, add(stepCost, loopCost)));
    const init = c.accuInit?.exprKind.case;
    if (init === 'constExpr') {
      const size = c.accuInit ? this.computeSize(c.accuInit) : undefined;
      if (size) this.computedSizes.set(e, size);
    } else if (init === 'listExpr' || init === 'structExpr') {
      this.computedSizes.set(e, rangeCount);
      const stepEntry = c.loopStep ? this.computeEntrySize(c.loopStep) : undefined;
      if (stepEntry) this.computedEntrySizes.set(e, stepEntry);
    }
    return total;
  }

  private isBind(e: Expr & { exprKind: { case: 'comprehensionExpr' } }): boolean {
    const c = e.exprKind.value;
    const cond = c.loopCondition?.exprKind;
    return (
      c.iterRange?.exprKind.case === 'listExpr' &&
      c.iterRange.exprKind.value.elements.length === 0 &&
      cond?.case === 'constExpr' &&
      cond.value.constantKind.case === 'boolValue' &&
      cond.value.constantKind.value === false &&
      c.accuVar !== '__result__'
    );
  }

  private costBind(e: Expr & { exprKind: { case: 'comprehensionExpr' } }): Estimate {
    const c = e.exprKind.value;
    let total = add(this.cost(c.iterRange), this.cost(c.accuInit));
    this.pushLocalVar(c.accuVar, c.accuInit);
    total = add(total, this.cost(c.result));
    this.pop(c.accuVar);
    if (c.result) this.copySizeEstimates(e, c.result);
    return total;
  }

  private pushLocalVar(name: string, e: Expr | undefined): void {
    if (!e) return this.push(name, { path: [] });
    const size = this.computeSize(e);
    const entrySize = this.computeEntrySize(e);
    this.push(name, { path: this.getPath(e), ...(size ? { size } : {}), ...(entrySize ? { entrySize } : {}) });
  }

  private functionCost(e: Expr, call: { fn: string; overload: string; target: AstNode | undefined; args: AstNode[]; argCosts: Estimate[] }): CallEstimate {
    const { fn, overload, target, args, argCosts } = call;
    // cel-go's extensions register their estimates first, then the API server's library speaks, then cel-go itself.
    const sized = (n: AstNode) => n.computedSize ?? this.estimateSize(n) ?? UNKNOWN;
    const extension = extensionCallCost(overload, { target, args }, sized);
    if (extension) return { ...add(extension, sum(argCosts)), ...(extension.resultSize ? { resultSize: extension.resultSize } : {}) };
    const k8s = kubernetesCallCost({ fn, overload, target, args }, this.estimateSize);
    if (k8s) return { ...add(k8s, sum(argCosts)), ...(k8s.resultSize ? { resultSize: k8s.resultSize } : {}) };
    return celGoCallCost(
      { overload, target, args, argCosts },
      {
        sizeOrUnknown: (n) => this.sizeOrUnknown(n),
        entrySize: (x) => (x ? this.computeEntrySize(x) : undefined),
        setEntrySize: (entry) => this.computedEntrySizes.set(e, entry),
      },
    );
  }

  private sizeOrUnknown(node: Expr | AstNode): Estimate {
    if ('exprKind' in node) return this.computeSize(node) ?? UNKNOWN;
    return node.computedSize ?? UNKNOWN;
  }

  private copySizeEstimates(dst: Expr, src: Expr): void {
    const size = this.computeSize(src);
    if (size) this.computedSizes.set(dst, size);
    const entry = this.computeEntrySize(src);
    if (entry) this.computedEntrySizes.set(dst, entry);
  }

  private computeSize(e: Expr): Estimate | undefined {
    const known = this.computedSizes.get(e);
    if (known) return known;
    const own = computeExprSize(e);
    if (own) return own;
    const byPath = this.estimateSize({ path: this.getPath(e), type: this.checked.typeOf(e), expr: e });
    if (byPath) {
      this.computedSizes.set(e, byPath);
      return byPath;
    }
    if (isScalar(this.checked.typeOf(e))) return fixed(1);
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.size;
    return undefined;
  }

  private computeEntrySize(e: Expr): EntrySize | undefined {
    const known = this.computedEntrySizes.get(e);
    if (known) return known;
    if (e.exprKind.case === 'identExpr') return this.peek(e.exprKind.value.name)?.entrySize;
    return undefined;
  }
}

export interface CostEstimate {
  /** cel-go's estimated maximum cost. */
  max: bigint;
  /** What the type check could not type: the estimate is then not the API server's. */
  untyped: readonly string[];
}

/** The estimated cost of a checked rule at its schema node, as the API server's CRD create computes it. */
export function estimateCost(expr: Expr, checked: Checked, self: DeclType | undefined): CostEstimate {
  return { max: new Coster(checked, self).cost(expr).max, untyped: checked.untyped };
}
