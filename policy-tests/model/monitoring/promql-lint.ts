/**
 * What Prometheus's parser refuses of an expression beyond its grammar: types, argument counts and operators
 * (@prometheus-io/codemirror-promql's linter, Prometheus's own port of the parser's checkAST for its web UI), and the
 * features a parser built with `parser.Options{}` leaves off (Prometheus 3.13's experimental functions and
 * aggregators, duration arithmetic, anchored and smoothed selectors, fill modifiers), read on the same tree.
 */
import { createRequire } from 'node:module';
import type { SyntaxNode } from '@lezer/common';
import { outcomeStore, packageVersion } from '../stores/outcome-store.ts';
import { prometheusRegex, prometheusRegexProblem } from '../core/re2.ts';
import { durationMs } from '../core/time.ts';
import { stringEnd, unquotePromql, withTrailingZeros } from './promql.ts';

/** Which of the parser's off-by-default features an expression may use. */
export interface PromqlFeatures {
  /** `EnableExperimentalFunctions`: the experimental functions and limitk, limit_ratio. */
  experimentalFunctions: boolean;
  /** `ExperimentalDurationExpr`: arithmetic and step(), range(), min_of(), max_of() in a duration. */
  durationExpressions: boolean;
  /** `EnableExtendedRangeSelectors`: the anchored and smoothed modifiers. */
  extendedRangeSelectors: boolean;
  /** `EnableBinopFillModifiers`: fill(), fill_left(), fill_right() on a binary operator. */
  fillModifiers: boolean;
}

/** `parser.Options{}`: everything off, as the prometheus-operator's webhook parses. */
export const DEFAULT_PARSER_FEATURES: PromqlFeatures = {
  experimentalFunctions: false,
  durationExpressions: false,
  extendedRangeSelectors: false,
  fillModifiers: false,
};

/** The PromQL features a Prometheus's `enableFeatures` turn on, as the operator reads them before it loads a rule (server/rules.go). */
export function featuresOf(enableFeatures: readonly string[]): PromqlFeatures {
  return {
    experimentalFunctions: enableFeatures.includes('promql-experimental-functions'),
    durationExpressions: enableFeatures.includes('promql-duration-expr'),
    extendedRangeSelectors: enableFeatures.includes('promql-extended-range-selectors'),
    fillModifiers: enableFeatures.includes('promql-binop-fill-modifiers'),
  };
}

/** Prometheus 3.13's functions marked Experimental (promql/parser/functions.go). */
const EXPERIMENTAL_FUNCTIONS: ReadonlySet<string> = new Set([
  'double_exponential_smoothing',
  'end',
  'first_over_time',
  'histogram_quantiles',
  'info',
  'mad_over_time',
  'max_of',
  'min_of',
  'range',
  'sort_by_label',
  'sort_by_label_desc',
  'start',
  'step',
  'ts_of_first_over_time',
  'ts_of_last_over_time',
  'ts_of_max_over_time',
  'ts_of_min_over_time',
]);
/** ItemType.IsExperimentalAggregator. */
const EXPERIMENTAL_AGGREGATORS: ReadonlySet<string> = new Set(['limitk', 'limit_ratio']);

/** A duration that is more than a number or a duration literal: an operator, a call or parentheses in it. */
const DURATION_ARITHMETIC = new Set(['Pow', 'Mul', 'Div', 'Mod', 'Add', 'Sub', 'DurationStep', 'DurationRange', 'DurationMinOf', 'DurationMaxOf', '(']);

/** An optional feature an expression uses, and what the parser says of it when the feature is off. */
interface FeatureUse {
  feature: keyof PromqlFeatures;
  message: string;
}

type Lint = { problems: string[]; tree: SyntaxNode };
interface Linter {
  lint(expr: string): Lint;
}

let linter: Linter | undefined;

/**
 * The web UI's linter, loaded once an expression is new (its packages cost a start-up that needs none). It is given
 * the whole tree, parsed at once by the grammar it was built with: an editor state parses for 20 ms and leaves the
 * rest for later, so on a busy machine it would lint half an expression.
 */
function promqlLinter(): Linter {
  if (linter) return linter;
  const require = createRequire(import.meta.url);
  const linterPath = require.resolve('@prometheus-io/codemirror-promql/dist/cjs/parser/parser.js');
  const { Parser } = require(linterPath) as { Parser: new (state: unknown) => { analyze(): void; getDiagnostics(): { message: string }[] } };
  const { parser: grammar } = createRequire(linterPath)('@prometheus-io/lezer-promql') as typeof import('@prometheus-io/lezer-promql');
  linter = {
    lint(written) {
      const expr = withTrailingZeros(written).text;
      const tree = grammar.parse(expr);
      // What the linter reads of an editor state: its tree (syntaxTree reads the language field) and its text.
      const state = { field: () => ({ tree }), sliceDoc: (from = 0, to = expr.length) => expr.slice(from, to) };
      const parser = new Parser(state);
      parser.analyze();
      const top = tree.topNode;
      const syntax = syntaxErrors(expr, top);
      // A tree with an error node has no AST in Go's parser: its rules would judge what the grammar guessed.
      const rules = syntax.length > 0 ? [] : astRules(expr, top);
      // The linter refuses a metric name set twice inside the braces, which Prometheus 3 admits (`astRules` keeps the rule it has).
      const linted = parser
        .getDiagnostics()
        .map((d) => d.message)
        .filter((m) => !m.startsWith('metric name must not be set twice'));
      return { problems: [...syntax, ...rules, ...linted], tree: top };
    },
  };
  return linter;
}

/**
 * Prometheus's lexer's words for parentheses and brackets that do not pair (lex.go), which it says before any parse:
 * a closing one with nothing open, or one left open at the end. Strings are skipped.
 */
function unpaired(expr: string): string | undefined {
  const open: string[] = [];
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === '"' || c === "'" || c === '`') i = stringEnd(expr, i);
    else if (c === '#') {
      while (i < expr.length && expr[i] !== '\n') i++;
    } else if (c === '(' || c === '[') open.push(c);
    else if (c === ')' || c === ']') {
      if (open.pop() !== (c === ')' ? '(' : '[')) return `unexpected right ${c === ')' ? 'parenthesis' : 'bracket'} '${c}'`;
    }
  }
  return open.length === 0 ? undefined : `unclosed left ${open.at(-1) === '(' ? 'parenthesis' : 'bracket'}`;
}

/** Where the grammar fails, its first error node (the linter reports only what it checks on a parsed tree). */
function syntaxErrors(expr: string, top: SyntaxNode): string[] {
  let at: number | undefined;
  top.cursor().iterate((ref) => {
    if (ref.type.isError && at === undefined) at = ref.from;
  });
  if (at === undefined && expr.trim() !== '') return [];
  const lexed = unpaired(expr);
  if (lexed) return [lexed];
  return [`syntax error near ${JSON.stringify(expr.slice(at ?? 0, (at ?? 0) + 20) || 'the end')}`];
}

/** The nodes a modifier (offset, @, anchored, smoothed) may wrap: Go keeps each on its selector or subquery. */
const MODIFIERS = new Set(['OffsetExpr', 'StepInvariantExpr', 'AnchoredExpr', 'SmoothedExpr']);
const MODIFIABLE = new Set(['VectorSelector', 'MatrixSelector', 'SubqueryExpr']);

/** The expression a chain of modifiers wraps, and how many offsets and @s the chain sets. */
function modified(node: SyntaxNode): { base: SyntaxNode; offsets: number; ats: number } {
  let offsets = 0;
  let ats = 0;
  let at: SyntaxNode = node;
  while (MODIFIERS.has(at.name) && at.firstChild) {
    if (at.name === 'OffsetExpr') offsets++;
    if (at.name === 'StepInvariantExpr') ats++;
    at = at.firstChild;
  }
  // The grammar binds a modifier after `a + b` to the sum; Go's parser binds it to b, as it binds tighter.
  if (at.name === 'BinaryExpr' && at.lastChild && at !== node) {
    const right = modified(at.lastChild);
    return { base: right.base, offsets: offsets + right.offsets, ats: ats + right.ats };
  }
  return { base: at, offsets, ats };
}

/** A duration literal's length in ms: Prometheus's units, or a number of seconds. NaN where it is neither. */
function literalMs(text: string): number {
  const ms = durationMs(text);
  return Number.isNaN(ms) && /^[0-9.eE+-]+$/.test(text) ? Number(text) * 1000 : ms;
}

/** The largest duration Go holds, in ms (int64 nanoseconds). */
const MAX_DURATION_MS = (2 ** 63 - 1) / 1e6;

/** What the parser refuses of the numbers in a range, an offset or an @. */
function numberProblems(n: SyntaxNode, text: (n: SyntaxNode | null | undefined) => string): string[] {
  if (n.name === 'StepInvariantExpr' && /^[+-]?(inf|nan)$/i.test(text(n.getChild('NumberDurationLiteral')))) return ['timestamp out of bounds for @ modifier'];
  if (n.name === 'NumberDurationLiteral' && /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text(n)) && !Number.isFinite(Number(text(n))))
    return ['error parsing number: value out of range'];
  if (n.name === 'DurationExpr') {
    const [, op, right] = [n.firstChild, n.firstChild?.nextSibling, n.lastChild];
    if ((op?.name === 'Div' || op?.name === 'Mod') && right && literalMs(text(right)) === 0) return ['division by zero'];
    // A negative literal range (a computed one, `-step()`, is judged when the query runs).
    const operand = n.firstChild?.nextSibling;
    const literal = operand?.firstChild?.name === 'NumberDurationLiteralInDurationContext' && !operand.firstChild.nextSibling;
    if (n.parent?.name === 'MatrixSelector' && n.firstChild?.name === 'UnaryOp' && text(n.firstChild) === '-' && literal)
      return ['duration must be greater than 0'];
    return [];
  }
  if (n.name !== 'NumberDurationLiteralInDurationContext' && !(n.name === 'NumberDurationLiteral' && n.parent?.name === 'OffsetDurationExpr')) return [];
  const ms = literalMs(text(n));
  if (Math.abs(ms) > MAX_DURATION_MS) return ['duration out of range'];
  const range = n.parent?.name === 'DurationExpr' && n.parent.parent?.name === 'MatrixSelector';
  return range && ms <= 0 ? ['duration must be greater than 0'] : [];
}

/** Whether a label matcher matches the empty string (a selector of such matchers alone selects every series). */
function matchesEmpty(op: string, value: string): boolean {
  if (op === '=') return value === '';
  if (op === '!=') return value !== '';
  const matches = prometheusRegex(value).matches('');
  return op === '=~' ? matches : !matches;
}

/**
 * The checks Go's parser makes on its AST that the linter does not (parse.go): a modifier only on a selector or a
 * subquery, and once; a range only on a bare selector; a unary sign only on a scalar or an instant vector; strings that
 * unquote; regexes RE2 compiles; a metric name set once; a selector with a matcher that does not match empty.
 */
function astRules(expr: string, top: SyntaxNode): string[] {
  const problems: string[] = [];
  const text = (n: SyntaxNode | null | undefined) => (n ? expr.slice(n.from, n.to) : '');
  top.cursor().iterate((ref) => {
    const n = ref.node;
    if (MODIFIERS.has(n.name) && !MODIFIERS.has(n.parent?.name ?? '')) {
      const { base, offsets, ats } = modified(n);
      const word = n.name === 'OffsetExpr' ? 'offset' : n.name === 'StepInvariantExpr' ? '@' : '';
      if (word && !MODIFIABLE.has(base.name))
        problems.push(`${word} modifier must be preceded by an instant vector selector or range vector selector or a subquery`);
      else if (offsets > 1) problems.push('offset may not be set multiple times');
      else if (ats > 1) problems.push('@ <timestamp> may not be set multiple times');
    }
    if (n.name === 'MatrixSelector' && n.firstChild) {
      const inner = modified(n.firstChild);
      // `-foo[5m]`: the grammar puts the sign under the range; Go's parser reads -(foo[5m]), a sign on a range.
      if (inner.base.name === 'UnaryExpr') problems.push('unary expression only allowed on expressions of type scalar or instant vector, got "range vector"');
      else if (inner.base.name !== 'VectorSelector') problems.push('ranges only allowed for vector selectors');
      else if (inner.offsets > 0) problems.push('no offset modifiers allowed before range');
      else if (inner.ats > 0) problems.push('no @ modifiers allowed before range');
    }
    if (n.name === 'UnaryExpr') {
      let operand = n.lastChild;
      while (operand && (operand.name === 'ParenExpr' || MODIFIERS.has(operand.name)))
        operand = operand.name === 'ParenExpr' ? (operand.firstChild?.nextSibling ?? null) : operand.firstChild;
      const type = operand?.name === 'MatrixSelector' || operand?.name === 'SubqueryExpr' ? 'range vector' : operand?.name === 'StringLiteral' ? 'string' : '';
      if (type) problems.push(`unary expression only allowed on expressions of type scalar or instant vector, got "${type}"`);
    }
    if (n.name === 'StringLiteral' && unquotePromql(text(n)) === undefined) problems.push(`error unquoting string ${JSON.stringify(text(n))}: invalid syntax`);
    if (n.name === 'VectorSelector') problems.push(...selectorProblems(n, text));
    problems.push(...numberProblems(n, text));
  });
  return problems;
}

function selectorProblems(selector: SyntaxNode, text: (n: SyntaxNode | null | undefined) => string): string[] {
  const matchers = (selector.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []).map((m) => ({
    label: text(m.getChild('LabelName')),
    op: text(m.getChild('MatchOp')),
    value: unquotePromql(text(m.getChild('StringLiteral'))) ?? '',
  }));
  for (const m of selector.getChild('LabelMatchers')?.getChildren('QuotedLabelMatcher') ?? [])
    matchers.push({
      label: unquotePromql(text(m.getChild('QuotedLabelName'))) ?? '',
      op: text(m.getChild('MatchOp')),
      value: unquotePromql(text(m.getChild('StringLiteral'))) ?? '',
    });
  // A quoted name alone in the braces is the metric's name: `{"foo"}` is `{__name__="foo"}`.
  for (const q of selector.getChild('LabelMatchers')?.getChildren('QuotedLabelName') ?? [])
    matchers.push({ label: '__name__', op: '=', value: unquotePromql(text(q)) ?? '' });
  const problems: string[] = [];
  for (const m of matchers) {
    const bad = m.op === '=~' || m.op === '!~' ? prometheusRegexProblem(m.value) : undefined;
    if (bad) problems.push(`error parsing regexp: ${bad}`);
  }
  if (problems.length > 0) return problems;
  const name = selector.getChild('Identifier');
  if (name) {
    const twice = matchers.find((m) => m.label === '__name__');
    return twice ? [`metric name must not be set twice: ${JSON.stringify(text(name))} or ${JSON.stringify(twice.value)}`] : [];
  }
  return matchers.some((m) => !matchesEmpty(m.op, m.value)) ? [] : ['vector selector must contain at least one non-empty matcher'];
}

/** Each optional feature the tree uses, with Prometheus's parser's words for it when the feature is off. */
function featureUses(expr: string, top: SyntaxNode): FeatureUse[] {
  const uses: FeatureUse[] = [];
  const use = (feature: keyof PromqlFeatures, message: string) => uses.push({ feature, message });
  const text = (n: SyntaxNode | null) => (n ? expr.slice(n.from, n.to) : '');
  top.cursor().iterate((ref) => {
    const n = ref.node;
    if (n.name === 'FunctionIdentifier' && EXPERIMENTAL_FUNCTIONS.has(text(n)))
      use('experimentalFunctions', `function ${JSON.stringify(text(n))} is not enabled`);
    if (n.name === 'AggregateOp' && EXPERIMENTAL_AGGREGATORS.has(text(n).toLowerCase()))
      use('experimentalFunctions', `${text(n).toLowerCase()}() is experimental and must be enabled with --enable-feature=promql-experimental-functions`);
    if (n.name === 'AnchoredExpr' || n.name === 'SmoothedExpr')
      use('extendedRangeSelectors', `${n.name === 'AnchoredExpr' ? 'anchored' : 'smoothed'} modifier is experimental and not enabled`);
    if (n.name === 'FillModifier') use('fillModifiers', 'binop fill modifiers are experimental and not enabled');
    if ((n.name === 'DurationExpr' || n.name === 'OffsetDurationExpr') && n.parent?.name !== n.name && hasArithmetic(n))
      use('durationExpressions', 'experimental duration expression is not enabled');
  });
  return uses;
}

function hasArithmetic(duration: SyntaxNode): boolean {
  for (let child = duration.firstChild; child; child = child.nextSibling) {
    if (DURATION_ARITHMETIC.has(child.name)) return true;
    if ((child.name === 'DurationExpr' || child.name === 'OffsetDurationExpr') && hasArithmetic(child)) return true;
  }
  return false;
}

/** Keyed by the linter's version (every store's key holds the gate's own code too: a changed rule judges every expression again). */
const lintOutcomes = outcomeStore<{ problems: string[]; features: FeatureUse[] }>('promql-lint', () => packageVersion('@prometheus-io/codemirror-promql'));

/**
 * Why Prometheus's parser with `features` refuses `expr`: the linter's diagnostics, then each feature it uses that is
 * off. Empty where it parses. Kept in the warm-start store, so a run whose rules did not change loads no linter.
 */
export function promqlProblems(expr: string, features: PromqlFeatures = DEFAULT_PARSER_FEATURES): string[] {
  let known = lintOutcomes.get([expr]);
  if (!known) {
    const { problems, tree } = promqlLinter().lint(expr);
    // Every feature the expression uses, kept whatever `features` is: a later call with other features only filters.
    known = { problems, features: featureUses(expr, tree) };
    lintOutcomes.set([expr], known);
  }
  return [...known.problems, ...known.features.filter((f) => !features[f.feature]).map((f) => f.message)];
}
