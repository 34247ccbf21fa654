/**
 * A CRD schema node as the API server declares it to CEL (k8s.io/apiserver
 * pkg/cel/common/schemas.go SchemaDeclType): its CEL type, the most elements
 * it can hold (a string's characters, a list's items, a map's entries, as
 * the schema bounds them or as many as fit in a 3 MiB request), and the
 * fewest bytes a value of it takes in a request. cel-go's cost estimator
 * reads sizes from here by path (cost-estimator.ts), the type check reads the
 * types (cel-type-check.ts).
 */
import type { JsonSchemaNode } from './schema-node.ts';
import { perPair } from '../../model/core/per-object.ts';

const MAX_REQUEST_BYTES = 3 * 1024 * 1024;
/** k8s.io/apiserver pkg/cel/limits.go */
const MAX_DURATION_SIZE_JSON = 32;
const MAX_DATETIME_SIZE_JSON = 32;
const MIN_DURATION_SIZE_JSON = 3;
const JSON_DATE_SIZE = 12;
const MIN_DATETIME_SIZE_JSON = 21;
const MIN_STRING_SIZE = 2;
const MIN_BOOL_SIZE = 4;
const MIN_NUMBER_SIZE = 1;

/** A CEL type as cel-go's checker knows it; an object from a schema is a struct with its declaration. */
export type CelType =
  | { kind: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'duration' | 'timestamp' | 'dyn' | 'type' }
  | { kind: 'list'; elem: CelType }
  | { kind: 'map'; key: CelType; value: CelType }
  | { kind: 'struct'; name: string; decl?: DeclType }
  | { kind: 'opaque'; name: string; params: CelType[] };

export interface DeclType {
  type: CelType;
  /** apiservercel.DeclType.MaxElements: 0 for a scalar, as upstream leaves it. */
  maxElements: bigint;
  minSerializedSize: number;
  fields?: ReadonlyMap<string, DeclType>;
  elem?: DeclType;
  key?: DeclType;
}

export const simple = (kind: 'int' | 'uint' | 'double' | 'bool' | 'string' | 'bytes' | 'null' | 'duration' | 'timestamp' | 'dyn' | 'type'): CelType => ({
  kind,
});

const STRING_DECL: DeclType = { type: simple('string'), maxElements: 0n, minSerializedSize: MIN_STRING_SIZE };

/** The root of a resource, and an embedded one, always declare apiVersion, kind, and metadata's name and generateName. */
function withTypeAndObjectMeta(s: JsonSchemaNode): JsonSchemaNode {
  const p = s.properties ?? {};
  const has = (n: JsonSchemaNode | undefined, type: string) => (Array.isArray(n?.type) ? n.type.includes(type) : n?.type === type);
  const meta = p.metadata?.properties;
  if (has(p.kind, 'string') && has(p.apiVersion, 'string') && has(p.metadata, 'object') && meta && has(meta.name, 'string') && has(meta.generateName, 'string'))
    return s;
  const str: JsonSchemaNode = { type: 'string' };
  return { ...s, properties: { ...p, kind: str, apiVersion: str, metadata: { type: 'object', properties: { name: str, generateName: str } } } };
}

const typeOf = (s: JsonSchemaNode): string | undefined => (Array.isArray(s.type) ? s.type[0] : s.type);
const maxLength = (s: JsonSchemaNode): bigint | undefined => (typeof s.maxLength === 'number' ? BigInt(Math.max(0, s.maxLength)) : undefined);
const count = (v: unknown): bigint | undefined => (typeof v === 'number' ? BigInt(Math.max(0, v)) : undefined);

function stringLength(s: JsonSchemaNode): bigint {
  if (s['x-kubernetes-int-or-string']) return BigInt(MAX_REQUEST_BYTES - 2);
  if (s.format === 'duration') return BigInt(MAX_DURATION_SIZE_JSON);
  if (s.format === 'date') return BigInt(JSON_DATE_SIZE);
  if (s.format === 'date-time') return BigInt(MAX_DATETIME_SIZE_JSON);
  return BigInt(MAX_REQUEST_BYTES - 2);
}

/** The longest enum value, in bytes (estimateMaxStringEnumLength). */
function enumLength(values: unknown[]): bigint {
  let longest = 0;
  for (const v of values) if (typeof v === 'string') longest = Math.max(longest, Buffer.byteLength(v));
  return BigInt(longest);
}

/**
 * SchemaDeclType: undefined where the node is not exposed to CEL (no type, or a list or map of such). Declared once
 * per node and root-ness: each rule at a CRD's root would declare the whole schema again.
 */
export function declType(s: JsonSchemaNode | undefined, isResourceRoot = false): DeclType | undefined {
  return s ? declared(s, isResourceRoot, () => declare(s, isResourceRoot)) : undefined;
}
const declared = perPair<JsonSchemaNode, DeclType | undefined>();

function declare(s: JsonSchemaNode | undefined, isResourceRoot = false): DeclType | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string']) {
    const max = maxLength(s);
    return { type: simple('dyn'), maxElements: max !== undefined ? max * 4n : stringLength(s), minSerializedSize: 1 };
  }
  const node = isResourceRoot ? withTypeAndObjectMeta(s) : s;
  switch (typeOf(node)) {
    case 'array': {
      if (!node.items) return undefined;
      const elem = declType(node.items, node.items['x-kubernetes-embedded-resource'] === true);
      if (!elem) return undefined;
      const max = count(node.maxItems) ?? BigInt(Math.floor((MAX_REQUEST_BYTES - 2) / (elem.minSerializedSize + 1)));
      return { type: { kind: 'list', elem: elem.type }, maxElements: max, minSerializedSize: MIN_STRING_SIZE, elem };
    }
    case 'object':
      return objectDecl(node);
    case 'string':
      return stringDeclOf(node);
    case 'boolean':
      return { type: simple('bool'), maxElements: 0n, minSerializedSize: MIN_BOOL_SIZE };
    case 'number':
      return { type: simple('double'), maxElements: 0n, minSerializedSize: MIN_NUMBER_SIZE };
    case 'integer':
      return { type: simple('int'), maxElements: 0n, minSerializedSize: MIN_NUMBER_SIZE };
  }
  return undefined;
}

function objectDecl(s: JsonSchemaNode): DeclType | undefined {
  const extra = s.additionalProperties;
  if (extra && typeof extra === 'object') {
    const value = declType(extra, extra['x-kubernetes-embedded-resource'] === true);
    if (!value) return undefined;
    const max = count(s.maxProperties) ?? BigInt(Math.floor((MAX_REQUEST_BYTES - 2) / (value.minSerializedSize + 6)));
    return {
      type: { kind: 'map', key: simple('string'), value: value.type },
      maxElements: max,
      minSerializedSize: MIN_STRING_SIZE,
      key: STRING_DECL,
      elem: value,
    };
  }
  const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
  const fields = new Map<string, DeclType>();
  // An object is at least {}, and each required property without a default: its name, its value, quotes, a colon, a comma.
  let minSize = 2;
  for (const [name, prop] of Object.entries(s.properties ?? {})) {
    const field = declType(prop, prop['x-kubernetes-embedded-resource'] === true);
    if (!field) continue;
    fields.set(name, field);
    if (required.has(name) && prop.default === undefined) minSize += name.length + field.minSerializedSize + 4;
  }
  const decl: DeclType = { type: { kind: 'struct', name: 'object' }, maxElements: 0n, minSerializedSize: minSize, fields };
  decl.type = { kind: 'struct', name: 'object', decl };
  return decl;
}

function stringDeclOf(s: JsonSchemaNode): DeclType {
  const max = maxLength(s);
  switch (s.format) {
    case 'byte':
      return { type: simple('bytes'), maxElements: max ?? stringLength(s), minSerializedSize: MIN_STRING_SIZE };
    case 'duration':
      return { type: simple('duration'), maxElements: stringLength(s), minSerializedSize: MIN_DURATION_SIZE_JSON };
    case 'date':
      return { type: simple('timestamp'), maxElements: stringLength(s), minSerializedSize: JSON_DATE_SIZE };
    case 'date-time':
      return { type: simple('timestamp'), maxElements: stringLength(s), minSerializedSize: MIN_DATETIME_SIZE_JSON };
  }
  const enumValues = Array.isArray(s.enum) && s.enum.length > 0 ? s.enum : undefined;
  const maxElements = max !== undefined ? max * 4n : enumValues ? enumLength(enumValues) : stringLength(s);
  return { type: simple('string'), maxElements, minSerializedSize: MIN_STRING_SIZE };
}
