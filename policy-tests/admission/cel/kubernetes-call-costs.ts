/**
 * What Kubernetes' CEL libraries charge a call at CRD create
 * (k8s.io/apiserver pkg/cel/library/cost.go EstimateCallCost), consulted by
 * cel-go's estimator before its own table (cost-estimator.ts): list
 * functions by their length and elements, string functions by the strings
 * they walk (replace's result sized as the longest it could make), regexes
 * by pattern and subject, IPs, CIDRs, quantities and semver by their text,
 * and equality of the library's types at a fixed cost. Undefined where the
 * library leaves the call to cel-go. The authorizer's selectors are not
 * here: a CRD's environment does not declare them.
 */
import type { Expr } from './ast.ts';
import type { CelType } from './decl-type.ts';
import { sameType } from './cel-type-check.ts';
import { add, COST, fixed, MAX_UINT64, multiply, multiplyByFactor, UNKNOWN, union, type Estimate } from './estimates.ts';

export interface AstNode {
  /** The field path from a variable (its first element) through '@items', '@keys' and '@values'. */
  path: readonly string[];
  type: CelType;
  expr?: Expr;
  computedSize?: Estimate;
}

export type CallEstimate = Estimate & { resultSize?: Estimate };

/** pkg/cel/limits.go */
const MAX_FORMAT_SIZE = 64n;
const MAX_NAME_FORMAT_REGEX_SIZE = 128;

const FIXED_ONE = new Set([
  'serviceAccount',
  'path',
  'group',
  'resource',
  'subresource',
  'namespace',
  'name',
  'allowed',
  'reason',
  'error',
  'errored',
  'masked',
  'prefixLength',
  'family',
  'isUnspecified',
  'isLoopback',
  'isLinkLocalMulticast',
  'isLinkLocalUnicast',
  'isGlobalUnicast',
  'format.named',
  'sign',
  'asInteger',
  'isInteger',
  'asApproximateFloat',
  'isGreaterThan',
  'isLessThan',
  'compareTo',
  'add',
  'sub',
  'major',
  'minor',
  'patch',
  'getScheme',
  'getHostname',
  'getHost',
  'getPort',
  'getEscapedPath',
  'getQuery',
]);
const WALK_ARGUMENT = new Set(['cidr', 'isIP', 'isCIDR', 'quantity', 'isQuantity', 'semver', 'isSemver']);
const O1_EQUAL_STRUCTS = new Set(['kubernetes.Quantity', 'kubernetes.Semver']);
const IP_SIZE: Estimate = { min: 4n, max: 16n };

type SizeEstimator = (node: AstNode) => Estimate | undefined;

interface Call {
  fn: string;
  overload: string;
  target: AstNode | undefined;
  args: AstNode[];
}

/** The list's element, typed and pathed as listElementNode makes it: a list's item, a map's key. */
function elementNode(list: AstNode): AstNode | undefined {
  const t = list.type;
  const param = t.kind === 'list' ? t.elem : t.kind === 'map' ? t.key : t.kind === 'opaque' ? t.params[0] : undefined;
  return param ? { path: list.path.length > 0 ? [...list.path, '@items'] : [], type: param } : undefined;
}

export function kubernetesCallCost(call: Call, estimateSize: SizeEstimator): CallEstimate | undefined {
  const { fn, overload, target, args } = call;
  const size = (n: AstNode): Estimate => n.computedSize ?? estimateSize(n) ?? UNKNOWN;
  const walk = (n: AstNode, factor: number = COST.stringTraversalFactor) => multiplyByFactor(size(n), factor);
  if (fn === 'check') return fixed(350000);
  if (FIXED_ONE.has(fn)) return fixed(1);
  switch (fn) {
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
    case 'includes': {
      if (!target) return undefined;
      const el = elementNode(target);
      if (el) {
        let elCost = fixed(1);
        if (el.type.kind === 'string' || el.type.kind === 'bytes') elCost = add(elCost, walk(el));
        return multiply(size(target), elCost);
      }
      return fn === 'includes' ? multiply(size(target), fixed(1)) : walk(target);
    }
    case 'url':
    case 'jsonpatch.escapeKey':
      return args.length === 1 ? { ...walk(args[0]!), resultSize: size(args[0]!) } : undefined;
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return target ? { ...walk(target), resultSize: size(target) } : undefined;
    case 'replace':
      return target && args.length >= 2 ? replaceCost(size(target), size(args[0]!), size(args[1]!)) : undefined;
    case 'split': {
      if (!target) return undefined;
      const sz = size(target);
      const limit = args[1]?.expr?.exprKind;
      const max = limit?.case === 'constExpr' && limit.value.constantKind.case === 'int64Value' ? BigInt.asUintN(64, limit.value.constantKind.value) : sz.max;
      return { ...walk(target, 2 * COST.stringTraversalFactor), resultSize: { min: 0n, max } };
    }
    case 'join':
      return target ? joinCost(target, args[0], size) : undefined;
    case 'find':
    case 'findAll': {
      if (!target || args.length < 1) return undefined;
      const sz = size(target);
      const strCost = multiplyByFactor(add(sz, fixed(1)), COST.stringTraversalFactor);
      return { ...multiply(strCost, walk(args[0]!, COST.regexStringLengthFactor)), resultSize: { min: 0n, max: sz.max } };
    }
    case 'ip':
      if (overload === 'cidr_ip') return fixed(1);
      return args.length >= 1 ? walk(args[0]!) : undefined;
    case 'ip.isCanonical':
      return args.length >= 1 ? walk(args[0]!, 2 * COST.stringTraversalFactor) : undefined;
    case 'containsIP': {
      if (args.length < 1) return undefined;
      const cost = multiplyByFactor(add(IP_SIZE, IP_SIZE), COST.stringTraversalFactor);
      return overload === 'cidr_contains_ip_string' ? add(cost, walk(args[0]!)) : cost;
    }
    case 'containsCIDR': {
      if (args.length < 1) return undefined;
      let cost = multiplyByFactor(add(IP_SIZE, IP_SIZE), COST.stringTraversalFactor);
      cost = add(add(cost, multiplyByFactor(IP_SIZE, COST.stringTraversalFactor)), fixed(1));
      return overload === 'cidr_contains_cidr_string' ? add(cost, walk(args[0]!)) : cost;
    }
    case 'validate':
      return args.length >= 1 ? multiplyByFactor(walk(args[0]!), MAX_NAME_FORMAT_REGEX_SIZE * COST.regexStringLengthFactor) : undefined;
    case '_==_':
      return args.length === 2 ? equalityCost(args[0]!, args[1]!) : undefined;
  }
  if (WALK_ARGUMENT.has(fn)) return args.length >= 1 ? walk(args[0]!) : undefined;
  return undefined;
}

/** The longest string replace could make: the smallest substring replaced by the largest replacement, as often as fits. */
function replaceCost(sz: Estimate, toReplace: Estimate, replaceWith: Estimate): CallEstimate {
  const count: Estimate = { min: 0n, max: 0n };
  const retained: Estimate = { min: 0n, max: 0n };
  if (toReplace.min === 0n) {
    count.max = sz.max < MAX_UINT64 ? sz.max + 1n : sz.max;
    retained.max = sz.max;
  } else if (replaceWith.max <= toReplace.min) retained.max = sz.max;
  else count.max = BigInt(Math.ceil(Number(sz.max) / Number(toReplace.min)));
  if (toReplace.max === 0n) {
    count.min = sz.min < MAX_UINT64 ? sz.min + 1n : sz.min;
    retained.min = sz.min;
  } else if (toReplace.max <= replaceWith.min) retained.min = sz.min;
  else count.min = BigInt(Math.ceil(Number(sz.min) / Number(toReplace.max)));
  const resultSize = add(multiply(count, replaceWith), retained);
  return { ...multiplyByFactor(sz, 2 * COST.stringTraversalFactor), resultSize };
}

function joinCost(target: AstNode, separator: AstNode | undefined, size: (n: AstNode) => Estimate): CallEstimate {
  const listSize = size(target);
  const el = elementNode(target);
  let sz: Estimate = el ? multiply(listSize, size(el)) : { min: 0n, max: 0n };
  if (separator) {
    const separators = { min: listSize.min > 0n ? listSize.min - 1n : 0n, max: listSize.max > 0n ? listSize.max - 1n : 0n };
    sz = add(sz, multiply(size(separator), separators));
  }
  return { ...multiplyByFactor(sz, COST.stringTraversalFactor), resultSize: sz };
}

/** Equality of two values of one Kubernetes type: IPs, CIDRs, quantities and semver at 1; URLs by their text. */
function equalityCost(lhs: AstNode, rhs: AstNode): CallEstimate | undefined {
  if (!sameType(lhs.type, rhs.type)) return undefined;
  const t = lhs.type;
  if (t.kind === 'opaque' && (t.name === 'net.IP' || t.name === 'net.CIDR')) return fixed(1);
  if (t.kind !== 'struct') return undefined;
  if (O1_EQUAL_STRUCTS.has(t.name)) return fixed(1);
  if (t.name === 'kubernetes.NamedFormat') return multiplyByFactor({ min: 1n, max: MAX_FORMAT_SIZE }, COST.stringTraversalFactor);
  if (t.name === 'kubernetes.URL') {
    // Upstream reads the right-hand side's size twice; kept as it is.
    const both = rhs.computedSize ? union(rhs.computedSize, rhs.computedSize) : fixed(1);
    return multiplyByFactor({ min: 1n, max: both.max }, COST.stringTraversalFactor);
  }
  return undefined;
}
