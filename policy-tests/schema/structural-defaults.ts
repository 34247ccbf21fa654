/**
 * A custom resource as the API server holds it when it validates it (apiextensions-apiserver
 * customresource_handler.go: the schema coercer's `PruneNonNullableNullsWithoutDefaults`, then the defaulter's
 * `structuraldefaulting.Default`, pkg/apiserver/schema/defaulting): a null where the schema takes none and gives no
 * default is dropped, and a field the object leaves out, or a null the schema takes none of, gets the schema's
 * default, at every level the object reaches (properties, additionalProperties, items). Helm writes `key: null`
 * where a value is empty, and CRDs mark defaulted fields required: judged as written, both were refused though the
 * cluster takes them. Pure, copy on write: an object that needs nothing is returned as it is.
 */
import { isMap } from '../model/core/dig.ts';
import { perPair } from '../model/core/per-object.ts';

type Schema = Record<string, unknown>;

const propertiesOf = (s: Schema | undefined): Record<string, Schema> => (s && isMap(s.properties) ? (s.properties as Record<string, Schema>) : {});
const additionalOf = (s: Schema | undefined): Schema | undefined => (s && isMap(s.additionalProperties) ? s.additionalProperties : undefined);
const itemsOf = (s: Schema | undefined): Schema | undefined => (s && isMap(s.items) ? s.items : undefined);
/** `nullable: true`, or null among the types of a schema already written as JSON Schema. */
const nullable = (s: Schema): boolean => s.nullable === true || (Array.isArray(s.type) && s.type.includes('null'));
const nonNullableNull = (x: unknown, s: Schema | undefined): boolean => x === null && s !== undefined && !nullable(s);
const fieldSchema = (s: Schema | undefined, key: string): Schema | undefined => propertiesOf(s)[key] ?? additionalOf(s);

/** `PruneNonNullableNullsWithoutDefaults`: a copy where it changes anything. */
export function pruneNulls(x: unknown, s: Schema | undefined): unknown {
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    const out = x.map((e) => pruneNulls(e, items));
    return out.every((e, i) => e === x[i]) ? x : out;
  }
  if (!isMap(x)) return x;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(x)) {
    const field = fieldSchema(s, k);
    const pruned = nonNullableNull(v, field) && field!.default === undefined ? undefined : pruneNulls(v, field);
    if (pruned === v) continue;
    out ??= { ...x };
    if (pruned === undefined) delete out[k];
    else out[k] = pruned;
  }
  return out ?? x;
}

/** `Default`: a missing field, or a non-nullable null, takes its default; then each field, item and entry in turn. */
export function withDefaults(x: unknown, s: Schema | undefined): unknown {
  if (s === undefined) return x;
  if (Array.isArray(x)) {
    const items = itemsOf(s);
    const out = x.map((e) => withDefaults(nonNullableNull(e, items) ? structuredClone(items!.default ?? null) : e, items));
    return out.every((e, i) => e === x[i]) ? x : out;
  }
  if (!isMap(x)) return x;
  let out: Record<string, unknown> | undefined;
  const set = (k: string, v: unknown) => {
    out ??= { ...x };
    out[k] = v;
  };
  for (const [k, prop] of Object.entries(propertiesOf(s)))
    if (prop.default !== undefined && (!Object.hasOwn(x, k) || nonNullableNull(x[k], prop))) set(k, structuredClone(prop.default));
  const additional = additionalOf(s);
  for (const [k, v] of Object.entries(out ?? x)) {
    const prop = propertiesOf(s)[k];
    const before = !prop && nonNullableNull(v, additional) ? structuredClone(additional!.default ?? null) : v;
    const after = withDefaults(before, prop ?? additional);
    if (after !== v) set(k, after);
  }
  return out ?? x;
}

const defaulted = perPair<object, unknown>();

/**
 * The object as the API server validates it under this schema (its openAPIV3Schema), once per object and schema: the
 * schema layer, the CRD rules and the embedded resources' metadata each ask it of every custom resource.
 */
export function asDefaulted(object: unknown, schema: Schema): unknown {
  if (typeof object !== 'object' || object === null) return withDefaults(pruneNulls(object, schema), schema);
  return defaulted(object, schema, () => withDefaults(pruneNulls(object, schema), schema));
}
