/**
 * What the API server refuses of a CRD schema that is not structural
 * (k8s.io/apiextensions-apiserver pkg/apiserver/schema/validation.go
 * validateStructuralInvariants): an array without items, a node without a
 * type (at the root, as array items, as an object field; unless it is
 * int-or-string or keeps unknown fields), a root that is not an object or
 * has additionalProperties, an embedded resource that is not an object,
 * has additionalProperties, or declares no properties without keeping
 * unknown ones, kind and apiVersion that are not strings where a resource
 * starts, int-or-string with an extension it excludes, and metadata beyond
 * name and generateName at the root; and inside allOf, anyOf, oneOf and not
 * (validateNestedValueValidation) nothing but value validations: no type,
 * additionalProperties, default, title, description, nullable, Kubernetes
 * extension or rule there, and no metadata (the int-or-string anyOf of
 * integer and string excepted). Each problem in field.Error's words, at its
 * path from the root.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import { isMap } from '../../model/core/dig.ts';
import { extendPath, spellPath, type PathChain } from '../../model/core/path-chain.ts';
import type { SchemaProblem } from './crd-list-types.ts';

type Node = Record<string, unknown>;
type Level = 'root' | 'item' | 'field';

const typeOf = (s: Node): string => (typeof s.type === 'string' ? s.type : '');

const EMPTY_TYPE: Record<Level, string> = {
  root: 'must not be empty at the root',
  item: 'must not be empty for specified array items',
  field: 'must not be empty for specified object fields',
};

/** The keys that may stand on the root's metadata: its type and default, and name and generateName as its only properties. */
function metadataProblems(metadata: Node, checkMetadata: boolean, level: Level, at: PathSegment[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  if (checkMetadata && typeOf(metadata) !== 'object')
    out.push({ at: [...at, 'type'], detail: `Invalid value: ${JSON.stringify(typeOf(metadata))}: must be object` });
  if (level !== 'root') return out;
  const properties = isMap(metadata.properties) ? Object.keys(metadata.properties) : [];
  // Go compares with the zero value: what is false, empty or absent is not there.
  const zero = (v: unknown) =>
    v === false || v === '' || v === null || v === undefined || (Array.isArray(v) ? v.length === 0 : isMap(v) && Object.keys(v).length === 0);
  const onlyNames = properties.every((p) => p === 'name' || p === 'generateName');
  const rest = Object.keys(metadata).filter((k) => k !== 'type' && k !== 'default' && !(k === 'properties' && onlyNames) && !zero(metadata[k]));
  if (rest.length > 0) out.push({ at, detail: 'Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified' });
  return out;
}

function embeddedProblems(s: Node, at: PathSegment[]): SchemaProblem[] {
  if (s['x-kubernetes-embedded-resource'] !== true) return [];
  const out: SchemaProblem[] = [];
  if (s.additionalProperties !== undefined)
    out.push({ at: [...at, 'additionalProperties'], detail: 'Forbidden: must not be used if x-kubernetes-embedded-resource is set' });
  if (s['x-kubernetes-preserve-unknown-fields'] !== true && !(isMap(s.properties) && Object.keys(s.properties).length > 0))
    out.push({
      at: [...at, 'properties'],
      detail: 'Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields',
    });
  return out;
}

function typeProblems(s: Node, level: Level, at: PathSegment[]): SchemaProblem[] {
  const type = typeOf(s);
  if (s['x-kubernetes-embedded-resource'] === true && type !== 'object') {
    const why = 'must be object if x-kubernetes-embedded-resource is true';
    return [{ at: [...at, 'type'], detail: type ? `Invalid value: ${JSON.stringify(type)}: ${why}` : `Required value: ${why}` }];
  }
  if (!type && s['x-kubernetes-int-or-string'] !== true && s['x-kubernetes-preserve-unknown-fields'] !== true)
    return [{ at: [...at, 'type'], detail: `Required value: ${EMPTY_TYPE[level]}` }];
  return [];
}

function extensionProblems(s: Node, at: PathSegment[]): SchemaProblem[] {
  if (s['x-kubernetes-int-or-string'] !== true) return [];
  const out: SchemaProblem[] = [];
  for (const key of ['x-kubernetes-preserve-unknown-fields', 'x-kubernetes-embedded-resource'])
    if (s[key] === true) out.push({ at: [...at, key], detail: 'Invalid value: true: must be false if x-kubernetes-int-or-string is true' });
  return out;
}

const forbidden = (at: PathSegment[], why: string): SchemaProblem => ({ at, detail: `Forbidden: ${why}` });
/** How Go tells a field is there: a pointer or map set, a flag true, a string or list not empty. */
const there = {
  present: (v: unknown) => v !== undefined && v !== null,
  true: (v: unknown) => v === true,
  nonEmpty: (v: unknown) => (typeof v === 'string' || Array.isArray(v)) && v.length > 0,
};

/** What a junctor's schema may not carry: what only the structural part of a schema says. */
const NESTED_FORBIDDEN: readonly [string, keyof typeof there, string][] = [
  ['type', 'nonEmpty', 'must be empty to be structural'],
  ['additionalProperties', 'present', 'must be undefined to be structural'],
  ['default', 'present', 'must be undefined to be structural'],
  ['title', 'nonEmpty', 'must be empty to be structural'],
  ['description', 'nonEmpty', 'must be empty to be structural'],
  ['nullable', 'true', 'must be false to be structural'],
  ['x-kubernetes-preserve-unknown-fields', 'true', 'must be false to be structural'],
  ['x-kubernetes-embedded-resource', 'true', 'must be false to be structural'],
  ['x-kubernetes-int-or-string', 'true', 'must be false to be structural'],
  ['x-kubernetes-list-map-keys', 'nonEmpty', 'must be empty to be structural'],
  ['x-kubernetes-list-type', 'present', 'must be undefined to be structural'],
  ['x-kubernetes-map-type', 'present', 'must be undefined to be structural'],
  ['x-kubernetes-validations', 'nonEmpty', 'must be empty to be structural'],
];

/** The anyOf that x-kubernetes-int-or-string writes itself: integer or string, nothing else. */
const isIntOrStringAnyOf = (anyOf: unknown): boolean =>
  Array.isArray(anyOf) && anyOf.length === 2 && JSON.stringify(anyOf) === JSON.stringify([{ type: 'integer' }, { type: 'string' }]);

/** validateValueValidation: each junctor's schemas, the int-or-string anyOf (alone, or first of an allOf) passed over. */
function valueValidationProblems(s: Node, skip: { anyOf: boolean; firstAllOfAnyOf: boolean }, at: PathSegment[]): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const each = (key: string) => (Array.isArray(s[key]) ? (s[key] as unknown[]) : []);
  if (!skip.anyOf) each('anyOf').forEach((x, i) => out.push(...nestedProblems(x, false, [...at, 'anyOf', i])));
  each('allOf').forEach((x, i) => out.push(...nestedProblems(x, skip.firstAllOfAnyOf && i === 0, [...at, 'allOf', i])));
  each('oneOf').forEach((x, i) => out.push(...nestedProblems(x, false, [...at, 'oneOf', i])));
  out.push(...nestedProblems(s.not, false, [...at, 'not']));
  return out;
}

/** validateNestedValueValidation: a schema inside a junctor, and what it nests. */
function nestedProblems(v: unknown, skipAnyOf: boolean, at: PathSegment[]): SchemaProblem[] {
  if (!isMap(v)) return [];
  const out = valueValidationProblems(v, { anyOf: skipAnyOf, firstAllOfAnyOf: false }, at);
  out.push(...nestedProblems(v.items, false, [...at, 'items']));
  if (isMap(v.properties)) for (const [k, p] of Object.entries(v.properties)) out.push(...nestedProblems(p, false, [...at, 'properties', k]));
  for (const [key, test, why] of NESTED_FORBIDDEN) if (there[test](v[key])) out.push(forbidden([...at, key], why));
  if (isMap(v.properties) && 'metadata' in v.properties) out.push(forbidden([...at, 'properties', 'metadata'], 'must not be specified in a nested context'));
  return out;
}

/** Every structural problem under `s`, a node at `level`, with paths from `at`: one walk, into one list. */
export function structuralProblems(s: unknown, level: Level = 'root', at: PathSegment[] = []): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  walkStructural(s, level, { at, chain: undefined }, out);
  return out;
}

/** The problems of the node itself, relative to it. */
function ownProblems(s: Node, level: Level): SchemaProblem[] {
  const out: SchemaProblem[] = [];
  const type = typeOf(s);
  if (type === 'array' && s.items === undefined) out.push({ at: ['items'], detail: 'Required value: must be specified' });
  if (s.additionalProperties !== undefined && level === 'root') out.push({ at: ['additionalProperties'], detail: 'Forbidden: must not be used at the root' });
  out.push(...extensionProblems(s, []));
  if (s.anyOf !== undefined || s.allOf !== undefined || s.oneOf !== undefined || s.not !== undefined) {
    const firstAllOf = Array.isArray(s.allOf) && isMap(s.allOf[0]) ? s.allOf[0].anyOf : undefined;
    out.push(...valueValidationProblems(s, { anyOf: isIntOrStringAnyOf(s.anyOf), firstAllOfAnyOf: isIntOrStringAnyOf(firstAllOf) }, []));
  }
  out.push(...typeProblems(s, level, []), ...embeddedProblems(s, []));
  if (level === 'root' && type && type !== 'object') out.push({ at: ['type'], detail: `Invalid value: ${JSON.stringify(type)}: must be object at the root` });
  const checkMetadata = level === 'root' || s['x-kubernetes-embedded-resource'] === true;
  const properties = isMap(s.properties) ? s.properties : {};
  for (const key of ['kind', 'apiVersion'])
    if (checkMetadata && isMap(properties[key]) && typeOf(properties[key]) !== 'string')
      out.push({ at: ['properties', key, 'type'], detail: `Invalid value: ${JSON.stringify(typeOf(properties[key]))}: must be string` });
  if (isMap(properties.metadata)) out.push(...metadataProblems(properties.metadata, checkMetadata, level, ['properties', 'metadata']));
  return out;
}

/** Where a node stands: the path the walk started at, and the chain from there. */
interface Place {
  at: PathSegment[];
  chain: PathChain | undefined;
}
const below = (p: Place, ...keys: PathSegment[]): Place => ({ at: p.at, chain: extendPath(p.chain, ...keys) });

function walkStructural(s: unknown, level: Level, place: Place, out: SchemaProblem[]): void {
  if (!isMap(s)) return;
  if (s.items !== undefined) walkStructural(s.items, 'item', below(place, 'items'), out);
  if (isMap(s.properties)) for (const k of Object.keys(s.properties)) walkStructural(s.properties[k], 'field', below(place, 'properties', k), out);
  if (isMap(s.additionalProperties)) walkStructural(s.additionalProperties, 'field', below(place, 'additionalProperties'), out);
  const own = ownProblems(s, level);
  if (own.length === 0) return;
  const here = spellPath(place.chain, place.at);
  for (const p of own) out.push({ at: [...here, ...p.at], detail: p.detail });
}

/** validateUnsupportedFields: the keywords a structural schema cannot hold at all (a Go pointer is set even as {}). */
const NOT_STRUCTURAL: ReadonlyArray<readonly [string, string]> = [
  ['id', "OpenAPIV3Schema 'id' is not supported"],
  ['$schema', "OpenAPIV3Schema 'schema' is not supported"],
  ['$ref', "OpenAPIV3Schema '$ref' is not supported"],
  ['patternProperties', "OpenAPIV3Schema 'patternProperties' is not supported"],
  ['dependencies', "OpenAPIV3Schema 'dependencies' is not supported"],
  ['additionalItems', "OpenAPIV3Schema 'additionalItems' is not supported"],
  ['definitions', "OpenAPIV3Schema 'definitions' is not supported"],
];

const holds = (s: Node, key: string): boolean => {
  const v = s[key];
  if (v === undefined || v === null || v === '') return false;
  // A map or list (patternProperties, definitions) counts when it holds something; a pointer (dependencies, additionalItems) when set.
  return key === 'patternProperties' || key === 'definitions' ? Object.keys(v as object).length > 0 : true;
};

/**
 * Why the schema cannot be read as a structural schema at all (schema.NewStructural), or undefined: a keyword it
 * cannot hold, a list of item schemas, or x-kubernetes-preserve-unknown-fields false, in any node it reads (items,
 * properties, additionalProperties, and allOf, anyOf, oneOf and not). The API server then skips the structural, default
 * and rule checks of the schema, and says only what its OpenAPI check says.
 */
export function notStructuralError(s: unknown): string | undefined {
  if (!isMap(s)) return undefined;
  for (const [key, why] of NOT_STRUCTURAL) if (holds(s, key)) return why;
  if (s['x-kubernetes-preserve-unknown-fields'] === false) return "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined";
  if (Array.isArray(s.items) && s.items.length > 0) return "OpenAPIV3Schema 'items' must be a schema, but is an array";
  const children = [
    s.items,
    s.not,
    ...(isMap(s.properties) ? Object.values(s.properties) : []),
    ...(isMap(s.additionalProperties) ? [s.additionalProperties] : []),
    ...(['allOf', 'anyOf', 'oneOf'] as const).flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : [])),
  ];
  for (const child of children) {
    const why = notStructuralError(child);
    if (why) return why;
  }
  return undefined;
}
