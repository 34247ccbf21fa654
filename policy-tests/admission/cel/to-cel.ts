/**
 * A custom resource's value as the API server hands it to a rule: typed by
 * its schema node (integer, number, duration, date-time and date as
 * timestamps, byte as bytes, int-or-string), set and map lists carrying
 * their list type, a field set to null absent, lists and maps metered; and
 * data its schema does not describe refused before any rule runs.
 */
import type { CelInput } from '@bufbuild/cel';
import { meteredList, meteredMap } from './budget.ts';
import type { JsonSchemaNode } from './schema-node.ts';
import { celRuntime, isCelError } from './runtime.ts';
import { rememberTimestampText } from './timestamps.ts';

export const types = (s: JsonSchemaNode): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

const durations = new Map<string, CelInput>();
function special(fn: 'duration' | 'timestamp', text: string): CelInput {
  const key = `${fn}:${text}`;
  let v = durations.get(key);
  if (v === undefined) {
    const r = celRuntime().cel.run(`${fn}(s)`, { s: text });
    v = isCelError(r) ? text : (r as CelInput);
    if (fn === 'timestamp') rememberTimestampText(v, text);
    durations.set(key, v);
  }
  return v;
}

/** Data its schema does not describe: the API server's conversion refuses it before any rule runs. */
export class InvalidData extends Error {}

/** Why a value cannot be read under its schema node, in the API server's words; undefined when it can. */
function invalidData(value: unknown, s: JsonSchemaNode): string | undefined {
  const t = types(s);
  const isMap = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (t.includes('object') && !isMap) return 'expected a map for the provided schema with type=object';
  if (t.includes('array') && !Array.isArray(value)) return 'expected an array for the provided schema with type=array';
  if (s['x-kubernetes-int-or-string'] && !['string', 'number', 'bigint'].includes(typeof value))
    return 'expected XIntOrString value to be either a string or integer';
  if (Array.isArray(value) && value.includes(null) && s.items && !s.items.nullable) return 'got null for schema with nullable=false';
  return undefined;
}

/** A JSON value as CEL sees it under this schema node; InvalidData when the schema does not describe it. */
export function toCel(value: unknown, schema: JsonSchemaNode | undefined): CelInput {
  if (value === null || value === undefined) return null;
  const s = schema ?? {};
  const invalid = schema ? invalidData(value, s) : undefined;
  if (invalid) throw new InvalidData(`invalid data, ${invalid}`);
  if (typeof value === 'number') return (types(s).includes('number') && !s['x-kubernetes-int-or-string']) || !Number.isInteger(value) ? value : BigInt(value);
  // An integer past a double's range, read exactly.
  if (typeof value === 'bigint') return types(s).includes('number') ? Number(value) : value;
  if (typeof value === 'string') {
    if (s.format === 'duration') return special('duration', value);
    if (s.format === 'date-time') return special('timestamp', value);
    // As the API server types them: a date is the timestamp of its midnight (UTC), a byte string its decoded bytes.
    if (s.format === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(value)) return special('timestamp', `${value}T00:00:00Z`);
    if (s.format === 'byte' && /^[A-Za-z0-9+/]*={0,2}$/.test(value) && value.length % 4 === 0) return new Uint8Array(Buffer.from(value, 'base64'));
    return value;
  }
  if (typeof value === 'boolean') return value;
  // Lists and maps are metered (budget.ts): each element a rule walks counts against the API server's limits.
  const { cel } = celRuntime();
  if (Array.isArray(value)) {
    const type = s['x-kubernetes-list-type'];
    const keys = s['x-kubernetes-list-map-keys'];
    const listType = type === 'set' || type === 'map' ? { type: type as 'set' | 'map', keys: Array.isArray(keys) ? (keys as string[]) : [] } : undefined;
    const items = s.items ? { type: types(s.items)[0], format: s.items.format } : undefined;
    return meteredList(
      value.map((v) => toCel(v, s.items)),
      listType,
      items,
    );
  }
  const out = new Map<string, CelInput>();
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    // A field set to null is an absent field, as the API server reads it (a null map value or list item stays).
    if (v === null && s.properties?.[k]) continue;
    const sub = s.properties?.[k] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
    out.set(k, toCel(v, sub));
  }
  return meteredMap(cel.celMap(out));
}
