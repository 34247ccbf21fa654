/**
 * Whether a sync can write an object's `status` at all. Where status is a subresource, the API server takes none from
 * a create or an update of the object (each built-in strategy's PrepareForCreate and PrepareForUpdate keep the stored
 * status; apiextensions-apiserver does the same for a custom resource whose CRD version declares
 * `subresources.status`): what a manifest writes there never reaches the cluster, synced or not. A custom resource
 * without that subresource takes its status from the manifest like any other field.
 */
import { groupOf } from '../core/manifest.ts';

type Obj = Record<string, unknown>;

/** Kubernetes' own API groups (`kubectl api-resources` on v1.36): every kind of them with a status has it as a subresource. */
const BUILT_IN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

const text = (v: unknown) => (typeof v === 'string' ? v : '');
const asObj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/**
 * Whether the API server keeps its own status for `object` whatever the manifest says: a built-in kind, or a custom
 * resource whose CRD (among `definitions`) declares the status subresource for its version. False where the CRD is not
 * among them: the manifest's status may then be written.
 */
export function statusIsSubresource(object: Obj, definitions: readonly Obj[]): boolean {
  const apiVersion = text(object.apiVersion);
  const group = groupOf(apiVersion);
  const kind = text(object.kind);
  const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
  const crd = definitions.find((d) => {
    const spec = asObj(d.spec);
    return d.kind === 'CustomResourceDefinition' && spec.group === group && asObj(spec.names).kind === kind;
  });
  if (!crd) return BUILT_IN_GROUPS.has(group);
  const versions = asObj(crd.spec).versions;
  const served = Array.isArray(versions) ? versions.map(asObj).find((v) => v.name === version) : undefined;
  return !!served && asObj(served.subresources).status !== undefined;
}
