/**
 * The sizes cel-go's estimator gives strings, and what it charges the string
 * functions that walk them, as the API server configures it at CRD create:
 * a schema string is as long as its maxLength times 4 (bytes, not code
 * points), its longest enum value, or a whole request (3 MiB less the
 * quotes) (k8s.io/apiserver pkg/cel/common/schemas.go); a literal is its
 * own length; `replace` makes the longest string it could, the smallest
 * substring replaced by the largest replacement as often as it fits, and
 * costs twice a walk of its receiver (pkg/cel/library/cost.go). So a rule
 * that hands replace's result to a function that walks it is refused at
 * create, as the API server refuses it, before anything is built.
 *
 * Every figure here is at most cel-go's (an unknown size is 0, a function
 * not listed costs nothing), so a cost over the limit by it is over by
 * cel-go's too.
 */
import type { Expr } from './ast.ts';
import type { JsonSchemaNode } from './schema-node.ts';
import { schemaNodeOf } from './schema-type-check.ts';

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** common.StringTraversalCostFactor */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;

export interface Size {
  min: number;
  max: number;
}

type Scope = ReadonlyMap<string, JsonSchemaNode>;

/** A string's length as CEL counts it: code points (a surrogate pair is one). */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 1; i < s.length; i++) {
    const [high, low] = [s.charCodeAt(i - 1), s.charCodeAt(i)];
    if (high >= 0xd800 && high <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) n--;
  }
  return n;
}

/** The string functions whose estimated cost is at least a walk of their receiver, by cost factor per character. */
const WALKS_RECEIVER: Readonly<Record<string, number>> = {
  replace: 2 * STRING_TRAVERSAL_COST_FACTOR,
  contains: STRING_TRAVERSAL_COST_FACTOR,
  matches: STRING_TRAVERSAL_COST_FACTOR,
  indexOf: STRING_TRAVERSAL_COST_FACTOR,
  lastIndexOf: STRING_TRAVERSAL_COST_FACTOR,
  lowerAscii: STRING_TRAVERSAL_COST_FACTOR,
  upperAscii: STRING_TRAVERSAL_COST_FACTOR,
  trim: STRING_TRAVERSAL_COST_FACTOR,
  split: STRING_TRAVERSAL_COST_FACTOR,
  find: STRING_TRAVERSAL_COST_FACTOR,
  findAll: STRING_TRAVERSAL_COST_FACTOR,
};

/** A schema string's size estimate (estimateMaxStringLengthPerRequest and its neighbours). */
function schemaStringSize(s: JsonSchemaNode): Size | undefined {
  if (s['x-kubernetes-int-or-string']) return { min: 0, max: MAX_REQUEST_BYTES - 2 };
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type !== 'string' || ['duration', 'date', 'date-time', 'byte'].includes(String(s.format ?? ''))) return undefined;
  if (typeof s.maxLength === 'number') return { min: 0, max: Math.max(0, s.maxLength) * 4 };
  const strings = Array.isArray(s.enum) ? (s.enum as unknown[]).filter((v): v is string => typeof v === 'string') : [];
  if (strings.length) return { min: 0, max: Math.max(...strings.map((v) => Buffer.byteLength(v))) };
  return { min: 0, max: MAX_REQUEST_BYTES - 2 };
}

/** The size of the string `replace` makes (cost.go's "replace" size estimate, both ends). */
function replacedSize(sz: Size, toReplace: Size, replaceWith: Size): Size {
  let [countMax, retainedMax, countMin, retainedMin] = [0, 0, 0, 0];
  if (toReplace.min === 0) [countMax, retainedMax] = [sz.max + 1, sz.max];
  else if (replaceWith.max <= toReplace.min) [countMax, retainedMax] = [0, sz.max];
  else countMax = Math.ceil(sz.max / toReplace.min);
  if (toReplace.max === 0) [countMin, retainedMin] = [sz.min + 1, sz.min];
  else if (toReplace.max <= replaceWith.min) [countMin, retainedMin] = [0, sz.min];
  else countMin = Math.ceil(sz.min / toReplace.max);
  return { min: countMin * replaceWith.min + retainedMin, max: countMax * replaceWith.max + retainedMax };
}

/** cel-go's size estimate of a string-valued expression, where it is one this module can see; undefined otherwise. */
export function stringSize(e: Expr, scope: Scope): Size | undefined {
  const kind = e.exprKind;
  if (kind.case === 'constExpr' && kind.value.constantKind.case === 'stringValue') {
    const n = codePoints(kind.value.constantKind.value);
    return { min: n, max: n };
  }
  if (kind.case === 'callExpr') {
    const { function: fn, target, args } = kind.value;
    if (fn === 'replace' && target && args.length >= 2) {
      const [sz, from, to] = [stringSize(target, scope), stringSize(args[0]!, scope), stringSize(args[1]!, scope)];
      // An unknown piece is sized by what is known of it: nothing (a lower bound).
      return sz ? replacedSize(sz, from ?? { min: 0, max: 0 }, to ?? { min: 0, max: 0 }) : undefined;
    }
    if (fn === '_+_' && args.length === 2) {
      const [a, b] = [stringSize(args[0]!, scope), stringSize(args[1]!, scope)];
      return a && b ? { min: a.min + b.min, max: a.max + b.max } : undefined;
    }
    return undefined;
  }
  if (kind.case === 'identExpr' || kind.case === 'selectExpr') {
    const node = schemaNodeOf(e, scope);
    return node ? schemaStringSize(node) : undefined;
  }
  return undefined;
}

/** What cel-go charges at least for this call's walk of its receiver string (0 where this module cannot say). */
export function stringCallCost(e: Expr, scope: Scope): number {
  if (e.exprKind.case !== 'callExpr') return 0;
  const { function: fn, target, args } = e.exprKind.value;
  const factor = WALKS_RECEIVER[fn];
  // The global form of matches takes its string first.
  const receiver = target ?? (fn === 'matches' && args.length === 2 ? args[0] : undefined);
  if (factor === undefined || !receiver) return 0;
  const size = stringSize(receiver, scope);
  return size ? Math.ceil(size.max * factor) : 0;
}
