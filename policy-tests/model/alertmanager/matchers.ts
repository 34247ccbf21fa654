/**
 * Alertmanager's matchers (`matchers` on a route, `source_matchers` and `target_matchers` on an inhibit rule) as the
 * configuration that reaches it reads them: pkg/labels' classic parser (ParseMatchers, ParseMatcher, NewMatcher at
 * v0.34.0). The prometheus-operator loads kube-prometheus-stack's configuration with Alertmanager's `config.Load`
 * before it writes it out, and never calls `compat.InitFromFlags`, so its parser is the classic one: a line the classic
 * parser refuses is refused there, and the routing never changes. Alertmanager's own fallback parser returns the
 * classic reading of every line the classic parser reads (on a disagreement too), so what routes is the classic reading.
 */
import { alertmanagerRegex, re2Problem, type WholeMatch } from '../core/re2.ts';

export type MatchType = '=' | '!=' | '=~' | '!~';

export interface AmMatcher {
  readonly type: MatchType;
  readonly name: string;
  readonly value: string;
}

/** pkg/labels' `re`: Go's `\s` is ASCII whitespace only, and `(?s).*?` takes newlines. */
const MATCHER = /^[\t\n\f\r ]*([a-zA-Z_:][a-zA-Z0-9_:]*)[\t\n\f\r ]*(=~|=|!=|!~)[\t\n\f\r ]*([\s\S]*?)[\t\n\f\r ]*$/;

/** ParseMatcher: one matcher, its value unescaped as OpenMetrics escapes (`\"`, `\n`, `\\`; another `\` is itself). */
export function parseMatcher(text: string): AmMatcher | { error: string } {
  const m = MATCHER.exec(text);
  if (!m) return { error: `bad matcher format: ${text}` };
  const [, name, type, raw] = m as unknown as [string, string, MatchType, string];
  const expectTrailingQuote = raw.startsWith('"');
  const rawValue = expectTrailingQuote ? raw.slice(1) : raw;
  let value = '';
  let escaped = false;
  let closed = !expectTrailingQuote;
  for (let i = 0; i < rawValue.length; i++) {
    const c = rawValue[i]!;
    if (escaped) {
      escaped = false;
      value += c === 'n' ? '\n' : c === '"' || c === '\\' ? c : `\\${c}`;
    } else if (c === '\\') {
      // A backslash as the last character is itself.
      if (i < rawValue.length - 1) escaped = true;
      else value += c;
    } else if (c === '"') {
      if (closed || i < rawValue.length - 1) return { error: `matcher value contains unescaped double quote: ${raw}` };
      closed = true;
    } else value += c;
  }
  if (!closed) return { error: `matcher value contains unescaped double quote: ${raw}` };
  // NewMatcher compiles a regex matcher's value, anchored: one Go cannot compile refuses the matcher.
  if (type === '=~' || type === '!~') {
    const problem = re2Problem(`^(?:${value})$`);
    if (problem !== undefined) return { error: problem };
  }
  return { type, name, value };
}

/**
 * ParseMatchers: a line of matchers, an optional `{` before and `}` after, split at commas outside double quotes (a
 * `\"` not closing them), a trailing comma dropped; each read by parseMatcher, the first refusal the line's.
 */
export function parseMatchers(line: string): AmMatcher[] | { error: string } {
  let s = line.startsWith('{') ? line.slice(1) : line;
  if (s.endsWith('}')) s = s.slice(0, -1);
  const tokens: string[] = [];
  let token = '';
  let insideQuotes = false;
  let escaped = false;
  for (const c of s) {
    if (c === ',' && !insideQuotes) {
      tokens.push(token);
      token = '';
      continue;
    }
    if (c === '"') {
      if (!escaped) insideQuotes = !insideQuotes;
      else escaped = false;
    } else if (c === '\\') escaped = !escaped;
    else escaped = false;
    token += c;
  }
  // Go's strings.TrimSpace trims Unicode whitespace, as JavaScript's trim does.
  if (token.trim() !== '') tokens.push(token.trim());
  const matchers: AmMatcher[] = [];
  for (const t of tokens) {
    const m = parseMatcher(t);
    if ('error' in m) return m;
    matchers.push(m);
  }
  return matchers;
}

/** Why Alertmanager's Matchers.UnmarshalYAML refuses a line, or undefined. */
export function matchersLineProblem(line: string): string | undefined {
  const parsed = parseMatchers(line);
  return 'error' in parsed ? parsed.error : undefined;
}

/** Matcher.Matches on a label's value (a label the alert lacks reads as ""). */
export function matcherMatches(m: AmMatcher, value: string): boolean {
  if (m.type === '=') return value === m.value;
  if (m.type === '!=') return value !== m.value;
  const re: WholeMatch = alertmanagerRegex(m.value);
  return m.type === '=~' ? re.test(value) : !re.test(value);
}
