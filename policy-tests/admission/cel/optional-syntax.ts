/**
 * CEL's optional syntax (cel-go's OptionalTypes): `x.?field` and `x[?key]`
 * select an optional value, none when the field or key is absent, and a
 * selection or index that follows an optional stays optional. The engine's
 * parser reads neither, so the rule's text is rewritten outside its string
 * literals (`.?f` → `.__optsel__f`, `[?k]` → `[__optidx__(k)]`), parsed,
 * and the marked nodes become calls of the functions below. Optional list
 * and map literal entries (`[?x]`, `{?k: v}`) are not rewritten: such a
 * rule does not parse, and is not judged.
 */
import type { CelFunc, CelInput } from '@bufbuild/cel';
import { identName, mapChildren, replaceIdents, type Expr } from './ast.ts';
import { asOptional, optionalNone, optionalOf } from './optional.ts';

type Cel = typeof import('@bufbuild/cel');

const SELECT_MARK = '__optsel__';
const INDEX_MARK = '__optidx__';
const SELECT = '__optselect__';
const INDEX = '__optindex__';
const HAS = '__opthas__';
/** Calls whose value is an optional: a selection or index on one stays optional. */
const OPTIONAL_PRODUCERS = new Set([SELECT, INDEX, 'or']);
/** optional.of, optional.ofNonZeroValue, optional.none: the parser gives them as methods of the identifier `optional`. */
const OPTIONAL_CONSTRUCTORS = new Set(['of', 'ofNonZeroValue', 'none']);

/** The length of the string literal at `i` (CEL's quotes: ', ", \'\'\', """, after an r or b prefix), or 0. */
function stringLiteralAt(text: string, i: number): number {
  const m = /^([rRbB]{0,2})('''|"""|'|")/.exec(text.slice(i));
  // A prefix letter that ends an identifier is not a prefix.
  if (!m || (m[1] && i > 0 && /\w/.test(text[i - 1]!))) return 0;
  const [raw, quote] = [/[rR]/.test(m[1]!), m[2]!];
  for (let j = i + m[0].length; j < text.length;) {
    if (!raw && text[j] === '\\') j += 2;
    else if (text.startsWith(quote, j)) return j + quote.length - i;
    else j++;
  }
  return text.length - i;
}

/** Whether the rule writes an optional list or map entry (`[?x]`, `{?k: v}`): a `?` that follows `[`, `{` or `,` (a ternary's follows an operand). */
export function hasOptionalEntries(text: string): boolean {
  let last = '';
  for (let i = 0; i < text.length;) {
    const literal = /[rRbB'"]/.test(text[i]!) ? stringLiteralAt(text, i) : 0;
    if (literal) {
      [last, i] = ['"', i + literal];
      continue;
    }
    const c = text[i++]!;
    if (c === '?' && '[{,'.includes(last)) return true;
    if (!/\s/.test(c)) last = c;
  }
  return false;
}

/** The rule's text with `.?` and `[?` spelt as the engine parses them; undefined when it has neither. */
export function rewriteOptionalSyntax(text: string): string | undefined {
  let out = '';
  let changed = false;
  const closers: boolean[] = [];
  for (let i = 0; i < text.length;) {
    const literal = /[rRbB'"]/.test(text[i]!) ? stringLiteralAt(text, i) : 0;
    if (literal) {
      out += text.slice(i, i + literal);
      i += literal;
      continue;
    }
    const before = out.trimEnd().at(-1) ?? '';
    if (text.startsWith('.?', i)) {
      out += `.${SELECT_MARK}`;
      i += 2;
      changed = true;
    } else if (text.startsWith('[?', i) && /[\w)\]}'"]/.test(before)) {
      out += `[${INDEX_MARK}(`;
      closers.push(true);
      i += 2;
      changed = true;
    } else {
      const c = text[i]!;
      if (c === '[') closers.push(false);
      out += c === ']' && closers.pop() ? ')]' : c;
      i++;
    }
  }
  return changed ? out : undefined;
}

const call = (id: bigint, fn: string, args: Expr[], cel: Cel, field?: string): Expr => {
  const e = cel.parse(`${fn}(__x__${field === undefined ? ', __y__' : ', ""'})`).expr as Expr;
  const c = e.exprKind.value as { function: string; args: Expr[] };
  c.function = fn;
  c.args[0] = args[0]!;
  if (field === undefined) c.args[1] = args[1]!;
  else (c.args[1]!.exprKind.value as { constantKind: { case: string; value: unknown } }).constantKind = { case: 'stringValue', value: field };
  e.id = id;
  return e;
};

function producesOptional(e: Expr): boolean {
  if (e.exprKind.case !== 'callExpr') return false;
  const { function: fn, target } = e.exprKind.value;
  const namespace = target?.exprKind.case === 'identExpr' ? target.exprKind.value.name : undefined;
  return OPTIONAL_PRODUCERS.has(fn) || (namespace === 'optional' && OPTIONAL_CONSTRUCTORS.has(fn));
}

/** Turns the marked selections and indexes, and what follows an optional, into the optional functions, innermost first. */
export function optionalCalls(cel: Cel, e: Expr): Expr {
  mapChildren(e, (child) => optionalCalls(cel, child));
  const kind = e.exprKind;
  if (kind.case === 'selectExpr' && kind.value.operand) {
    const { operand, field, testOnly } = kind.value;
    const marked = field.startsWith(SELECT_MARK);
    // has() on what an optional holds: false when it holds nothing.
    if (testOnly && producesOptional(operand)) return call(e.id, HAS, [operand], cel, field);
    if (marked || (!testOnly && producesOptional(operand))) return call(e.id, SELECT, [operand], cel, marked ? field.slice(SELECT_MARK.length) : field);
    return e;
  }
  if (kind.case !== 'callExpr') return e;
  const macro = optionalMacro(cel, e);
  if (macro) return macro;
  const c = kind.value;
  if (c.function !== '_[_]') return e;
  const key = c.args[1]!;
  const marked = key.exprKind.case === 'callExpr' && key.exprKind.value.function === INDEX_MARK;
  if (marked) return call(e.id, INDEX, [c.args[0]!, (key.exprKind.value as { args: Expr[] }).args[0]!], cel);
  return producesOptional(c.args[0]!) ? call(e.id, INDEX, [c.args[0]!, key], cel) : e;
}

/**
 * optMap and optFlatMap (macros in cel-go): `o.optMap(x, e)` is `o.hasValue() ? optional.of(e[x := o.value()]) : optional.none()`,
 * `o.optFlatMap(x, e)` the same without the optional.of (e gives one).
 */
function optionalMacro(cel: Cel, e: Expr): Expr | undefined {
  if (e.exprKind.case !== 'callExpr') return undefined;
  const { function: fn, target, args } = e.exprKind.value;
  const variable = identName(args[0]);
  if ((fn !== 'optMap' && fn !== 'optFlatMap') || !target || args.length !== 2 || variable === undefined) return undefined;
  const template = fn === 'optMap' ? '__O__.hasValue() ? optional.of(__A__) : optional.none()' : '__O__.hasValue() ? __A__ : optional.none()';
  const rewritten = cel.parse(template).expr as Expr;
  const value = () => {
    const v = cel.parse('__O__.value()').expr as Expr;
    return replaceIdents(v, new Map([['__O__', () => structuredClone(target)]]));
  };
  const body = replaceIdents(args[1]!, new Map([[variable, value]]));
  return replaceIdents(
    rewritten,
    new Map([
      ['__O__', () => structuredClone(target)],
      ['__A__', () => body],
    ]),
  );
}

type Lookup = { get(k: unknown): unknown; keys(): Iterable<unknown> };
const isMap = (v: unknown): v is Lookup =>
  typeof v === 'object' && v !== null && typeof (v as Lookup).get === 'function' && typeof (v as Lookup).keys === 'function';
/** The engine's maps answer has() false for a key whose value is null; get() tells absent (undefined) from null. */
const hasKey = (m: Lookup, k: unknown) => m.get(k) !== undefined;

/** What `.?f` or `[?k]` gives on a value: of the entry when present, none when absent, an error on what has no entries. */
function optionalEntry(value: unknown, key: unknown): unknown {
  const held = asOptional(value);
  if (held) return held.length ? optionalEntry(held[0], key) : optionalNone();
  const isList = Array.isArray(value) || (typeof value === 'object' && value !== null && Symbol.for('@bufbuild/cel/list') in value);
  if (isList) {
    if (typeof key !== 'bigint') throw new Error('no such overload: a list is indexed by an int');
    const items = [...(value as Iterable<unknown>)];
    return key >= 0n && key < BigInt(items.length) ? optionalOf(items[Number(key)] as CelInput) : optionalNone();
  }
  if (isMap(value)) return hasKey(value, key) ? optionalOf(value.get(key) as CelInput) : optionalNone();
  throw new Error('no such key');
}

export function optionalSyntaxFunctions(cel: Cel): CelFunc[] {
  const { celFunc, CelScalar, mapType, listType } = cel;
  const OPT = mapType(CelScalar.STRING, listType(CelScalar.DYN));
  return [
    celFunc(SELECT, [CelScalar.DYN, CelScalar.STRING], OPT, (value, field) => optionalEntry(value, field) as never),
    celFunc(INDEX, [CelScalar.DYN, CelScalar.DYN], OPT, (value, key) => optionalEntry(value, key) as never),
    celFunc(HAS, [CelScalar.DYN, CelScalar.STRING], CelScalar.BOOL, (value, field) => {
      const held = asOptional(optionalEntry(value, field))!;
      return held.length > 0;
    }),
  ];
}
