/**
 * GitHub Actions' expressions (`${{ }}` and `if:`), evaluated by GitHub's own
 * library (@actions/expressions, the evaluator of actions/languageservices),
 * with the status functions the runner defines: success(), failure(),
 * always() and cancelled(). Nothing here knows a workflow; the runner gives
 * the contexts and the status.
 */
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';

/** What the steps (or needed jobs) before came to; `skipped`: a needed job did not run, so neither success() nor failure() holds. */
export type Status = 'success' | 'failure' | 'cancelled' | 'skipped';

const CONTEXTS = ['github', 'env', 'steps', 'needs', 'runner', 'job', 'secrets', 'inputs', 'matrix', 'strategy', 'vars'];
const STATUS_FUNCTIONS = ['success', 'failure', 'always', 'cancelled'] as const;

function evaluate(expression: string, contexts: Record<string, unknown>, status: Status): data.ExpressionData {
  const lexed = new Lexer(expression).lex();
  const parsed = new Parser(
    lexed.tokens,
    CONTEXTS,
    STATUS_FUNCTIONS.map((name) => ({ name, minArgs: 0, maxArgs: 0 })),
  ).parse();
  const context = JSON.parse(JSON.stringify(Object.fromEntries(CONTEXTS.map((c) => [c, contexts[c] ?? {}]))), data.reviver) as data.Dictionary;
  const verdicts: Record<(typeof STATUS_FUNCTIONS)[number], boolean> = {
    success: status === 'success',
    failure: status === 'failure',
    always: true,
    cancelled: status === 'cancelled',
  };
  const functions = new Map(STATUS_FUNCTIONS.map((name) => [name, { name, minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(verdicts[name]) }]));
  return new Evaluator(parsed, context, functions).evaluate();
}

/** GitHub's truthiness: false, 0, -0, '', null and NaN are false. */
function truthy(value: data.ExpressionData): boolean {
  if (value instanceof data.BooleanData) return value.value;
  if (value instanceof data.NumberData) return value.value !== 0 && !Number.isNaN(value.value);
  if (value instanceof data.StringData) return value.value !== '';
  return !(value instanceof data.Null);
}

/** An `if:` condition: `${{ }}` optional; without a status function it means `success() && (...)`, as GitHub reads it. */
export function condition(text: string | boolean | undefined, contexts: Record<string, unknown>, status: Status): boolean {
  if (text === undefined) return status === 'success';
  if (typeof text === 'boolean') return text && status === 'success';
  const bare = text
    .trim()
    .replace(/^\$\{\{([\s\S]*)\}\}$/, '$1')
    .trim();
  const checksStatus = STATUS_FUNCTIONS.some((f) => new RegExp(`\\b${f}\\s*\\(`).test(bare));
  return truthy(evaluate(checksStatus ? bare : `success() && (${bare})`, contexts, status));
}

/** A string with `${{ }}` placeholders, each replaced by its value as a string (GitHub's coercion). */
export function interpolate(text: string, contexts: Record<string, unknown>, status: Status): string {
  return text.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, expression: string) => evaluate(expression.trim(), contexts, status).coerceString());
}
