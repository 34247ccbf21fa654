/**
 * The structural schema the API server validates a custom resource with:
 * the CRD the repository renders or applies for its group, kind and served
 * version, else the schema bundled with the gate (policy-tests/schema/crds/).
 * A bundled schema is a validation aid only; it never proves the cluster
 * has the CRD (closure-crd judges that).
 */
import type { Resource } from '../model/core/manifest.ts';
import { perObject } from '../model/core/per-object.ts';
import { crdsFromObjects, loadRepoCrds } from '../schema/repo-crds.ts';
import type { JsonSchemaNode } from './cel/schema-node.ts';

export interface CrdSchema {
  /** `<file>` of the CRD, or the bundled schema's file name. */
  source: string;
  /** As the CRD writes it: where its rules are found (OpenAPI's `nullable` moves none). */
  raw: JsonSchemaNode;
  /** As JSON Schema (`nullable` as a type array), converted on first use: what objects are validated with. */
  schema: JsonSchemaNode;
}

/**
 * `apiVersion/Kind` → schema, the repository's CRDs ahead of the bundled ones. Built once per list of resources
 * (a run's own, which never changes once read): the checks, the webhooks' reach and the snapshot all ask for it.
 */
export const crdSchemas: (resources: readonly Resource[]) => ReadonlyMap<string, CrdSchema> = perObject(crdSchemasOf);

function crdSchemasOf(resources: readonly Resource[]): Map<string, CrdSchema> {
  const out = new Map<string, CrdSchema>();
  const crdObjects = resources
    .filter((r) => r.kind === 'CustomResourceDefinition')
    .map((r) => ({ file: r.rendered ? `${r.rendered.app}: ${r.rendered.template ?? r.rendered.source}` : r.file, object: r.object }));
  for (const crd of crdsFromObjects(crdObjects)) {
    const key = `${crd.apiVersion}/${crd.kind}`;
    if (!out.has(key))
      out.set(key, {
        source: crd.file,
        raw: crd.raw as JsonSchemaNode,
        get schema() {
          return crd.schema as JsonSchemaNode;
        },
      });
  }
  for (const crd of loadRepoCrds()) {
    const key = `${crd.apiVersion}/${crd.kind}`;
    if (!out.has(key))
      out.set(key, { source: `bundled ${crd.file.split('/').pop()}`, raw: crd.schema as JsonSchemaNode, schema: crd.schema as JsonSchemaNode });
  }
  return out;
}

/** Each CRD's plural by `group/kind`, as its resources are named in rules and quotas (`spec.names.plural`). */
export function crdPlurals(resources: readonly Resource[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of resources) {
    if (r.kind !== 'CustomResourceDefinition') continue;
    const spec = (r.object.spec ?? {}) as { group?: unknown; names?: { kind?: unknown; plural?: unknown } };
    if (typeof spec.group === 'string' && typeof spec.names?.kind === 'string' && typeof spec.names.plural === 'string')
      out.set(`${spec.group}/${spec.names.kind}`, spec.names.plural);
  }
  return out;
}
