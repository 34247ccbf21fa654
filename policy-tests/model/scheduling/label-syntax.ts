/**
 * apimachinery's label syntaxes (k8s.io/apimachinery/pkg/util/validation), which both the API server's validation
 * and the scheduler's selectors read (labels.NewRequirement): a DNS subdomain, a qualified name (a label key), a label
 * value. Each returns the reason, or undefined when the value is valid.
 */
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
