/**
 * CRD schemas kept in this repository (policy-tests/schema/crds/*.json) for
 * kinds no npm model package covers, such as ExternalSecret. Each file is a
 * JSON Schema of the CRD's openAPIV3Schema plus two annotations:
 * `x-kubernetes-group-version-kind` and `x-scope` (Namespaced or Cluster).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { Shape } from './field-tree.ts';

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

/** Converts a CRD JSON Schema to the same field shapes the core kinds use, so one walker enforces strictness. */
export function shapesFromJsonSchema(schema: JsonSchema, shapes: Shape[], objectMetaShape: number): number {
  const push = (shape: Shape): number => shapes.push(shape) - 1;
  const convert = (s: JsonSchema, isRoot: boolean): number => {
    if (s['x-kubernetes-preserve-unknown-fields']) return push('o');
    if (s.properties) {
      const fields: Record<string, number> = {};
      for (const [name, sub] of Object.entries(s.properties)) {
        fields[name] = isRoot && name === 'metadata' ? objectMetaShape : convert(sub, false);
      }
      return push({ f: fields });
    }
    if (typeof s.additionalProperties === 'object') return push({ m: convert(s.additionalProperties, false) });
    if (s.items) return push({ a: convert(s.items, false) });
    const types = Array.isArray(s.type) ? s.type : [s.type];
    return push(types.includes('object') || s.type === undefined ? 'o' : 's');
  };
  return convert(schema, true);
}

let crds: RepoCrd[] | undefined;

export function loadRepoCrds(): RepoCrd[] {
  if (crds) return crds;
  // validateSchema off: the meta-schema check costs more than compiling the
  // three CRDs; policy-tests/test/own-schemas.test.ts does it instead.
  const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  addFormats.default(ajv);
  ajv.addKeyword('x-kubernetes-group-version-kind');
  ajv.addKeyword('x-scope');
  ajv.addKeyword('x-kubernetes-preserve-unknown-fields');
  ajv.addKeyword('x-kubernetes-int-or-string');
  crds = [];
  for (const name of readdirSync(REPO_CRD_DIR).filter((n) => n.endsWith('.json')).sort()) {
    const file = join(REPO_CRD_DIR, name);
    const schema = JSON.parse(readFileSync(file, 'utf8')) as JsonSchema;
    const gvks = schema['x-kubernetes-group-version-kind'];
    if (!gvks?.length) throw new Error(`${file}: missing x-kubernetes-group-version-kind`);
    const validate = ajv.compile(schema);
    for (const gvk of gvks) {
      crds.push({ apiVersion: `${gvk.group}/${gvk.version}`, kind: gvk.kind, scope: schema['x-scope'] ?? 'Namespaced', file, validate, schema });
    }
  }
  return crds;
}
