/**
 * What the API server refuses of an x-kubernetes-validations entry before it
 * compiles anything (k8s.io/apiextensions-apiserver validation.go): a blank
 * rule, a blank or multi-line message, a multi-line rule without a message,
 * a blank messageExpression, a reason outside the four it knows, and a
 * fieldPath that is blank, multi-line, or no path into the node's schema
 * (pkg/apiserver/schema/cel/validation.go ValidFieldPath: `.name` and
 * `['name']` steps through properties, or a key of a map; no index). Each
 * problem in field.Error's words, with the field it is about.
 */
import type { JsonSchemaNode, ValidationRule } from './schema-node.ts';

export interface EntryProblem {
  field: 'rule' | 'message' | 'messageExpression' | 'reason' | 'fieldPath';
  /** As field.Error prints it after the path: "Required value: …", "Invalid value: "x": …". */
  detail: string;
}

const REASONS = ['FieldValueDuplicate', 'FieldValueForbidden', 'FieldValueInvalid', 'FieldValueRequired'];
const hasNewlines = (s: string) => /[\n\r]+/.test(s);
/** Go's strings.TrimSpace: Unicode white space at both ends. */
const trim = (s: string) => s.replace(/^\s+|\s+$/gu, '');
const invalid = (value: string, why: string) => `Invalid value: ${JSON.stringify(value)}: ${why}`;

/**
 * The tokens ValidFieldPath's scanner splits a path into: `.`, `[` and `]`, and what lies between them; a token that
 * starts with a single quote runs to the next quote not after a backslash (so `.a.foo's` is one name).
 */
function tokens(path: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < path.length) {
    if ('.[]'.includes(path[i]!)) {
      out.push(path[i++]!);
      continue;
    }
    let j = i + 1;
    if (path[i] === "'") while (j < path.length && !(path[j] === "'" && path[j - 1] !== '\\')) j++;
    else while (j < path.length && !'.[]'.includes(path[j]!)) j++;
    out.push(path.slice(i, path[i] === "'" ? j + 1 : j));
    i = path[i] === "'" ? j + 1 : j;
  }
  return out;
}

const ESCAPES: Readonly<Record<string, string>> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', "'": "'", '\\': '\\' };

/** unescapeSingleQuote: each backslash and the character after it, as the API server reads them; another is an error. */
function unescapeSingleQuote(s: string): string | undefined {
  let failed = false;
  const out = s.replace(/\\./gs, (m) => ESCAPES[m[1]!] ?? ((failed = true), ''));
  return failed ? undefined : out;
}

/** Whether a fieldPath names a field of the schema node, as ValidFieldPath walks it. */
export function validFieldPath(path: string, schema: JsonSchemaNode): boolean {
  const t = tokens(path);
  let node: JsonSchemaNode | undefined = schema;
  const step = (name: string): boolean => {
    if (!node) return false;
    if (node.properties) node = node.properties[name];
    else if (node.additionalProperties && typeof node.additionalProperties === 'object') node = node.additionalProperties;
    else return false;
    return node !== undefined;
  };
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '.') {
      if (i + 1 >= t.length || !step(t[++i]!)) return false;
    } else if (t[i] === '[') {
      const quoted = t[++i];
      if (!quoted || quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) return false;
      const name = unescapeSingleQuote(quoted.slice(1, -1));
      if (name === undefined || !step(name) || t[++i] !== ']') return false;
    } else return false;
  }
  return true;
}

/** Every problem of one entry, in validation.go's order. */
export function entryProblems(rule: ValidationRule, schema: JsonSchemaNode): EntryProblem[] {
  const out: EntryProblem[] = [];
  const text = typeof rule.rule === 'string' ? rule.rule : '';
  const message = typeof rule.message === 'string' ? rule.message : '';
  if (trim(text) === '') out.push({ field: 'rule', detail: 'Required value: rule is not specified' });
  else if (message.length > 0 && trim(message) === '') out.push({ field: 'message', detail: invalid(message, 'must be non-empty if specified') });
  else if (hasNewlines(trim(message))) out.push({ field: 'message', detail: invalid(message, 'must not contain line breaks') });
  else if (hasNewlines(trim(text)) && trim(message) === '')
    out.push({ field: 'message', detail: 'Required value: message must be specified if rule contains line breaks' });
  const expression = typeof rule.messageExpression === 'string' ? rule.messageExpression : '';
  if (expression.length > 0 && trim(expression) === '')
    out.push({ field: 'messageExpression', detail: 'Required value: messageExpression must be non-empty if specified' });
  if (rule.reason !== undefined && rule.reason !== null && !REASONS.includes(String(rule.reason)))
    out.push({
      field: 'reason',
      detail: `Unsupported value: ${JSON.stringify(String(rule.reason))}: supported values: ${REASONS.map((r) => `"${r}"`).join(', ')}`,
    });
  const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
  if (fieldPath.length > 0 && trim(fieldPath) === '') out.push({ field: 'fieldPath', detail: invalid(fieldPath, 'must be non-empty if specified') });
  if (hasNewlines(fieldPath)) out.push({ field: 'fieldPath', detail: invalid(fieldPath, 'must not contain line breaks') });
  if (fieldPath.length > 0 && !validFieldPath(fieldPath, schema)) out.push({ field: 'fieldPath', detail: invalid(fieldPath, 'must be a valid path') });
  return out;
}
