/**
 * API versions the Kubernetes API server no longer serves, from the upstream
 * "Deprecated API Migration Guide". kubernetes-models still ships models for
 * them, so without this table a manifest using `extensions/v1beta1` would pass
 * a gate that claims to validate for the cluster's version.
 */
export interface RemovedApi {
  apiVersion: string;
  /** Kinds removed; omitted when the whole group/version went away. */
  kinds?: readonly string[];
  /** First minor version (1.x) that no longer serves it. */
  removedIn: number;
  replacement: string;
}

export const REMOVED_APIS: readonly RemovedApi[] = [
  {
    apiVersion: 'extensions/v1beta1',
    removedIn: 16,
    kinds: ['DaemonSet', 'Deployment', 'ReplicaSet', 'NetworkPolicy', 'PodSecurityPolicy'],
    replacement: 'apps/v1 or networking.k8s.io/v1',
  },
  { apiVersion: 'apps/v1beta1', removedIn: 16, replacement: 'apps/v1' },
  { apiVersion: 'apps/v1beta2', removedIn: 16, replacement: 'apps/v1' },
  { apiVersion: 'extensions/v1beta1', removedIn: 22, replacement: 'networking.k8s.io/v1' },
  { apiVersion: 'networking.k8s.io/v1beta1', removedIn: 22, replacement: 'networking.k8s.io/v1' },
  {
    apiVersion: 'admissionregistration.k8s.io/v1beta1',
    kinds: ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'],
    removedIn: 22,
    replacement: 'admissionregistration.k8s.io/v1',
  },
  { apiVersion: 'apiextensions.k8s.io/v1beta1', removedIn: 22, replacement: 'apiextensions.k8s.io/v1' },
  { apiVersion: 'apiregistration.k8s.io/v1beta1', removedIn: 22, replacement: 'apiregistration.k8s.io/v1' },
  { apiVersion: 'authentication.k8s.io/v1beta1', removedIn: 22, replacement: 'authentication.k8s.io/v1' },
  { apiVersion: 'authorization.k8s.io/v1beta1', removedIn: 22, replacement: 'authorization.k8s.io/v1' },
  { apiVersion: 'certificates.k8s.io/v1beta1', removedIn: 22, replacement: 'certificates.k8s.io/v1' },
  { apiVersion: 'coordination.k8s.io/v1beta1', removedIn: 22, replacement: 'coordination.k8s.io/v1' },
  { apiVersion: 'rbac.authorization.k8s.io/v1beta1', removedIn: 22, replacement: 'rbac.authorization.k8s.io/v1' },
  { apiVersion: 'scheduling.k8s.io/v1beta1', removedIn: 22, replacement: 'scheduling.k8s.io/v1' },
  {
    apiVersion: 'storage.k8s.io/v1beta1',
    kinds: ['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment'],
    removedIn: 22,
    replacement: 'storage.k8s.io/v1',
  },
  { apiVersion: 'batch/v1beta1', removedIn: 25, replacement: 'batch/v1' },
  { apiVersion: 'discovery.k8s.io/v1beta1', removedIn: 25, replacement: 'discovery.k8s.io/v1' },
  { apiVersion: 'events.k8s.io/v1beta1', removedIn: 25, replacement: 'events.k8s.io/v1' },
  { apiVersion: 'autoscaling/v2beta1', removedIn: 25, replacement: 'autoscaling/v2' },
  { apiVersion: 'policy/v1beta1', removedIn: 25, replacement: 'policy/v1 (PodSecurityPolicy has no replacement)' },
  { apiVersion: 'node.k8s.io/v1beta1', removedIn: 25, replacement: 'node.k8s.io/v1' },
  { apiVersion: 'autoscaling/v2beta2', removedIn: 26, replacement: 'autoscaling/v2' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta1', removedIn: 26, replacement: 'flowcontrol.apiserver.k8s.io/v1' },
  { apiVersion: 'storage.k8s.io/v1beta1', kinds: ['CSIStorageCapacity'], removedIn: 27, replacement: 'storage.k8s.io/v1' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta2', removedIn: 29, replacement: 'flowcontrol.apiserver.k8s.io/v1' },
  { apiVersion: 'flowcontrol.apiserver.k8s.io/v1beta3', removedIn: 32, replacement: 'flowcontrol.apiserver.k8s.io/v1' },
];

/** The removal that applies to this apiVersion/kind on Kubernetes 1.`minor`, if any. */
export function removalFor(apiVersion: string, kind: string, minor: number): RemovedApi | undefined {
  return REMOVED_APIS.find((r) => r.apiVersion === apiVersion && (!r.kinds || r.kinds.includes(kind)) && r.removedIn <= minor);
}
