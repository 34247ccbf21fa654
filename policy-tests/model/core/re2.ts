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

/** Why Go's regexp refuses a Prometheus label regex in its anchored form (a `)(` balances across the anchor), or undefined. */
export const prometheusRegexProblem = (source: string): string | undefined => re2Problem(`^(?s:${source})$`);

/**
 * A pattern both engines read alike, and JavaScript's runs without blowing up: literal characters, classes of
 * literals and ranges, a few escapes (not `\s` or `\b`, which the two engines mean otherwise), `.`, `|`, groups, and
 * a `*`, `+` or `?` on one character or class only (none on a group).
 */
const SAME_IN_BOTH =
  /^(?:[A-Za-z0-9_:/ ,=@%&!<>~'"#-]|\\[.\-+*?()|[\]{}^$/dDwW]|\[\^?(?:[A-Za-z0-9_.:/ -]|\\[.\-\]\\dw])+\]|[.|]|\((?![?*+{])|\)(?![*+?{])|[*+?](?![*+?{]))*$/;

/**
 * The most unbounded repeats (`*`, `+`) one way through a pattern can meet: alternatives are ways of their own, the
 * pattern's own among them (`.*a.*b.*c|x` meets three), a class or an escape holds none. Two cost a backtracking
 * engine at worst the square of the input; more, a power that grows with each.
 */
export function unboundedRuns(source: string): number {
  // The pattern is the outermost group: its alternatives are weighed as a group's are.
  const groups: { best: number; current: number }[] = [{ best: 0, current: 0 }];
  let current = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\') i++;
    else if (c === '[') while (i < source.length && source[i] !== ']') i += source[i] === '\\' ? 2 : 1;
    else if (c === '(') {
      groups.push({ best: 0, current });
      current = 0;
    } else if (c === '|') {
      const g = groups.at(-1)!;
      g.best = Math.max(g.best, current);
      current = 0;
    } else if (c === ')' && groups.length > 1) {
      const g = groups.pop()!;
      current = g.current + Math.max(g.best, current);
    } else if (c === '*' || c === '+') current++;
  }
  return Math.max(groups[0]!.best, current);
}

const matchers = new Map<string, WholeMatch>();

/**
 * A label regex matched whole, compiled once: by JavaScript's engine where the pattern is one both engines read alike
 * with at most two unbounded repeats one way through (at worst quadratic, and an order of magnitude quicker than
 * re2js), else by RE2. Throws RE2's error where Go cannot compile it.
 */
function wholeMatcher(source: string, dotAll: boolean): WholeMatch {
  const key = `${dotAll ? 's' : ''}\0${source}`;
  let m = matchers.get(key);
  if (!m) {
    // Without dotAll, JavaScript's `.` also stops at `\r`, U+2028 and U+2029, where Go's stops at `\n` alone.
    const sameDot = dotAll || !source.includes('.');
    m =
      sameDot && SAME_IN_BOTH.test(source) && unboundedRuns(source) <= 2
        ? new RegExp(`^(?:${source})$`, dotAll ? 's' : '')
        : re2(dotAll ? `^(?s:${source})$` : `^(?:${source})$`);
    matchers.set(key, m);
  }
  return m;
}

/** A Prometheus label regex, matched whole as Prometheus matches it (prometheusRegex), where only whether it matches counts. */
export const prometheusMatch = (source: string): WholeMatch => wholeMatcher(source, true);

/** An Alertmanager matcher's regex (`=~` in `matchers`, `match_re`), as labels.NewMatcher compiles it: `^(?:` + re + `)$`. */
export const alertmanagerRegex = (source: string): WholeMatch => wholeMatcher(source, false);

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

/**
 * The top-level alternatives of a regex (`a|b(c|d)` is `a` and `b(c|d)`): its `|` outside every group and character
 * class, an escaped one aside. One alternative alone where it has none.
 */
export function topLevelAlternatives(source: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let inClass = false;
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      // A `]` first in a class (`[]a]`, `[^]a]`) is one of its characters.
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
    } else if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === '|' && depth === 0) {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  out.push(source.slice(start));
  return out;
}
