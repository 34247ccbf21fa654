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

/** Something a label value is matched against, whole. */
export interface WholeMatch {
  test(text: string): boolean;
}

/**
 * A Prometheus label regex (a PromQL `=~` matcher, a relabel rule's `regex`), as Prometheus compiles it: Go's RE2,
 * anchored, `.` matching a newline (`^(?s:` + re + `)$`, labels.NewFastRegexMatcher, relabel.NewRegexp). A JavaScript
 * RegExp refuses Go's inline flags (`(?i)`), and backtracks where RE2 runs in linear time. Throws RE2's error.
 */
export const prometheusRegex = (source: string): RE2JS => re2(`^(?s:${source})$`);

/** An Alertmanager matcher's regex (`=~` in `matchers`, `match_re`), as labels.NewMatcher compiles it: `^(?:` + re + `)$`. */
export const alertmanagerRegex = (source: string): RE2JS => re2(`^(?:${source})$`);

/**
 * Go's regexp.Expand of a template over a match (a relabel rule's `replacement`): `$$` is a dollar; `$name` or
 * `${name}` the group of that number or name (the longest run of letters, digits and `_`), empty when there is none;
 * a `$` not followed by a name is itself.
 */
export function goExpand(template: string, group: (name: string) => string | undefined): string {
  let out = '';
  let rest = template;
  for (let at = rest.indexOf('$'); at >= 0; at = rest.indexOf('$')) {
    out += rest.slice(0, at);
    rest = rest.slice(at + 1);
    if (rest.startsWith('$')) {
      out += '$';
      rest = rest.slice(1);
      continue;
    }
    const m = /^(?:\{([\p{L}\p{Nd}_]+)\}|([\p{L}\p{Nd}_]+))/u.exec(rest);
    if (!m) {
      out += '$';
      continue;
    }
    rest = rest.slice(m[0].length);
    out += group(m[1] ?? m[2]!) ?? '';
  }
  return out + rest;
}
