/**
 * apimachinery's label syntaxes (k8s.io/apimachinery/pkg/util/validation), which both the API server's validation
 * and the scheduler's selectors read (labels.NewRequirement): a DNS subdomain, a qualified name (a label key), a label
 * value. Each returns the reason, or undefined when the value is valid.
 */
import { goParseDecimal } from '../go/strconv.ts';

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** IsDNS1123Subdomain */
export function dns1123Subdomain(v: string): string | undefined {
  if (v.length > 253) return `must be no more than 253 characters`;
  if (!DNS1123_SUBDOMAIN.test(v))
    return `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`;
  return undefined;
}

/** IsQualifiedName: label and annotation keys, `[prefix/]name`. */
export function qualifiedName(v: string): string | undefined {
  const parts = v.split('/');
  if (parts.length > 2) return `a qualified name must consist of alphanumeric characters, '-', '_' or '.', with an optional DNS subdomain prefix and '/'`;
  const name = parts.length === 2 ? parts[1]! : parts[0]!;
  if (parts.length === 2) {
    if (parts[0] === '') return 'prefix part must be non-empty';
    const prefix = dns1123Subdomain(parts[0]!);
    if (prefix) return `prefix part ${prefix}`;
  }
  if (name === '') return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME_PART.test(name))
    return `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  return undefined;
}

/** IsValidLabelValue */
export function labelValue(v: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (!LABEL_VALUE.test(v))
    return `a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character`;
  return undefined;
}

/** A requirement of a label selector, its operator as apimachinery's selection package names it. */
export type LabelRequirement = { key: string; operator: SelectionOperator; values: string[] };
export type SelectionOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';
const goStrings = (values: readonly string[]) => `[]string{${values.map((v) => JSON.stringify(v)).join(', ')}}`;

/** strconv.ParseInt(v, 10, 64) succeeds. */
const isInt64 = (v: string) => 'value' in goParseDecimal(v, { bits: 64, unsigned: false });

const OPERATORS: readonly string[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];

/** labels.NewRequirement's errors for one requirement, each as field.Error prints it (under the path `key`, `operator`, `values`). */
export function requirementErrors({ key, operator, values }: { key: string; operator: string; values: readonly string[] }): string[] {
  const out: string[] = [];
  const keyProblem = qualifiedName(key);
  if (keyProblem) out.push(`key: Invalid value: ${JSON.stringify(key)}: ${keyProblem}`);
  const invalid = (detail: string) => out.push(`values: Invalid value: ${goStrings(values)}: ${detail}`);
  if ((operator === 'in' || operator === 'notin') && values.length === 0) invalid("for 'in', 'notin' operators, values set can't be empty");
  if ((operator === '=' || operator === '==' || operator === '!=') && values.length !== 1) invalid('exact-match compatibility requires one single value');
  if ((operator === 'exists' || operator === '!') && values.length !== 0) invalid('values set must be empty for exists and does not exist');
  if (operator === 'gt' || operator === 'lt') {
    if (values.length !== 1) invalid("for 'Gt', 'Lt' operators, exactly one value is required");
    values.forEach((v, i) => {
      if (!isInt64(v)) out.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`);
    });
  }
  if (!OPERATORS.includes(operator))
    out.push(`operator: Unsupported value: ${JSON.stringify(operator)}: supported values: ${OPERATORS.map((o) => JSON.stringify(o)).join(', ')}`);
  // validateLabelValue: under the value's index, then the key (path.Key).
  values.forEach((v, i) => {
    const problem = labelValue(v);
    if (problem) out.push(`values[${i}][${key}]: Invalid value: ${JSON.stringify(v)}: ${problem}`);
  });
  return out;
}

/** NewRequirement's error as utilerrors' aggregate prints it (one error alone, several as `[a, b]`); undefined where it builds one. */
export function requirementError(r: LabelRequirement): string | undefined {
  const out = requirementErrors(r);
  return out.length <= 1 ? out[0] : `[${out.join(', ')}]`;
}

/** The operators LabelSelectorAsSelector maps a matchExpression's to. */
const SELECTOR_OPERATORS: Readonly<Record<string, SelectionOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector's error for a selector, or undefined where it builds one: each matchLabels entry as
 * an `=` requirement, then each matchExpression, its operator one of the four it maps, each through labels.NewRequirement
 * (several errors of one requirement printed as utilerrors' aggregate prints them). Go walks matchLabels in map order;
 * this walks them as written, so of two bad labels it may name the other one.
 */
export function labelSelectorError(selector: { matchLabels?: unknown; matchExpressions?: unknown } | undefined): string | undefined {
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  for (const [key, value] of Object.entries((selector?.matchLabels ?? {}) as Record<string, unknown>)) {
    const error = requirementError({ key, operator: '=', values: [text(value)] });
    if (error) return error;
  }
  for (const e of Array.isArray(selector?.matchExpressions) ? (selector.matchExpressions as Record<string, unknown>[]) : []) {
    const operator = Object.hasOwn(SELECTOR_OPERATORS, text(e?.operator)) ? SELECTOR_OPERATORS[text(e?.operator)]! : undefined;
    if (!operator) return `${JSON.stringify(text(e?.operator))} is not a valid label selector operator`;
    const error = requirementError({ key: text(e?.key), operator, values: Array.isArray(e?.values) ? e.values.map(text) : [] });
    if (error) return error;
  }
  return undefined;
}
