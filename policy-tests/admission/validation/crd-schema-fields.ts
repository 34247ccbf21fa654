/**
 * What the API server refuses in any node of a CRD version's schema, beyond its structure, rules, defaults and list
 * types (k8s.io/apiextensions-apiserver validation.go: specStandardValidatorV3.validate and
 * ValidateCustomResourceDefinitionOpenAPISchema, as on a create): a type OpenAPI v3 does not have (null among them),
 * the JSON Schema keywords Kubernetes does not support (id, $ref, additionalItems, patternProperties, definitions,
 * dependencies, a list of item schemas), uniqueItems, additionalProperties beside properties, a preserve-unknown-fields
 * of false; an embedded resource inside a resource's metadata, apiVersion or kind, a default in the root's own or
 * under additionalProperties inside metadata; at the root, nullable, and, where the version has a status
 * subresource, any field but those that keep status's validation when it is read as properties[status]. Each in field.Error's words, at its path from the root.
 */
import { isMap } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { forbidden, invalid, unsupported, type SchemaProblem } from './crd-list-types.ts';

type Node = Record<string, unknown>;

/** openapiV3Types, sorted as sets.List() prints them. */
const V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];

/** The keywords the API server refuses outright, with its words. */
const UNSUPPORTED: ReadonlyArray<readonly [string, string]> = [
  ['id', 'id is not supported'],
  ['additionalItems', 'additionalItems is not supported'],
  ['patternProperties', 'patternProperties is not supported'],
  ['definitions', 'definitions is not supported'],
  ['dependencies', 'dependencies is not supported'],
  ['$ref', '$ref is not supported'],
];

/** JSONSchemaProps' fields in their order (the root check stops at the first it refuses), as their JSON keys. */
const ROOT_FIELD_ORDER = [
  ...['id', '$schema', '$ref', 'description', 'type', 'format', 'title', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum'],
  ...['maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf', 'enum', 'maxProperties', 'minProperties'],
  ...['required', 'items', 'allOf', 'oneOf', 'anyOf', 'not', 'properties', 'additionalProperties', 'patternProperties', 'dependencies'],
  ...['additionalItems', 'definitions', 'externalDocs', 'example', 'nullable', 'x-kubernetes-preserve-unknown-fields'],
  ...['x-kubernetes-embedded-resource', 'x-kubernetes-int-or-string', 'x-kubernetes-list-map-keys', 'x-kubernetes-list-type'],
  ...['x-kubernetes-map-type', 'x-kubernetes-validations'],
];
/** allowedFieldsAtRootSchema: what status extracted as properties[status] keeps, by Go field name and JSON key. */
const ROOT_ALLOWED: ReadonlyArray<readonly [string, string]> = [
  ['Description', 'description'],
  ['Type', 'type'],
  ['Format', 'format'],
  ['Title', 'title'],
  ['Maximum', 'maximum'],
  ['ExclusiveMaximum', 'exclusiveMaximum'],
  ['Minimum', 'minimum'],
  ['ExclusiveMinimum', 'exclusiveMinimum'],
  ['MaxLength', 'maxLength'],
  ['MinLength', 'minLength'],
  ['Pattern', 'pattern'],
  ['MaxItems', 'maxItems'],
  ['MinItems', 'minItems'],
  ['UniqueItems', 'uniqueItems'],
  ['MultipleOf', 'multipleOf'],
  ['Required', 'required'],
  ['Items', 'items'],
  ['Properties', 'properties'],
  ['ExternalDocs', 'externalDocs'],
  ['Example', 'example'],
  ['XPreserveUnknownFields', 'x-kubernetes-preserve-unknown-fields'],
  ['XValidations', 'x-kubernetes-validations'],
];

/** Go's zero value, which reflect.DeepEqual skips: nothing, false, 0, "", and an empty list or map. */
const isZero = (v: unknown): boolean =>
  v === undefined || v === null || v === false || v === 0 || v === '' || (Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0);

/** One node's own problems, at paths relative to it. */
function nodeProblems(s: Node): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (typeof s.type === 'string' && s.type !== '' && !V3_TYPES.includes(s.type)) out.push(unsupported(['type'], s.type, V3_TYPES));
  // A pointer in Go (additionalItems, dependencies) is set even as false or {}; the rest are set when not empty.
  const set = (key: string) => (key === 'additionalItems' || key === 'dependencies' ? s[key] !== undefined && s[key] !== null : !isZero(s[key]));
  for (const [key, why] of UNSUPPORTED) if (set(key)) out.push(forbidden([key], why));
  if (s.type === 'null') out.push(forbidden(['type'], 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items) && s.items.length > 0) out.push(forbidden(['items'], 'items must be a schema object and not an array'));
  if (s.uniqueItems === true) out.push(forbidden(['uniqueItems'], 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));
  // additionalProperties: true says nothing the properties do not; false, or a schema, contradicts them.
  if (s.additionalProperties !== undefined && s.additionalProperties !== true && isMap(s.properties) && Object.keys(s.properties).length > 0)
    out.push(forbidden(['additionalProperties'], 'additionalProperties and properties are mutual exclusive'));
  if (s['x-kubernetes-preserve-unknown-fields'] === false) out.push(invalid(['x-kubernetes-preserve-unknown-fields'], false, 'must be true or undefined'));
  return out;
}

/** The root's own: not nullable, and under a status subresource only the fields status keeps, an object. */
function rootProblems(s: Node, statusEnabled: boolean): SchemaProblem[] {
  const out: SchemaProblem[] = s.nullable === true ? [forbidden(['nullable'], 'nullable cannot be true at the root')] : [];
  if (!statusEnabled) return out;
  const allowed = new Set(ROOT_ALLOWED.map(([, key]) => key));
  for (const key of ROOT_FIELD_ORDER.filter((k) => !isZero(s[k]))) {
    if (key === 'type') {
      if (s.type === 'object') continue;
      return [...out, invalid(['type'], s.type, 'only "object" is allowed as the type at the root of the schema if the status subresource is enabled')];
    }
    if (!allowed.has(key))
      return [
        ...out,
        {
          at: [],
          detail: `Invalid value: ${key}: only [${ROOT_ALLOWED.map(([name]) => name).join(' ')}] fields are allowed at the root of the schema if the status subresource is enabled`,
        },
      ];
  }
  return out;
}

/** metaFields: the properties of a resource that are its type and object metadata. */
const META_FIELDS = new Set(['metadata', 'apiVersion', 'kind']);

/**
 * What a node's place forbids (specStandardValidatorV3's withInsideResourceMeta and withForbiddenDefaults): inside a
 * resource's metadata, apiVersion or kind (at the root, or of an embedded resource) no embedded resource; and no
 * default in the root's own metadata, apiVersion and kind, nor under additionalProperties inside metadata, where
 * pruning without a value is ambiguous. Both hold for everything under the node.
 */
interface Place {
  insideMeta: boolean;
  noDefaults?: string;
}

function placeProblems(s: Node, place: Place): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (place.noDefaults && s.default !== undefined) out.push(forbidden(['default'], `must not be set ${place.noDefaults}`));
  if (place.insideMeta && s['x-kubernetes-embedded-resource'] === true)
    out.push(forbidden(['x-kubernetes-embedded-resource'], 'must not be used inside of resource meta'));
  return out;
}

/** Every node's problems under a version's openAPIV3Schema, at paths from it. */
export function schemaFieldProblems(root: unknown, statusEnabled: boolean): SchemaProblem[] {
  if (!isMap(root)) return [];
  const out: SchemaProblem[] = rootProblems(root, statusEnabled);
  const visit = (node: unknown, at: PathSegment[], place: Place): void => {
    if (!isMap(node)) return;
    for (const p of [...nodeProblems(node), ...placeProblems(node, place)]) out.push({ ...p, at: [...at, ...p.at] });
    const isRoot = at.length === 0;
    if (isMap(node.properties))
      for (const [name, child] of Object.entries(node.properties)) {
        const meta = (isRoot || node['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(name);
        const inner = meta ? { insideMeta: true, noDefaults: isRoot ? `in top-level ${name}` : place.noDefaults } : place;
        visit(child, [...at, 'properties', name], inner);
      }
    if (isMap(node.definitions)) for (const [name, child] of Object.entries(node.definitions)) visit(child, [...at, 'definitions', name], place);
    if (Array.isArray(node.items)) node.items.forEach((item, i) => visit(item, [...at, 'items', i], place));
    else visit(node.items, [...at, 'items'], place);
    const underMeta = place.insideMeta ? { ...place, noDefaults: 'inside additionalProperties applying to object metadata' } : place;
    visit(node.additionalProperties, [...at, 'additionalProperties'], underMeta);
    visit(node.not, [...at, 'not'], place);
    for (const key of ['allOf', 'anyOf', 'oneOf'] as const)
      if (Array.isArray(node[key])) (node[key] as unknown[]).forEach((sub, i) => visit(sub, [...at, key, i], place));
  };
  visit(root, [], { insideMeta: false });
  return out;
}
