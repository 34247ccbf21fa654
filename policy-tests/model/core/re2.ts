/**
 * Regular expressions as the API server compiles them: Go's regexp, which is
 * RE2 (re2js, a port of RE2/J): linear time in the input, no lookaround, no
 * backreferences. A JavaScript RegExp backtracks: `^(a+)+$` on thirty
 * characters runs for minutes.
 */
import { RE2JS } from 're2js';

const compiled = new Map<string, RE2JS>();

/** A pattern compiled once per process; throws RE2's own syntax error. */
export function re2(pattern: string): RE2JS {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, (re = RE2JS.compile(pattern)));
  return re;
}

/** Why RE2 refuses a pattern, or undefined. */
export function re2Problem(pattern: string): string | undefined {
  try {
    re2(pattern);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

/**
 * kube-openapi's words for a value a schema pattern Go cannot compile fails (validate.Pattern): the API server admits
 * the CRD, and refuses every object that sets the field. Undefined for a pattern that compiles.
 */
export function invalidPatternMessage(pattern: string): string | undefined {
  const problem = re2Problem(pattern);
  return problem === undefined ? undefined : `should match '${pattern}, but pattern is invalid: ${problem}'`;
}
