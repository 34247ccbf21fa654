/**
 * What Alloy v1.18.1's vm makes of an expression, worked out before Alloy runs (syntax/vm/vm.go's evaluateExpr,
 * syntax/internal/transform's BinaryOp, UnaryOp and ValueFromLiteral; the standard library in stdlib.ts): a value
 * where the expression reads only constants; else the type its value will have (a string joined to a variable of
 * the environment is a string; a component's export has the type the reference gives it) with what it is read from;
 * else an error the vm returns whatever the values are (a bool added to a string); else nothing (unread), with why.
 */
import type { AlloyExpr, AlloyValue } from './parser.ts';
import {
  fromValue,
  plainValue,
  readFrom,
  stringParts,
  typeError,
  vmType,
  type At,
  type Evaluated,
  type Failed,
  type Host,
  type Known,
  type Unread,
} from './evaluated.ts';
import { stdlibCall, stdlibMember } from './stdlib.ts';

export type { Evaluated } from './evaluated.ts';

/** What an expression may read besides constants: the type of a component's export, and the standard library. */
export interface EvalScope {
  /** The type of a traversal of a node of the file (`discovery.kubernetes.pods.targets`), or why it is not known; undefined where no node is named. */
  nodeValue(names: readonly string[]): { type: string } | { why: string } | undefined;
  /** What the process reads of its host, where the gate knows it (else a value read at run time, by its type). */
  host?: Host;
}

const at = (e: AlloyExpr, fallback: At): At =>
  e.kind === 'other' && e.line !== undefined ? { line: e.line, text: e.text ?? '' } : e.kind === 'identifier' ? { line: e.line, text: e.name } : fallback;

/** The identifier and field names of an access chain (`a.b.c`), or undefined where it holds an index or a call. */
export function chain(e: AlloyExpr): { names: string[]; line: number } | undefined {
  if (e.kind === 'identifier') return { names: [e.name], line: e.line };
  if (e.kind !== 'access') return undefined;
  const inner = chain(e.value);
  return inner && { names: [...inner.names, e.name], line: inner.line };
}

/** The evaluation of an expression in a scope, as the vm evaluates it when Alloy loads the file. */
export function evaluate(e: AlloyExpr, scope: EvalScope, place: At = { line: 0, text: '' }): Evaluated {
  const here = at(e, place);
  switch (e.kind) {
    case 'identifier':
    case 'access': {
      const c = chain(e);
      if (!c) return accessOf(evaluate((e as { value: AlloyExpr }).value, scope, here), (e as { name: string }).name, here);
      const node = scope.nodeValue(c.names);
      const text = c.names.join('.');
      if (node)
        return 'type' in node ? { kind: 'typed', line: c.line, text, type: node.type, from: text } : { kind: 'unread', line: c.line, text, why: node.why };
      return stdlibMember(c.names, { line: c.line, text }, scope.host);
    }
    case 'index':
      return indexOf(evaluate(e.value, scope, here), evaluate(e.index, scope, here), here);
    case 'call': {
      const c = chain(e.value);
      const args = e.args.map((a) => evaluate(a, scope, here));
      const failed = args.find((a) => a.kind === 'failed');
      if (failed) return failed;
      return c
        ? stdlibCall(c.names, args, { line: c.line, text: `${c.names.join('.')}(…)` }, scope.host)
        : { kind: 'unread', ...here, why: 'a call of a value the gate does not work out' };
    }
    case 'other':
      return otherOf(e, scope, here);
  }
}

function otherOf(e: AlloyExpr & { kind: 'other' }, scope: EvalScope, here: At): Evaluated {
  const shape = e.shape;
  const parts = () => e.parts.map((p) => evaluate(p, scope, here));
  if (!shape) return { kind: 'unread', ...here, why: 'an expression the parser did not read whole' };
  // ValueFromLiteral: a FLOAT token (a fraction or an exponent) is a float, a NUMBER an integer.
  if ('literal' in shape) return fromValue(e.constant!.value, here, typeof e.constant!.value === 'number' && /[.eE]/.test(here.text));
  if ('paren' in shape) return { ...parts()[0]!, ...here };
  if ('array' in shape) return firstFailed(parts()) ?? { kind: 'array', ...here, members: parts() };
  if ('object' in shape) {
    const members = parts();
    if (shape.object.some((k) => k === undefined)) return { kind: 'unread', ...here, why: 'an object with a field the parser did not read' };
    return firstFailed(members) ?? { kind: 'object', ...here, keys: shape.object as string[], members };
  }
  if ('unary' in shape) return unaryOf(shape.unary, parts()[0]!, here);
  const [lhs, rhs] = parts() as [Evaluated, Evaluated];
  return binaryOf(shape.op, lhs, rhs, here);
}

const firstFailed = (members: readonly Evaluated[]): Failed | undefined => members.find((m): m is Failed => m.kind === 'failed');

function unaryOf(op: string, v: Evaluated, here: At): Evaluated {
  if (v.kind === 'failed' || v.kind === 'unread') return v;
  const expected = op === '!' ? 'bool' : 'number';
  const type = vmType(v);
  if (type !== expected) return typeError(v, expected);
  if (v.kind !== 'known') return { kind: 'typed', ...here, type: expected, from: readFrom([v], here.text) };
  return { kind: 'known', ...here, value: op === '!' ? !v.value : -(v.value as number), ...(v.float ? { float: true } : {}) };
}

/** binopAllowedTypes. */
const ALLOWED: Record<string, readonly string[]> = {
  '||': ['bool'],
  '&&': ['bool'],
  '+': ['number', 'string', 'capsule'],
  '-': ['number'],
  '*': ['number'],
  '/': ['number'],
  '%': ['number'],
  '^': ['number'],
  '<': ['number', 'string'],
  '>': ['number', 'string'],
  '<=': ['number', 'string'],
  '>=': ['number', 'string'],
};

function binaryOf(op: string, lhs: Evaluated, rhs: Evaluated, here: At): Evaluated {
  for (const side of [lhs, rhs]) if (side.kind === 'failed') return side;
  const [lt, rt] = [vmType(lhs), vmType(rhs)];
  if (op === '==' || op === '!=') {
    const [a, b] = [plainValue(lhs), plainValue(rhs)];
    if (a === undefined || b === undefined) return lt && rt ? { kind: 'typed', ...here, type: 'bool', from: here.text } : unreadOf(lhs, rhs, here);
    return { kind: 'known', ...here, value: (op === '==') === valuesEqual(a, b) };
  }
  // A secret (a capsule) joins a string; the gate does not work out which.
  if (lt === 'capsule' || rt === 'capsule') return { kind: 'unread', ...here, why: 'an operator over a secret or another capsule' };
  for (const [side, type] of [
    [lhs, lt],
    [rhs, rt],
  ] as const)
    if (type !== undefined && !ALLOWED[op]!.includes(type))
      return {
        kind: 'failed',
        line: side.line,
        text: side.text,
        message: `${side.text} should be one of [${ALLOWED[op]!.join(' ')}] for binop ${op}, got ${type}`,
      };
  if (lt === undefined || rt === undefined) return unreadOf(lhs, rhs, here);
  if (lt !== rt) return typeError(rhs, lt);
  const result = ['<', '>', '<=', '>=', '||', '&&'].includes(op) ? 'bool' : lt;
  if (lhs.kind !== 'known' || rhs.kind !== 'known') {
    // Two strings joined: the value's parts, where both sides' are known.
    const [l, r] = op === '+' ? [stringParts(lhs), stringParts(rhs)] : [undefined, undefined];
    return { kind: 'typed', ...here, type: result, from: readFrom([lhs, rhs], here.text), ...(l && r ? { parts: [...l, ...r] } : {}) };
  }
  return knownBinary(op, lhs, rhs, here);
}

const unreadOf = (lhs: Evaluated, rhs: Evaluated, here: At): Evaluated => ({
  kind: 'unread',
  ...here,
  why: [lhs, rhs].find((s): s is Unread => s.kind === 'unread')?.why ?? 'an operand of a type the gate does not know',
});

/** The vm's arithmetic: an integer unless either side is a float (fitNumberKinds); division by zero an error. */
function knownBinary(op: string, lhs: Known, rhs: Known, here: At): Evaluated {
  const [a, b] = [lhs.value, rhs.value] as [never, never];
  if (typeof a === 'boolean') return { kind: 'known', ...here, value: op === '||' ? a || b : a && b };
  if (typeof a === 'string') {
    const compare: Record<string, boolean> = { '+': false, '<': a < b, '>': a > b, '<=': a <= b, '>=': a >= b };
    return { kind: 'known', ...here, value: op === '+' ? a + b : compare[op]! };
  }
  const float = lhs.float === true || rhs.float === true;
  const x = a as number;
  const y = b as number;
  if ((op === '/' || op === '%') && y === 0) return { kind: 'failed', line: rhs.line, text: rhs.text, message: `${rhs.text} divide by zero error` };
  const int = (n: number) => (float ? n : Math.trunc(n));
  const results: Record<string, number | boolean> = {
    '+': x + y,
    '-': x - y,
    '*': x * y,
    '/': int(x / y),
    '%': float ? x % y : int(x % y),
    '^': float ? x ** y : intPow(x, y),
    '<': x < y,
    '>': x > y,
    '<=': x <= y,
    '>=': x >= y,
  };
  const value = results[op]!;
  // An integer past 2^53: the vm's int64 arithmetic (and its wrapping) is not followed.
  if (!float && typeof value === 'number' && !Number.isSafeInteger(value))
    return { kind: 'unread', ...here, why: `${here.text}, an integer past those the gate computes exactly` };
  return { kind: 'known', ...here, value, ...(float && typeof value === 'number' ? { float } : {}) };
}

/**
 * transform's intPow: 1 for a zero power or a base of one, 0 for a base of zero, else the product (a negative power
 * reads as none). NaN once the product leaves the integers a double holds exactly: the vm wraps it in 64 bits, which
 * the gate does not follow, and a hostile power (`2 ^ 999999999`) stops there rather than looping.
 */
function intPow(n: number, m: number): number {
  if (m === 0 || n === 1) return 1;
  if (n === 0 && m > 0) return 0;
  if (n === -1) return m % 2 === 0 ? 1 : -1;
  let result = n;
  for (let i = 2; i <= m; i++) {
    result *= n;
    if (!Number.isSafeInteger(result)) return Number.NaN;
  }
  return result;
}

/** valuesEqual: the same type and equal values, member by member. */
export function valuesEqual(a: AlloyValue, b: AlloyValue): boolean {
  if (a === null || b === null) return a === b;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => valuesEqual(x, b[i]!));
  if (typeof a === 'object' || typeof b === 'object') {
    if (typeof a !== 'object' || typeof b !== 'object') return false;
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => k in b && valuesEqual((a as never)[k], (b as never)[k]));
  }
  return a === b;
}

/** An access of a field of a value (`{ a = 1 }.a`): an object's field, else the vm's error. */
function accessOf(v: Evaluated, name: string, here: At): Evaluated {
  if (v.kind === 'failed' || v.kind === 'unread') return v;
  if (v.kind === 'object') {
    const i = v.keys!.indexOf(name);
    return i < 0 ? { kind: 'failed', ...here, message: `field "${name}" does not exist` } : v.members[i]!;
  }
  if (v.kind === 'known' && vmType(v) === 'object') return fromValue((v.value as Record<string, AlloyValue>)[name] ?? null, here);
  const type = vmType(v);
  if (type === undefined || type === 'object' || type === 'capsule')
    return { kind: 'unread', ...here, why: `a field of ${v.text}, whose fields the gate does not know` };
  return { kind: 'failed', ...here, message: `${v.text} cannot access field "${name}" on value of type ${type}` };
}

/** An index of a list by a number, or of an object by a string (a missing key is null), as the vm reads it. */
function indexOf(v: Evaluated, index: Evaluated, here: At): Evaluated {
  for (const side of [v, index]) if (side.kind === 'failed' || side.kind === 'unread') return side;
  const type = vmType(v);
  const expected = type === 'array' ? 'number' : type === 'object' ? 'string' : undefined;
  if (expected === undefined) return type === 'capsule' ? { kind: 'unread', ...here, why: `an index of ${v.text}` } : typeError(v, 'object or array');
  if (vmType(index) !== expected) return typeError(index, expected);
  const key = plainValue(index);
  if (v.kind === 'typed' || key === undefined) return { kind: 'unread', ...here, why: `an index of ${v.text} by a value the gate does not work out` };
  const whole = plainValue(v);
  if (v.kind === 'array' || Array.isArray(whole)) {
    const members = v.kind === 'array' ? v.members : (whole as AlloyValue[]).map((m) => fromValue(m, here));
    const i = Math.trunc(key as number);
    if (i < 0 || i >= members.length)
      return { kind: 'failed', line: index.line, text: index.text, message: `${index.text} index ${i} is out of range of array with length ${members.length}` };
    return members[i]!;
  }
  if (v.kind === 'object') {
    const i = v.keys!.indexOf(key as string);
    return i < 0 ? { kind: 'known', ...here, value: null } : v.members[i]!;
  }
  return fromValue((whole as Record<string, AlloyValue>)[key as string] ?? null, here);
}
