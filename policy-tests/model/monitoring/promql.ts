/**
 * PromQL read with Prometheus's own grammar (@prometheus-io/lezer-promql, the
 * parser of Prometheus's web UI): which series an expression selects, with
 * which matchers, under which range functions, and which comparisons it makes.
 */
import { createRequire } from 'node:module';
import type { SyntaxNode } from '@lezer/common';
import { durationMs } from '../core/time.ts';
import { goUnquoteRunes } from '../go/strconv.ts';
import { perKey } from '../core/per-object.ts';
import { outcomeStore, packageVersion } from '../stores/outcome-store.ts';

/**
 * What an expression parsed to before, keyed by the grammar's version and the text: a warm run whose rules and
 * dashboards did not change neither loads the grammar nor parses (parsing every expression was 27 ms of a start-up).
 */
const promqlOutcomes = outcomeStore<ParsedExpr>('promql', () => packageVersion('@prometheus-io/lezer-promql'));

type LezerPromql = typeof import('@prometheus-io/lezer-promql');
let grammar: LezerPromql['parser'] | undefined;
/** Prometheus's grammar, loaded when an expression is new. */
const promqlGrammar = (): LezerPromql['parser'] => (grammar ??= (createRequire(import.meta.url)('@prometheus-io/lezer-promql') as LezerPromql).parser);

export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  /** The metric name, when the selector names one (`foo{...}`), else undefined. */
  name?: string;
  matchers: Matcher[];
  /** Offset of the selector in the expression. */
  from: number;
  /** The range function it feeds (rate, increase, irate) and its window in ms. */
  window?: { fn: string; ms: number };
  /** Inside absent() or absent_over_time(). */
  inAbsent: boolean;
  /** Labels an aggregation directly around it groups by (`sum by (x) (sel)`). */
  groupedBy: string[];
  /**
   * Labels an aggregation groups by beyond a binary operator (`sum by (x) (a + b)`), at the aggregation's offset:
   * the operator's result has no label its operands lack, so each is a label of some selector under it.
   */
  groupedAcross?: { at: number; labels: string[] };
}

export interface Comparison {
  selector: Selector;
  op: '==' | '!=';
  value: number;
}

export interface ParsedExpr {
  selectors: Selector[];
  /** `selector == n` and `selector != n` where one side is a bare selector and the other a number. */
  comparisons: Comparison[];
  error?: { from: number; message: string };
}

const WINDOW_FUNCTIONS = new Set(['rate', 'increase', 'irate']);

/** PromQL's string literal read as Prometheus's strutil.Unquote reads it (Go's escapes, many runes between single quotes); undefined where it does not read. */
export function unquotePromql(text: string): string | undefined {
  if (text.startsWith('`')) return text.length >= 2 && text.endsWith('`') ? text.slice(1, -1) : undefined;
  return text.length >= 2 && text.at(-1) === text[0] ? goUnquoteRunes(text.slice(1, -1), text[0]!) : undefined;
}

/** A matcher's value: the literal read, or (where Prometheus would refuse it) its text between the quotes. */
const unquote = (text: string): string => unquotePromql(text) ?? text.slice(1, -1);

/** Parsed expressions by text: the same rules and panels are read by every view of the repository. Results are never mutated. */
export const parsePromQL: (expr: string) => ParsedExpr = perKey(5000, (expr: string) => parseRemembered(expr));

/** A parse kept in the warm-start store (plain data, as JSON carries it), made where the store has none. */
function parseRemembered(expr: string): ParsedExpr {
  const known = promqlOutcomes.get([expr]);
  if (known) return known;
  const parsed = parseUncached(expr);
  promqlOutcomes.set([expr], parsed);
  return parsed;
}

/** Where the PromQL string opened at `start` closes (its quote; an escape skipped but in a raw string), or the end. */
export function stringEnd(expr: string, start: number): number {
  const quote = expr[start];
  let i = start + 1;
  for (; i < expr.length && expr[i] !== quote; i++) if (expr[i] === '\\' && quote !== '`') i++;
  return i;
}

/**
 * A number that ends in a dot (`5.`, `@ 3.`) written with a zero after it: Go's lexer reads it, the grammar does not.
 * Strings are left as they are; `inserted` holds where each zero went (an offset in the text as written), so an
 * offset in the new text maps back.
 */
export function withTrailingZeros(expr: string): { text: string; inserted: number[] } {
  let text = '';
  const inserted: number[] = [];
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') {
      const end = stringEnd(expr, i);
      text += expr.slice(i, end + 1);
      i = end;
      continue;
    }
    text += c;
    // A dot after a digit that no digit, letter or dot follows ends a number: `1.` is `1.0`.
    if (c === '.' && /[0-9]/.test(expr[i - 1] ?? '') && !/[0-9A-Za-z_.]/.test(expr[i + 1] ?? '')) {
      text += '0';
      inserted.push(i + 1);
    }
  }
  return { text, inserted };
}

type Text = (n: SyntaxNode | null | undefined) => string;

/** A VectorSelector's metric name and matchers. No key holds undefined: a parse read back from the store (JSON) is then the same object as a fresh one. */
function selectorOf(node: SyntaxNode, text: Text): Pick<Selector, 'name' | 'matchers'> {
  const matchers: Matcher[] = [];
  for (const m of node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
    matchers.push({
      label: text(m.getChild('LabelName')),
      op: text(m.getChild('MatchOp')) as Matcher['op'],
      value: unquote(text(m.getChild('StringLiteral'))),
    });
  }
  for (const m of node.getChild('LabelMatchers')?.getChildren('QuotedLabelMatcher') ?? []) {
    matchers.push({
      label: unquote(text(m.getChild('QuotedLabelName'))),
      op: text(m.getChild('MatchOp')) as Matcher['op'],
      value: unquote(text(m.getChild('StringLiteral'))),
    });
  }
  const identifier = node.getChild('Identifier');
  return { ...(identifier ? { name: text(identifier) } : {}), matchers };
}

function parseUncached(written: string): ParsedExpr {
  const { text: expr, inserted } = withTrailingZeros(written);
  // An offset in the parsed text, back in the text as written.
  const back = (at: number) => at - inserted.filter((i) => i < at).length;
  const tree = promqlGrammar().parse(expr);
  const selectors: Selector[] = [];
  const comparisons: Comparison[] = [];
  let error: ParsedExpr['error'];
  const text = (n: SyntaxNode | null | undefined) => (n ? expr.slice(n.from, n.to) : '');
  tree.iterate({
    enter(ref) {
      if (ref.type.isError && !error) error = { from: ref.from, message: `PromQL does not parse near "${expr.slice(ref.from, ref.from + 20) || 'the end'}"` };
      if (ref.name !== 'VectorSelector') return;
      const node = ref.node;
      selectors.push({ ...selectorOf(node, text), from: node.from, ...context(node, text) });
    },
  });
  for (const s of selectors) {
    const compared = comparisonOf(tree.resolveInner(s.from, 1), text);
    if (compared) comparisons.push({ selector: s, ...compared });
  }
  // Every offset back in the text as written (the comparisons hold the same selectors).
  if (inserted.length) {
    for (const s of selectors) {
      s.from = back(s.from);
      if (s.groupedAcross) s.groupedAcross.at = back(s.groupedAcross.at);
    }
    if (error) error.from = back(error.from);
  }
  return { selectors, comparisons, ...(error ? { error } : {}) };
}

/** The functions an expression calls, by name, in order (none where it does not parse). */
export const functionsCalled: (expr: string) => readonly string[] = perKey(5000, (written: string) => {
  const { text: expr } = withTrailingZeros(written);
  const names: string[] = [];
  promqlGrammar()
    .parse(expr)
    .iterate({
      enter(ref) {
        if (ref.name === 'FunctionIdentifier') names.push(expr.slice(ref.from, ref.to));
      },
    });
  return names;
});

/** Functions and aggregations that make labels of their own: a grouping above them may name one no selector has. */
const LABEL_MAKERS = /^(label_replace|label_join|count_values|info)$/;

/** The first aggregation above a binary operator, when it groups by labels and nothing between makes labels. */
function groupingAcross(from: SyntaxNode, text: (n: SyntaxNode | null | undefined) => string): Selector['groupedAcross'] {
  for (let at: SyntaxNode | null = from.parent; at; at = at.parent) {
    if (at.name === 'FunctionCall' && LABEL_MAKERS.test(text(at.getChild('FunctionIdentifier')))) return undefined;
    if (at.name !== 'AggregateExpr') continue;
    const modifier = at.getChild('AggregateModifier');
    if (LABEL_MAKERS.test(text(at.firstChild)) || !modifier?.getChild('By')) return undefined;
    return { at: at.from, labels: (modifier.getChild('GroupingLabels')?.getChildren('LabelName') ?? []).map((l) => text(l)) };
  }
  return undefined;
}

function context(node: SyntaxNode, text: (n: SyntaxNode | null | undefined) => string): Pick<Selector, 'window' | 'inAbsent' | 'groupedBy' | 'groupedAcross'> {
  let window: Selector['window'];
  let inAbsent = false;
  let groupedBy: string[] = [];
  let groupedAcross: Selector['groupedAcross'];
  for (let at: SyntaxNode | null = node.parent; at; at = at.parent) {
    if (at.name === 'MatrixSelector' && !window) {
      const fn = at.parent?.parent?.name === 'FunctionCall' ? text(at.parent.parent.getChild('FunctionIdentifier')) : '';
      const ms = durationMs(text(at.getChild('DurationExpr')) || text(at.lastChild));
      if (WINDOW_FUNCTIONS.has(fn) && !Number.isNaN(ms)) window = { fn, ms };
    }
    if (at.name === 'FunctionCall' && /^absent(_over_time)?$/.test(text(at.getChild('FunctionIdentifier')))) inAbsent = true;
    if (at.name === 'AggregateExpr' && groupedBy.length === 0) {
      const modifier = at.getChild('AggregateModifier');
      if (modifier?.getChild('By')) groupedBy = (modifier.getChild('GroupingLabels')?.getChildren('LabelName') ?? []).map((l) => text(l));
    }
    if (at.name === 'BinaryExpr') {
      // Grouping and windows beyond a binary operator belong to the whole, not this selector.
      groupedAcross = groupingAcross(at, text);
      break;
    }
  }
  return { ...(window ? { window } : {}), inAbsent, groupedBy, ...(groupedAcross ? { groupedAcross } : {}) };
}

/** `sel == 0` / `sel != 1` (either order) where `sel` is the bare selector at the node. */
function comparisonOf(inner: SyntaxNode, text: (n: SyntaxNode | null | undefined) => string): { op: '==' | '!='; value: number } | undefined {
  let selector: SyntaxNode | null = inner;
  while (selector && selector.name !== 'VectorSelector') selector = selector.parent;
  const binary = selector?.parent;
  if (!selector || binary?.name !== 'BinaryExpr') return undefined;
  const op = binary.getChild('Eql') ? '==' : binary.getChild('Neq') ? '!=' : undefined;
  const number = binary.getChild('NumberDurationLiteral');
  if (!op || !number) return undefined;
  const value = Number(text(number));
  return Number.isNaN(value) ? undefined : { op, value };
}

/** What an expression's node evaluates to, as far as its labels go: a scalar, or a vector whose series carry at most these labels. */
type Shape = { scalar: true } | { scalar: false; labels: ReadonlySet<string> };
const SCALAR: Shape = { scalar: true };
const vectorOf = (labels: Iterable<string>): Shape => ({ scalar: false, labels: new Set(labels) });
const labelsIn = (shape: Shape): ReadonlySet<string> => (shape.scalar ? new Set() : shape.labels);

const SET_OPERATORS = new Set(['And', 'Or', 'Unless']);
/** Aggregations that keep each series they select whole, whatever they group by. */
const SELECTING = new Set(['topk', 'bottomk', 'limitk', 'limit_ratio']);
const SCALAR_FUNCTIONS = new Set(['time', 'scalar', 'pi']);

/** How a reading of result labels sees its expression: its text and what each selector's series carry. */
interface Reading {
  text: Text;
  labelsOf: (s: Pick<Selector, 'name' | 'matchers'>) => ReadonlySet<string> | undefined;
}

const childrenOf = (n: SyntaxNode | null | undefined): SyntaxNode[] => {
  const out: SyntaxNode[] = [];
  for (let c = n?.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
};
const groupingOf = (n: SyntaxNode | null | undefined, text: Text): string[] => (n?.getChildren('LabelName') ?? []).map((l) => text(l));

function shapeOf(n: SyntaxNode | null | undefined, r: Reading): Shape | undefined {
  if (!n || n.type.isError) return undefined;
  switch (n.name) {
    case 'VectorSelector': {
      const labels = r.labelsOf(selectorOf(n, r.text));
      return labels && vectorOf(labels);
    }
    case 'PromQL':
    case 'ParenExpr':
    case 'MatrixSelector':
    case 'SubqueryExpr':
    case 'OffsetExpr':
    case 'StepInvariantExpr':
      return shapeOf(n.firstChild, r);
    case 'UnaryExpr':
      return shapeOf(n.lastChild, r);
    case 'NumberDurationLiteral':
    case 'StringLiteral':
      return SCALAR;
    case 'FunctionCall':
      return functionShape(r.text(n.getChild('FunctionIdentifier')), childrenOf(n.getChild('FunctionCallBody')), r);
    case 'AggregateExpr':
      return aggregateShape(n, r);
    case 'BinaryExpr':
      return binaryShape(n, r);
    default:
      return undefined;
  }
}

function functionShape(name: string, args: SyntaxNode[], r: Reading): Shape | undefined {
  if (LABEL_MAKERS.test(name)) return undefined;
  if (SCALAR_FUNCTIONS.has(name)) return SCALAR;
  if (name === 'vector') return vectorOf([]);
  if (/^absent(_over_time)?$/.test(name)) {
    let at: SyntaxNode | null | undefined = args[0];
    while (at && at.name !== 'VectorSelector') at = at.firstChild;
    return vectorOf(at ? selectorOf(at, r.text).matchers.flatMap((m) => (m.op === '=' && m.label !== '__name__' ? [m.label] : [])) : []);
  }
  const shapes = args.map((a) => shapeOf(a, r));
  if (shapes.some((s) => s === undefined)) return undefined;
  const vectors = (shapes as Shape[]).filter((s) => !s.scalar);
  const labels = vectors.flatMap((s) => [...labelsIn(s)]).filter((l) => !(name === 'histogram_quantile' && l === 'le'));
  return vectors.length ? vectorOf(labels) : SCALAR;
}

function aggregateShape(n: SyntaxNode, r: Reading): Shape | undefined {
  const op = r.text(n.getChild('AggregateOp'));
  const args = childrenOf(n.getChild('FunctionCallBody'));
  const input = shapeOf(args.at(-1), r);
  if (!input) return undefined;
  const labels = labelsIn(input);
  if (SELECTING.has(op)) return vectorOf(labels);
  const modifier = n.getChild('AggregateModifier');
  const named = groupingOf(modifier?.getChild('GroupingLabels'), r.text);
  const kept = modifier?.getChild('Without')
    ? [...labels].filter((l) => !named.includes(l))
    : modifier?.getChild('By')
      ? named.filter((l) => labels.has(l))
      : [];
  return vectorOf(op === 'count_values' ? [...kept, unquote(r.text(args[0]))] : kept);
}

function binaryShape(n: SyntaxNode, r: Reading): Shape | undefined {
  const [left, right] = [shapeOf(n.firstChild, r), shapeOf(n.lastChild, r)];
  if (!left || !right) return undefined;
  if (left.scalar || right.scalar) return left.scalar ? right : left;
  const op = childrenOf(n)[1]?.name ?? '';
  if (SET_OPERATORS.has(op)) return op === 'Or' ? vectorOf([...left.labels, ...right.labels]) : left;
  const clause = n.getChild('MatchingModifierClause');
  const [matching = [], include = []] = (clause?.getChildren('GroupingLabels') ?? []).map((g) => groupingOf(g, r.text));
  const side = clause?.getChild('GroupLeft') ? 'left' : clause?.getChild('GroupRight') ? 'right' : undefined;
  if (side) {
    const [many, one] = side === 'left' ? [left.labels, right.labels] : [right.labels, left.labels];
    return vectorOf([...[...many].filter((l) => !include.includes(l)), ...include.filter((l) => one.has(l))]);
  }
  const on = Boolean(clause?.getChild('On'));
  return vectorOf([...left.labels].filter((l) => (on ? matching.includes(l) : !matching.includes(l))));
}

/**
 * The labels the series an expression returns may carry, as Prometheus's engine builds them (v3 `resultMetric`, the
 * aggregations' grouping): an aggregation keeps the labels it groups by (`by`) or all but those (`without`), a
 * one-to-one vector match keeps the left side's (only the `on` labels with `on`, without the `ignoring` ones), a
 * many-to-one match the many side's and its `group_left` labels where the one side has them, `or` either side's,
 * `and` and `unless` the left's; `absent()` the labels its selector's equality matchers set. Undefined where a selector's
 * labels are not known (`labelsOf`) or a function makes labels (`label_replace`, `label_join`, `info`). A superset:
 * a label listed may still be missing from some series.
 */
export function resultLabels(written: string, labelsOf: Reading['labelsOf']): ReadonlySet<string> | undefined {
  const { text: expr } = withTrailingZeros(written);
  const text: Text = (n) => (n ? expr.slice(n.from, n.to) : '');
  const shape = shapeOf(promqlGrammar().parse(expr).topNode, { text, labelsOf });
  return shape && labelsIn(shape);
}
