/**
 * A YAML or JSON value as text, for messages and keys: a scalar as itself, a
 * map or list as JSON. String() would print a map as "[object Object]" and
 * hide what the file says.
 */
export function scalarText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}
