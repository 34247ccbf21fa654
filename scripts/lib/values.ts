/**
 * Reading the plain objects a rendered snapshot holds: the scripts' own
 * small helpers, so the gate's front door carries the gate's API only.
 */

/** A mapping (a YAML map, a JSON object), not a list or null. */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The value at a path of keys and indexes; undefined as soon as a step is missing. */
export const valueAt = (value: unknown, path: readonly (string | number)[]): unknown =>
  path.reduce<unknown>((cur, key) => (typeof cur === 'object' && cur !== null ? (cur as Record<string | number, unknown>)[key] : undefined), value);

/** A value as a reader sees it in a message: a scalar as itself, anything else as JSON, nothing as empty. */
export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return value.toString();
  return JSON.stringify(value) ?? '';
}
