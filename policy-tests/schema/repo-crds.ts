/**
 * CRD schemas kept in this repository (policy-tests/schema/crds/*.json) for
 * kinds no npm model package covers, such as ExternalSecret. Each file is a
 * JSON Schema of the CRD's openAPIV3Schema plus two annotations:
 * `x-kubernetes-group-version-kind` and `x-scope` (Namespaced or Cluster).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import type { Ajv, ValidateFunction } from 'ajv';
import { cachedValidator } from '../model/stores/validation-cache.ts';
import { invalidPatternMessage, re2 } from '../model/core/re2.ts';
import { NUMBER_FORMATS, STRING_FORMATS, validatedFormat } from '../model/go/strfmt.ts';
import { unknownFieldPaths, type Shape } from './field-tree.ts';
import { isMap } from '../model/core/dig.ts';

export const REPO_CRD_DIR = fileURLToPath(new URL('../schema/crds/', import.meta.url));

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-group-version-kind'?: { group: string; version: string; kind: string }[];
  'x-scope'?: 'Namespaced' | 'Cluster';
  [key: string]: unknown;
}

export interface RepoCrd {
  apiVersion: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  file: string;
  validate: ValidateFunction;
  schema: JsonSchema;
}

/**
 * Converts a CRD JSON Schema to the same field shapes the core kinds use, so one walker enforces strictness, with the
 * fields the API server prunes (pkg/apiserver/schema/pruning, which strict field validation turns into "unknown
 * field" errors): an object node keeps the properties it declares, or its additionalProperties' entries (with
 * `additionalProperties: true`, entries whose objects hold no field), and nothing else, even with no properties at
 * all; `x-kubernetes-preserve-unknown-fields` keeps the rest, but still prunes inside the properties it declares; a
 * resource (the root, or an `x-kubernetes-embedded-resource`) keeps its apiVersion, kind and metadata.
 */
export function shapesFromJsonSchema(schema: JsonSchema, shapes: Shape[], objectMetaShape: number, asResource = true): number {
  const push = (shape: Shape): number => shapes.push(shape) - 1;
  let none: number | undefined;
  // A node that declares no field: an object under it keeps none, nor do the objects of a list under it.
  const noFields = () => (none ??= push({ f: {}, none: true }));
  const convert = (s: JsonSchema, isRoot: boolean): number => {
    const preserve = s['x-kubernetes-preserve-unknown-fields'] === true;
    // A list that keeps unknown fields keeps its items' too (skipPrune walks the items as it walks a kept object).
    if (isMap(s.items)) return push({ a: convert(preserve ? { ...s.items, 'x-kubernetes-preserve-unknown-fields': true } : s.items, false) });
    const embedded = isRoot || (s as { 'x-kubernetes-embedded-resource'?: unknown })['x-kubernetes-embedded-resource'] === true;
    // additionalProperties: its entries pruned by its schema; a boolean one has none, so their objects keep no field.
    const rest = isMap(s.additionalProperties)
      ? convert(s.additionalProperties as JsonSchema, false)
      : typeof s.additionalProperties === 'boolean'
        ? noFields()
        : undefined;
    if (!isMap(s.properties) && !embedded) {
      if (rest !== undefined) return push(preserve ? { f: {}, rest, open: true } : { m: rest });
      return preserve ? push('o') : noFields();
    }
    const fields: Record<string, number> = {};
    for (const [name, sub] of Object.entries(s.properties ?? {})) fields[name] = convert(sub, false);
    // A resource's apiVersion, kind and metadata are not pruned, listed or not (its metadata is ObjectMeta's to judge).
    if (embedded) {
      fields.apiVersion = push('s');
      fields.kind = push('s');
      fields.metadata = objectMetaShape;
    }
    return push({ f: fields, ...(rest === undefined ? {} : { rest }), ...(preserve ? { open: true as const } : {}) });
  };
  return convert(schema, asResource);
}

/**
 * Every field pruning by `schema` drops from `value` (pruning.Prune), as paths; a resource's metadata is left to
 * ObjectMeta's own reading. No schema at all prunes every field of an object (a resource keeps apiVersion, kind and
 * metadata).
 */
export function prunedFieldPaths(schema: JsonSchema | undefined, value: unknown, isResourceRoot: boolean): (string | number)[][] {
  const shapes: Shape[] = [];
  const meta = shapes.push('o') - 1;
  const root =
    schema === undefined && !isResourceRoot ? shapes.push({ f: {}, none: true }) - 1 : shapesFromJsonSchema(schema ?? {}, shapes, meta, isResourceRoot);
  return unknownFieldPaths(shapes, root, value).map((u) => u.path);
}

let crds: RepoCrd[] | undefined;

/**
 * CRD patterns are Go (RE2) regular expressions, matched in linear time as
 * the API server matches them (a JavaScript RegExp backtracks). A pattern RE2
 * cannot compile matches nothing, as kube-openapi's validate.Pattern fails
 * every value it is asked about (the API server admits such a CRD:
 * crd-accepted warns of it).
 */
function goRegExpImpl(pattern: string): { test(text: string): boolean } {
  try {
    return re2(pattern);
  } catch {
    return { test: () => false };
  }
}
const goRegExp = Object.assign(goRegExpImpl, { code: 'goRegExp' });

/** What, besides a schema and an object, decides a CRD validation's outcome: the code that configures ajv. */
export const crdAjvMakeup = (): string =>
  [
    crdAjv,
    withServerFormats,
    eachSchemaNode,
    exclusiveBounds,
    validatedFormat,
    goRegExpImpl,
    ...Object.values(STRING_FORMATS),
    ...Object.values(NUMBER_FORMATS),
  ]
    .map(String)
    .join('\n');

/** One ajv for CRD schemas: Kubernetes' structural-schema extensions are annotations to it, not constraints. */
function crdAjv(): Ajv {
  // Loaded when a CRD schema is first compiled: a warm run whose validations are all stored never loads ajv.
  const require = createRequire(import.meta.url);
  const { Ajv: AjvClass } = require('ajv') as typeof import('ajv');
  // validateSchema off: the meta-schema check costs more than compiling the
  // schemas; policy-tests/test/schema/own-schemas.test.ts does it for the repo's own.
  // optimize off: ajv's passes over the code it generates (optimizeNames, addNames) were 0.5 of the 1.6 CPU-s a cold
  // run spent compiling the charts' CRDs, and change only the code's shape, never what it accepts; the run is 1.4 s
  // quicker, the validations the same (bench/README.md, 2026-11-30).
  const ajv = new AjvClass({ allErrors: true, strict: false, validateSchema: false, code: { regExp: goRegExp, optimize: false } });
  for (const keyword of [
    'x-kubernetes-group-version-kind',
    'x-scope',
    'x-kubernetes-preserve-unknown-fields',
    'x-kubernetes-int-or-string',
    'x-kubernetes-embedded-resource',
    'x-kubernetes-list-type',
    'x-kubernetes-list-map-keys',
    'x-kubernetes-map-type',
    'x-kubernetes-validations',
  ])
    ajv.addKeyword(keyword);
  // The formats as the API server checks them (model/go/strfmt.ts), under the names withServerFormats gives them.
  for (const [name, validate] of Object.entries(STRING_FORMATS)) ajv.addFormat(name, { type: 'string', validate });
  for (const [name, validate] of Object.entries(NUMBER_FORMATS)) ajv.addFormat(name, { type: 'number', validate });
  return ajv;
}

/** A schema node's one type, as the API server's format post-processor reads it (a nullable type array is still one). */
function singleType(type: unknown): unknown {
  if (!Array.isArray(type)) return type;
  const rest = type.filter((t) => t !== 'null');
  return rest.length === 1 ? rest[0] : '';
}

/** OpenAPI v3's (draft 4's) exclusive bound, a boolean beside `maximum`, as ajv's draft-07 reads one: the bound itself. */
function exclusiveBounds(node: Record<string, unknown>): void {
  for (const [exclusive, bound] of [
    ['exclusiveMaximum', 'maximum'],
    ['exclusiveMinimum', 'minimum'],
  ] as const) {
    if (typeof node[exclusive] !== 'boolean') continue;
    // kube-openapi reads the flag only with its bound; without one, or false, it says nothing.
    if (node[exclusive] === true && typeof node[bound] === 'number') {
      node[exclusive] = node[bound];
      delete node[bound];
    } else delete node[exclusive];
  }
}

/**
 * Each node as kube-openapi validates with it: its `format` as the API server keeps it (`validatedFormat`: a format
 * it does not support dropped, a supported one named as its registry names it, and an integer's range, int64's by
 * default, made a format, since kube-openapi checks every integer against it), and its exclusive bounds as ajv
 * reads them (ajv refused to compile the boolean form, which CRDs write).
 */
function withServerFormats(schema: JsonSchema): JsonSchema {
  return eachSchemaNode(schema, (node) => {
    // A schema node: its type or its format a string (a properties map holds schemas under those names, never strings).
    if (typeof node.format === 'string' || typeof node.type === 'string' || Array.isArray(node.type)) {
      const format = validatedFormat(singleType(node.type), node.format);
      if (format === undefined) delete node.format;
      else node.format = format;
    }
    exclusiveBounds(node);
  });
}

/** A copy of the schema with `visit` run on each object in it, bottom up; values (enum, default, example) are left whole. */
function eachSchemaNode(schema: JsonSchema, visit: (node: Record<string, unknown>) => void): JsonSchema {
  const walk = (s: unknown): unknown => {
    if (Array.isArray(s)) return s.map(walk);
    if (!s || typeof s !== 'object') return s;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(s)) out[k] = k === 'enum' || k === 'default' || k === 'example' ? v : walk(v);
    visit(out);
    return out;
  };
  return walk(schema) as JsonSchema;
}

/** Names withNullable in a key: a schema as written, compiled after it. */
export const NULLABLE_AS_TYPES = 'nullable as a type array';

/** OpenAPI v3's `nullable: true` as JSON Schema: null is allowed beside the declared type. */
function withNullable(schema: JsonSchema): JsonSchema {
  return eachSchemaNode(schema, (node) => {
    if (node.nullable === true && typeof node.type === 'string') node.type = [node.type, 'null'];
    delete node.nullable;
  });
}

/** Each CRD schema converted once in a process, by the schema object (parsed objects are shared and never mutated). */
const converted = new WeakMap<JsonSchema, JsonSchema>();
function asJsonSchema(raw: JsonSchema): JsonSchema {
  let schema = converted.get(raw);
  if (!schema) converted.set(raw, (schema = withNullable(withServerFormats(raw))));
  return schema;
}

/** A CRD's served versions as schemas, compiled only when a resource of that kind needs one. */
export interface LazyCrd {
  apiVersion: string;
  kind: string;
  scope: 'Namespaced' | 'Cluster';
  file: string;
  /** The schema as the CRD writes it (`nullable` and all): its field shapes, and the key its outcomes are kept by. */
  raw: JsonSchema;
  /** As JSON Schema, converted on first use: what ajv compiles. */
  schema: JsonSchema;
  compile(): ValidateFunction;
}

let lazyAjv: Ajv | undefined;

/** The schemas of CustomResourceDefinition objects (plain or rendered): each served version's openAPIV3Schema, strict. */
export function crdsFromObjects(crdObjects: readonly { file: string; object: Record<string, unknown> }[]): LazyCrd[] {
  const out: LazyCrd[] = [];
  for (const { file, object } of crdObjects) {
    const spec = (object.spec ?? {}) as {
      group?: string;
      scope?: string;
      names?: { kind?: string };
      versions?: { name?: string; served?: boolean; schema?: { openAPIV3Schema?: JsonSchema } }[];
    };
    if (!spec.group || !spec.names?.kind) continue;
    for (const version of spec.versions ?? []) {
      const raw = version.schema?.openAPIV3Schema;
      if (!version.name || version.served === false || !raw) continue;
      // The schema is converted, and compiled, only when something asks for it.
      let schema: JsonSchema | undefined;
      let compiled: ValidateFunction | undefined;
      const converted = () => (schema ??= asJsonSchema(raw));
      out.push({
        apiVersion: `${spec.group}/${version.name}`,
        kind: spec.names.kind,
        scope: spec.scope === 'Cluster' ? 'Cluster' : 'Namespaced',
        file,
        raw,
        get schema() {
          return converted();
        },
        compile: () => (compiled ??= (lazyAjv ??= crdAjv()).compile(converted())),
      });
    }
  }
  return out;
}

let valueAjv: Ajv | undefined;
let makeup: string | undefined;

/** One thing a CRD schema node refuses of a value: where in the value (its keys and indexes), the keyword, its parameters and ajv's message. */
export interface ValueFailure {
  steps: string[];
  keyword: string;
  params: Record<string, unknown>;
  message: string;
}

/**
 * What a CRD schema node refuses of a value (a default, say). The compiled validator is kept across runs by the node
 * (model/stores/validation-cache.ts): a warm run compiles none of them.
 */
export function schemaValueFailures(node: Record<string, unknown>, value: unknown): ValueFailure[] {
  const validate = cachedValidator(JSON.stringify(node), (makeup ??= crdAjvMakeup()), () =>
    (valueAjv ??= crdAjv()).compile(withNullable(withServerFormats(node as JsonSchema))),
  );
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => ({
    // A JSON pointer's tokens, unescaped (RFC 6901).
    steps:
      e.instancePath === ''
        ? []
        : e.instancePath
            .slice(1)
            .split('/')
            .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~')),
    keyword: e.keyword,
    params: e.params as Record<string, unknown>,
    message: (e.keyword === 'pattern' && invalidPatternMessage(String((e.params as { pattern?: unknown }).pattern))) || (e.message ?? 'is refused'),
  }));
}

export function loadRepoCrds(): RepoCrd[] {
  if (crds) return crds;
  let shared: Ajv | undefined;
  const ajv = { compile: (schema: JsonSchema) => (shared ??= crdAjv()).compile(withServerFormats(schema)) };
  crds = [];
  for (const name of readdirSync(REPO_CRD_DIR)
    .filter((n) => n.endsWith('.json'))
    .sort()) {
    const file = join(REPO_CRD_DIR, name);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as JsonSchema;
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (!gvks?.length) throw new Error(`${file}: missing x-kubernetes-group-version-kind`);
    // Compiled the first time a resource of one of its kinds is checked: most runs check few of them.
    let validate: ValidateFunction | undefined;
    const compiled = () => (validate ??= ajv.compile(schema));
    for (const gvk of gvks) {
      crds.push({
        apiVersion: `${gvk.group}/${gvk.version}`,
        kind: gvk.kind,
        scope: schema['x-scope'] ?? 'Namespaced',
        file,
        schema,
        get validate() {
          return compiled();
        },
      });
    }
  }
  return crds;
}
