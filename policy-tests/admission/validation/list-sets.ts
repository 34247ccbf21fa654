/**
 * A custom resource's lists as its CRD types them (x-kubernetes-list-type), which the API server validates on every
 * create and update (apiextensions-apiserver's schema/listtype: ValidateListSetsAndMaps): a `set` holds no item twice,
 * a `map` no two items of one key (the x-kubernetes-list-map-keys together). JSON Schema has no word for either, so
 * the schema layer's validator passes both; the API server answers "Duplicate value".
 */
import { jsonOf } from '../../model/stores/outcome-store.ts';
import { isDeepStrictEqual } from 'node:util';
import type { PathSegment } from '../../model/core/positions.ts';
import type { JsonSchemaNode } from '../cel/schema-node.ts';
import type { Invalid } from './metadata.ts';

const FN = 'apiextensions ValidateListSetsAndMaps';

/** Go's %#v of a map key tuple, as field.Duplicate prints it. */
const goMap = (key: Record<string, unknown>): string =>
  `map[string]interface {}{${Object.entries(key)
    .map(
      ([k, v]) =>
        `${JSON.stringify(k)}:${v === undefined || v === null ? 'interface {}(nil)' : typeof v === 'string' ? JSON.stringify(v) : String(v as number | boolean)}`,
    )
    .join(', ')}}`;

function duplicatesIn(schema: JsonSchemaNode, list: unknown[], path: PathSegment[]): Invalid[] {
  const type = schema['x-kubernetes-list-type'];
  const out: Invalid[] = [];
  if (type === 'set') {
    list.forEach((item, i) => {
      if (list.slice(0, i).some((earlier) => isDeepStrictEqual(earlier, item)))
        out.push({ path: [...path, i], fn: FN, message: `${path.join('.')}[${i}]: Duplicate value: ${JSON.stringify(item)}` });
    });
  } else if (type === 'map') {
    const keys = Array.isArray(schema['x-kubernetes-list-map-keys']) ? (schema['x-kubernetes-list-map-keys'] as string[]) : [];
    const seen: Record<string, unknown>[] = [];
    list.forEach((item, i) => {
      if (!item || typeof item !== 'object' || keys.length === 0) return;
      const key = Object.fromEntries(keys.map((k) => [k, (item as Record<string, unknown>)[k] ?? dig(schema, k)]));
      if (seen.some((s) => isDeepStrictEqual(s, key)))
        out.push({ path: [...path, i], fn: FN, message: `${path.join('.')}[${i}]: Duplicate value: ${goMap(key)}` });
      seen.push(key);
    });
  }
  return out;
}

/** A key's default, which the API server takes for a missing key (a key neither set nor defaulted counts as nil). */
const dig = (schema: JsonSchemaNode, key: string): unknown => schema.items?.properties?.[key]?.default;

const typed = new WeakMap<JsonSchemaNode, boolean>();
/** Whether a schema types any list as a set or a map, found once per schema: most CRDs (and every bundled one) type none. */
function typesLists(schema: JsonSchemaNode): boolean {
  let has = typed.get(schema);
  if (has === undefined) typed.set(schema, (has = /"x-kubernetes-list-type":"(set|map)"/.test(jsonOf(schema))));
  return has;
}

/** Every list of `value` its schema makes a set or a map, and the second of any two entries alike. */
export function listSetAndMapDuplicates(schema: JsonSchemaNode | undefined, value: unknown, path: PathSegment[] = []): Invalid[] {
  if (!schema || value === null || typeof value !== 'object' || (path.length === 0 && !typesLists(schema))) return [];
  if (Array.isArray(value))
    return [...duplicatesIn(schema, value, path), ...value.flatMap((item, i) => listSetAndMapDuplicates(schema.items, item, [...path, i]))];
  const out: Invalid[] = [];
  for (const [key, child] of Object.entries(value)) {
    const childSchema = schema.properties?.[key] ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
    out.push(...listSetAndMapDuplicates(childSchema, child, [...path, key]));
  }
  return out;
}
