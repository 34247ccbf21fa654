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
import { asOptional, heldUnder, optionalNone, optionalOf } from './optional.ts';

type Cel = typeof import('@bufbuild/cel');

const SELECT_MARK = '__optsel__';
const INDEX_MARK = '__optidx__';
const ELEMENT_MARK = '__optelem__';
const KEY_MARK = '__optkey__';
const LIST = '__optlist__';
const MAP = '__optmap__';
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

/** Whether the rule writes an optional list or map entry (`[?x]`, `{?k: v}`), for a rule that does not parse even rewritten: not judged. */
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

/** An open bracket of the rule's text: an optional index, a list, a map, or parentheses; and whether its current entry is wrapped. */
interface Frame {
  kind: 'optindex' | 'list' | 'map' | 'paren';
  wrapped: boolean;
}

/**
 * The rule's text with the optional syntax spelt as the engine parses it: `x.?f` → `x.__optsel__f`,
 * `x[?k]` → `x[__optidx__(k)]`, a list's optional element `[?e]` → `[__optelem__(e)]`, a map's optional entry
 * `{?k: v}` → `{__optkey__(k): v}`; string literals untouched. Undefined when it has none.
 */
export function rewriteOptionalSyntax(text: string): string | undefined {
  let out = '';
  let changed = false;
  const frames: Frame[] = [];
  const top = () => frames.at(-1);
  for (let i = 0; i < text.length;) {
    const literal = /[rRbB'"]/.test(text[i]!) ? stringLiteralAt(text, i) : 0;
    if (literal) {
      out += text.slice(i, i + literal);
      i += literal;
      continue;
    }
    const before = out.trimEnd().at(-1) ?? '';
    const c = text[i]!;
    if (text.startsWith('.?', i)) {
      out += `.${SELECT_MARK}`;
      i += 2;
      changed = true;
      continue;
    }
    // A `?` that opens a list element or a map entry (after `[`, `{` or a comma of one): a ternary's follows an operand.
    if (c === '?' && (before === '[' || before === '{' || before === ',') && (top()?.kind === 'list' || top()?.kind === 'map')) {
      out += top()!.kind === 'list' ? `${ELEMENT_MARK}(` : `${KEY_MARK}(`;
      top()!.wrapped = true;
      i++;
      changed = true;
      continue;
    }
    if (text.startsWith('[?', i) && /[\w)\]}'"]/.test(before)) {
      out += `[${INDEX_MARK}(`;
      frames.push({ kind: 'optindex', wrapped: false });
      i += 2;
      changed = true;
      continue;
    }
    if (c === '[' || c === '{' || c === '(') frames.push({ kind: c === '[' ? 'list' : c === '{' ? 'map' : 'paren', wrapped: false });
    // A wrapped element ends at its comma or the list's end; a wrapped key at its colon.
    const frame = top();
    if (frame?.wrapped && ((c === ',' && frame.kind === 'list') || (c === ']' && frame.kind === 'list') || (c === ':' && frame.kind === 'map'))) {
      out += ')';
      frame.wrapped = false;
    }
    if (c === ']' || c === '}' || c === ')') {
      const closed = frames.pop();
      out += closed?.kind === 'optindex' ? ')]' : c;
    } else out += c;
    i++;
  }
  return changed ? out : undefined;
}

/** `fn(e)`, a call of one of the functions below on an expression. */
function wrap(cel: Cel, e: Expr, fn: string): Expr {
  const out = cel.parse(`${fn}(__x__)`).expr as Expr;
  (out.exprKind.value as { args: Expr[] }).args[0] = e;
  return out;
}

/** A call of `fn` on `args`, or on the operand and a field name (`field`), with the id of the node it stands for. */
const call = (cel: Cel, id: bigint, { fn, args, field }: { fn: string; args: Expr[]; field?: string }): Expr => {
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
  const isCall = (x: Expr | undefined, mark: string) => x?.exprKind.case === 'callExpr' && x.exprKind.value.function === mark;
  // A list with optional elements is filtered by them (__optlist__); a map's optional entries likewise (__optmap__).
  if (kind.case === 'listExpr' && kind.value.elements.some((x) => isCall(x, ELEMENT_MARK))) return wrap(cel, e, LIST);
  if (kind.case === 'structExpr' && kind.value.messageName === '') {
    let optional = false;
    for (const entry of kind.value.entries) {
      const key = entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined;
      if (!isCall(key, KEY_MARK) || !entry.value) continue;
      entry.keyKind.value = (key!.exprKind.value as { args: Expr[] }).args[0]!;
      entry.value = wrap(cel, entry.value, ELEMENT_MARK);
      optional = true;
    }
    return optional ? wrap(cel, e, MAP) : e;
  }
  if (kind.case === 'selectExpr' && kind.value.operand) {
    const { operand, field, testOnly } = kind.value;
    const marked = field.startsWith(SELECT_MARK);
    // has() on what an optional holds: false when it holds nothing.
    if (testOnly && producesOptional(operand)) return call(cel, e.id, { fn: HAS, args: [operand], field });
    if (marked || (!testOnly && producesOptional(operand)))
      return call(cel, e.id, { fn: SELECT, args: [operand], field: marked ? field.slice(SELECT_MARK.length) : field });
    return e;
  }
  if (kind.case !== 'callExpr') return e;
  const macro = optionalMacro(cel, e);
  if (macro) return macro;
  const c = kind.value;
  if (c.function !== '_[_]') return e;
  const key = c.args[1]!;
  const marked = key.exprKind.case === 'callExpr' && key.exprKind.value.function === INDEX_MARK;
  if (marked) return call(cel, e.id, { fn: INDEX, args: [c.args[0]!, (key.exprKind.value as { args: Expr[] }).args[0]!] });
  return producesOptional(c.args[0]!) ? call(cel, e.id, { fn: INDEX, args: [c.args[0]!, key] }) : e;
}

/**
 * optMap and optFlatMap (macros in cel-go): `o.optMap(x, e)` is `o.hasValue() ? optional.of(cel.bind(x, o.value(), e)) : optional.none()`,
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
  // The value is bound as cel-go binds it (cel.bind's comprehension: no iteration, the accumulator is the value), so
  // the estimated cost is cel-go's too.
  const body = cel.parse('[].map(__unused__, __A__)').expr as Expr;
  const bind = body.exprKind.value as { accuVar: string; accuInit?: Expr; loopCondition?: Expr; loopStep?: Expr; result?: Expr };
  bind.accuVar = variable;
  bind.accuInit = value();
  bind.loopCondition = cel.parse('false').expr as Expr;
  bind.loopStep = cel.parse(variable).expr as Expr;
  bind.result = args[1]!;
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

/** An optional element or entry value, marked so that the list or map around it can tell it from a plain optional value. */
const ELEMENT_KEY = '\uE005optional entry';
/** What a marked element holds: its value, or nothing for optional.none(); undefined when the element is not marked. */
function entryValue(element: unknown): unknown[] | undefined {
  const marked = heldUnder(element, ELEMENT_KEY);
  if (!marked) return undefined;
  const held = asOptional(marked[0]);
  if (!held) throw new Error('no such overload: an optional entry takes an optional value');
  return [...held];
}

export function optionalSyntaxFunctions(cel: Cel): CelFunc[] {
  const { celFunc, CelScalar, mapType, listType } = cel;
  const OPT = mapType(CelScalar.STRING, listType(CelScalar.DYN));
  const DYN = CelScalar.DYN;
  return [
    celFunc(ELEMENT_MARK, [DYN], mapType(CelScalar.STRING, listType(DYN)), (v) => new Map([[ELEMENT_KEY, [v as CelInput]]])),
    celFunc(LIST, [listType(DYN)], listType(DYN), (list) => {
      const out: unknown[] = [];
      for (const v of list as Iterable<unknown>) out.push(...(entryValue(v) ?? [v]));
      return out as CelInput[];
    }),
    celFunc(MAP, [mapType(DYN, DYN)], mapType(DYN, DYN), (map) => {
      const m = map as unknown as { keys(): Iterable<unknown>; get(k: unknown): unknown };
      const out = new Map<unknown, unknown>();
      for (const k of m.keys()) {
        const v = m.get(k);
        for (const held of entryValue(v) ?? [v]) out.set(k, held);
      }
      return out as never;
    }),
    celFunc(SELECT, [CelScalar.DYN, CelScalar.STRING], OPT, (value, field) => optionalEntry(value, field) as never),
    celFunc(INDEX, [CelScalar.DYN, CelScalar.DYN], OPT, (value, key) => optionalEntry(value, key) as never),
    celFunc(HAS, [CelScalar.DYN, CelScalar.STRING], CelScalar.BOOL, (value, field) => {
      const held = asOptional(optionalEntry(value, field))!;
      return held.length > 0;
    }),
  ];
}
