/**
 * A field selector as the API server reads one from a list or watch request (apimachinery's
 * pkg/fields/selector.go: ParseSelector, splitTerms, splitTerm, UnescapeValue), and the fields it selects a kind's
 * objects by (pkg/apis/core/v1/conversion.go's field label conversions; a Pod's, with the old clients' `spec.host`
 * read as `spec.nodeName`). A selector that does not parse, or that names a field the kind is not selected by, makes
 * the server refuse every such request (400), so a program that lists by it sees nothing.
 */

export interface FieldTerm {
  field: string;
  op: '=' | '==' | '!=';
  value: string;
}

/** splitTerms: the terms between commas a backslash does not escape (none of an empty selector). */
export function splitTerms(selector: string): string[] {
  if (selector === '') return [];
  const terms: string[] = [];
  let [start, escaped] = [0, false];
  for (let i = 0; i < selector.length; i++) {
    if (escaped) escaped = false;
    else if (selector[i] === '\\') escaped = true;
    else if (selector[i] === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  return [...terms, selector.slice(start)];
}

/** UnescapeValue: `\\`, `\,` and `\=` their characters; any other escape, or a bare `,` or `=`, an error. */
export function unescapeValue(s: string): { value: string } | { error: string } {
  let [out, slash] = ['', false];
  for (const c of s) {
    if (slash) {
      if (!'\\,='.includes(c)) return { error: `invalid field selector: invalid escape sequence: \\${c}` };
      [out, slash] = [out + c, false];
    } else if (c === '\\') slash = true;
    // UnescapedRune prints its rune with %v: the code point's number.
    else if (c === ',' || c === '=') return { error: `invalid field selector: unescaped character in value: ${c.codePointAt(0)}` };
    else out += c;
  }
  return slash ? { error: 'invalid field selector: invalid escape sequence: \\' } : { value: out };
}

const OPERATORS = ['!=', '==', '='] as const;

/** splitTerm: a term's field, its first operator (`!=`, `==`, `=`, tried in that order at each place) and the value after it, as written; undefined where it has none. */
export function splitTerm(term: string): { field: string; op: FieldTerm['op']; raw: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    const op = OPERATORS.find((o) => term.startsWith(o, i));
    if (op) return { field: term.slice(0, i), op, raw: term.slice(i + op.length) };
  }
  return undefined;
}

/** fields.ParseSelector: each term a field, an operator (`!=`, `==`, `=`, the first found) and a value; or the error. */
export function parseFieldSelector(selector: string): { terms: FieldTerm[] } | { error: string } {
  const terms: FieldTerm[] = [];
  for (const part of splitTerms(selector).sort()) {
    if (part === '') continue;
    const term = splitTerm(part);
    if (!term) return { error: `invalid selector: '${selector}'; can't understand '${part}'` };
    const value = unescapeValue(term.raw);
    if ('error' in value) return value;
    terms.push({ field: term.field, op: term.op, value: value.value });
  }
  return { terms };
}

/** The fields a Pod is selected by (the v1 conversion's list); `spec.host` is converted to `spec.nodeName`. */
const POD_FIELDS = [
  'metadata.name',
  'metadata.namespace',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.podIPs',
  'status.nominatedNodeName',
];

/** Why the API server refuses a field selector for pods, or the terms it selects by (each field as converted). */
export function podFieldSelector(selector: string): { terms: FieldTerm[] } | { error: string } {
  const parsed = parseFieldSelector(selector);
  if ('error' in parsed) return parsed;
  const unsupported = parsed.terms.find((t) => t.field !== 'spec.host' && !POD_FIELDS.includes(t.field));
  if (unsupported) return { error: `field label not supported: ${unsupported.field}` };
  return { terms: parsed.terms.map((t) => (t.field === 'spec.host' ? { ...t, field: 'spec.nodeName' } : t)) };
}
