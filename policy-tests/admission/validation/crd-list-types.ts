/**
 * What the API server refuses of a CRD schema node's list and map types
 * (k8s.io/apiextensions-apiserver validation.go, as on a create): a map type
 * on what is not an object, a list type on what is not an array, an unknown
 * type of either, a set of lists or objects that are not atomic, map keys on
 * what is not a map list, a map list without keys, with items that are not
 * one object schema, keys that are no scalar property of the item, repeated,
 * neither required nor defaulted, or nullable, and nullable items of a set
 * or map list. Each in field.Error's words, at the path of the field it
 * names, relative to the node.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { isMap } from '../../model/core/dig.ts';
import { notSupported } from './syntax.ts';

export interface SchemaProblem {
  at: PathSegment[];
  /** As field.Error prints it after the path. */
  detail: string;
  /** What the gate cannot say the API server refuses or admits. */
  notJudged?: true;
  /**
   * Where the problem lies inside a value (a default): how many of `at`'s last steps are the value's, and field.Path's
   * spelling of them, which is not a schema path's (`.foo.0.bar` as kube-openapi names it, `.list[0].kind` as objectmeta does).
   */
  inValue?: { steps: number; text: string };
}

type Node = Record<string, unknown>;

/** A scalar as text; a structure (which the schema's own validation refuses first) as JSON. */
const text = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v as string));
/** field.Error's rendering of a bad value: a string quoted, a missing one null, a list as Go's %#v prints []string. */
const shown = (v: unknown): string =>
  v === undefined || v === null ? 'null' : Array.isArray(v) ? `[]string{${v.map((x) => JSON.stringify(text(x))).join(', ')}}` : JSON.stringify(text(v));
/** field.Required, field.Invalid, field.Forbidden and field.NotSupported, as each prints after the path. */
export const required = (at: PathSegment[], why: string): SchemaProblem => ({ at, detail: why ? `Required value: ${why}` : 'Required value' });
export const invalid = (at: PathSegment[], value: unknown, why: string): SchemaProblem => ({ at, detail: `Invalid value: ${shown(value)}: ${why}` });
export const forbidden = (at: PathSegment[], why: string): SchemaProblem => ({ at, detail: `Forbidden: ${why}` });
export const unsupported = (at: PathSegment[], value: string, supported: string[]): SchemaProblem => ({
  at,
  detail: notSupported(value, supported),
});

/** A type the node must have for its extension: Required when it has none, Invalid when it has another. */
function typeFor(s: Node, extension: string, want: string): SchemaProblem[] {
  if (s[extension] === undefined || s.type === want) return [];
  const why = `must be ${want} if ${extension} is specified`;
  return [typeof s.type === 'string' && s.type !== '' ? invalid(['type'], s.type, why) : required(['type'], why)];
}

function setItemProblems(items: Node): SchemaProblem[] {
  const why = 'must be atomic as item of a list with x-kubernetes-list-type=set';
  if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic')
    return [invalid(['items', 'x-kubernetes-list-type'], items['x-kubernetes-list-type'], why)];
  // Upstream prints the item's list type here, which an object has none of.
  if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic')
    return [invalid(['items', 'x-kubernetes-map-type'], items['x-kubernetes-list-type'], why)];
  return [];
}

function mapListProblems(s: Node, keys: readonly unknown[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (keys.length === 0) out.push(required(['x-kubernetes-list-map-keys'], 'must not be empty if x-kubernetes-list-type is map'));
  if (s.items === undefined) out.push(required(['items'], 'must have a schema if x-kubernetes-list-type is map'));
  if (Array.isArray(s.items)) out.push(invalid(['items'], 'items', 'must only have a single schema if x-kubernetes-list-type is map'));
  if (!isMap(s.items)) return out;
  const items = s.items;
  if (items.type !== 'object') out.push(invalid(['items', 'type'], items.type, "must be object if parent array's x-kubernetes-list-type is map"));
  const properties = isMap(items.properties) ? items.properties : {};
  const isRequired = new Set(Array.isArray(items.required) ? items.required.map(String) : []);
  const seen = new Set<string>();
  for (const key of keys.map(String)) {
    const property = properties[key];
    if (items.type === 'object') {
      if (!isMap(property)) out.push(invalid(['x-kubernetes-list-map-keys'], keys, 'entries must all be names of item properties'));
      else if (property.type === 'array' || property.type === 'object')
        out.push(invalid(['items', 'properties', key, 'type'], items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
      if (seen.has(key)) out.push(invalid(['x-kubernetes-list-map-keys'], keys, 'must not contain duplicate entries'));
    }
    seen.add(key);
    if (!isMap(property)) continue;
    if (!isRequired.has(key) && property.default === undefined)
      out.push(
        required(
          ['items', 'properties', key, 'default'],
          'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property',
        ),
      );
    if (property.nullable === true)
      out.push(forbidden(['items', 'properties', key, 'nullable'], 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
  }
  return out;
}

/** Every list and map type problem of one schema node, in validation.go's order. */
export function listTypeProblems(s: Node): SchemaProblem[] {
  const out = [...typeFor(s, 'x-kubernetes-map-type', 'object')];
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular')
    out.push(unsupported(['x-kubernetes-map-type'], text(mapType), ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const typeProblems = typeFor(s, 'x-kubernetes-list-type', 'array');
  out.push(...typeProblems);
  if (typeProblems.length === 0 && listType === 'set' && isMap(s.items)) out.push(...setItemProblems(s.items));
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map')
    out.push(unsupported(['x-kubernetes-list-type'], text(listType), ['atomic', 'set', 'map']));
  const keys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as unknown[]) : [];
  if (keys.length > 0 && listType === undefined) out.push(required(['x-kubernetes-list-type'], 'must be map if x-kubernetes-list-map-keys is non-empty'));
  else if (keys.length > 0 && listType !== 'map')
    out.push(invalid(['x-kubernetes-list-type'], listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  if (listType === 'map') out.push(...mapListProblems(s, keys));
  if ((listType === 'set' || listType === 'map') && isMap(s.items) && s.items.nullable === true)
    out.push(forbidden(['items', 'nullable'], `cannot be nullable when x-kubernetes-list-type is ${text(listType)}`));
  return out;
}
