/**
 * What kube-state-metrics v2.20 asks the API server, from its container's command line: an informer (a list, then a
 * watch) of each resource `--resources` names (its DefaultResources where the flag is absent), each of the group and
 * version its typed client reads (internal/store/builder.go), a namespaced one in each namespace `--namespaces` lists
 * or every one at once, a cluster-scoped one once (pkg/options). Without its reads, each series of that resource is
 * missing, and every alert built on one (a CronJob's last success, a pod's restarts) never fires.
 */
import { goCommaItems, scalarText } from '../core/text.ts';
import { commandLineFlag as flag, commandLineFlagValues, containerArgv } from '../core/workloads.ts';
import { informerRequests } from './api-requests.ts';

/** Each resource's API path and whether it is cluster-scoped, as builder.go's store for it lists it. */
const RESOURCES: Readonly<Record<string, { path: string; cluster?: true }>> = {
  certificatesigningrequests: { path: '/apis/certificates.k8s.io/v1', cluster: true },
  clusterrolebindings: { path: '/apis/rbac.authorization.k8s.io/v1', cluster: true },
  clusterroles: { path: '/apis/rbac.authorization.k8s.io/v1', cluster: true },
  configmaps: { path: '/api/v1' },
  cronjobs: { path: '/apis/batch/v1' },
  daemonsets: { path: '/apis/apps/v1' },
  deployments: { path: '/apis/apps/v1' },
  endpoints: { path: '/api/v1' },
  endpointslices: { path: '/apis/discovery.k8s.io/v1' },
  horizontalpodautoscalers: { path: '/apis/autoscaling/v2' },
  ingressclasses: { path: '/apis/networking.k8s.io/v1', cluster: true },
  ingresses: { path: '/apis/networking.k8s.io/v1' },
  jobs: { path: '/apis/batch/v1' },
  leases: { path: '/apis/coordination.k8s.io/v1' },
  limitranges: { path: '/api/v1' },
  mutatingadmissionpolicies: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  mutatingadmissionpolicybindings: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  mutatingwebhookconfigurations: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  namespaces: { path: '/api/v1', cluster: true },
  networkpolicies: { path: '/apis/networking.k8s.io/v1' },
  nodes: { path: '/api/v1', cluster: true },
  persistentvolumeclaims: { path: '/api/v1' },
  persistentvolumes: { path: '/api/v1', cluster: true },
  poddisruptionbudgets: { path: '/apis/policy/v1' },
  pods: { path: '/api/v1' },
  replicasets: { path: '/apis/apps/v1' },
  replicationcontrollers: { path: '/api/v1' },
  resourcequotas: { path: '/api/v1' },
  rolebindings: { path: '/apis/rbac.authorization.k8s.io/v1' },
  roles: { path: '/apis/rbac.authorization.k8s.io/v1' },
  secrets: { path: '/api/v1' },
  serviceaccounts: { path: '/api/v1' },
  services: { path: '/api/v1' },
  statefulsets: { path: '/apis/apps/v1' },
  storageclasses: { path: '/apis/storage.k8s.io/v1', cluster: true },
  validatingadmissionpolicies: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  validatingadmissionpolicybindings: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  validatingwebhookconfigurations: { path: '/apis/admissionregistration.k8s.io/v1', cluster: true },
  volumeattachments: { path: '/apis/storage.k8s.io/v1', cluster: true },
};

/** options/resource.go's DefaultResources: every resource above but the RBAC kinds, endpoints, ingress classes and service accounts. */
const DEFAULT_RESOURCES = Object.keys(RESOURCES).filter(
  (r) => !['clusterrolebindings', 'clusterroles', 'rolebindings', 'roles', 'endpoints', 'ingressclasses', 'serviceaccounts'].includes(r),
);

/** Whether a container runs kube-state-metrics: its image. */
export const isKubeStateMetrics = (container: Record<string, unknown>): boolean =>
  /(^|\/)kube-state-metrics\/kube-state-metrics(:|@|$)/.test(scalarText(container.image ?? ''));

/**
 * The requests of a kube-state-metrics container, from its command line (`command` then `args`, as the kubelet
 * expands them: `argv`, else as written); `unread` where a word of it reads a value the gate does not read, names a
 * resource it does not know, or reads custom resources (what those ask is not read).
 */
export function kubeStateMetricsRequests(
  container: Record<string, unknown>,
  argv: readonly (string | null)[] = containerArgv(container),
): { requests: string[] } | { unread: string } {
  if (argv.includes(null)) return { unread: 'its command line reads a variable whose value the gate does not read' };
  const args = argv as string[];
  // A list flag (ResourceSet, NamespaceList) adds each value's items, trimmed, to what the ones before it gave.
  const items = (name: string) => commandLineFlagValues(args, name).flatMap(goCommaItems);
  const listed = items('resources');
  const resources = listed.length === 0 ? DEFAULT_RESOURCES : [...new Set(listed)];
  const unknown = resources.find((r) => !RESOURCES[r]);
  if (unknown) return { unread: `--resources names ${unknown}, which the gate does not know` };
  if (flag(args, 'custom-resource-state-config') ?? flag(args, 'custom-resource-state-config-file'))
    return { unread: 'its custom resource state configuration' };
  const namespaces = [...new Set(items('namespaces'))];
  const requests: string[] = [];
  for (const resource of resources) {
    const { path, cluster } = RESOURCES[resource]!;
    const paths = cluster || namespaces.length === 0 ? [`${path}/${resource}`] : namespaces.map((n) => `${path}/namespaces/${n}/${resource}`);
    for (const p of paths) requests.push(...informerRequests(p));
  }
  return { requests };
}
