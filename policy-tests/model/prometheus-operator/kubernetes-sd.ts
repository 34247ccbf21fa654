/**
 * What Prometheus' Kubernetes discovery asks the API server (discovery/kubernetes, the same code in Prometheus 3 and
 * in Alloy's `discovery.kubernetes`): for its role an informer (a list, then a watch) of each resource the role reads
 * (pod: pods; service: services; endpoints: endpoints, services and pods; endpointslice: discovery.k8s.io
 * endpointslices, services and pods; node: nodes; ingress: networking.k8s.io ingresses), in each namespace it is given
 * or every namespace at once; and of nodes where node metadata is attached to a pod, endpoints or endpointslice role.
 * Shared by the Prometheus the operator runs (discovery.ts) and by Alloy (model/alloy/kubernetes-requests.ts).
 */
import { informerRequests } from '../apps/api-requests.ts';

/** Where a request stands for every namespace: only a ClusterRoleBinding grants it (no RoleBinding is in `{any}`). */
export const ANY_NAMESPACE = '{any}';

const ROLE_RESOURCES: Readonly<Record<string, string[]>> = {
  pod: ['/api/v1|pods'],
  service: ['/api/v1|services'],
  endpoints: ['/api/v1|endpoints', '/api/v1|services', '/api/v1|pods'],
  endpointslice: ['/apis/discovery.k8s.io/v1|endpointslices', '/api/v1|services', '/api/v1|pods'],
  node: ['/api/v1|nodes'],
  ingress: ['/apis/networking.k8s.io/v1|ingresses'],
};

/** Whether the discovery knows the role. */
export const isDiscoveryRole = (role: unknown): role is string => typeof role === 'string' && Object.hasOwn(ROLE_RESOURCES, role);

/** An informer's requests: a list, then a watch, in a namespace or (`''`) every one at once; a cluster-scoped kind without one. */
export function informer(resource: string, namespace: string, clusterScoped = false): string[] {
  const [prefix, plural] = resource.split('|') as [string, string];
  return informerRequests(clusterScoped || namespace === '' ? `${prefix}/${plural}` : `${prefix}/namespaces/${namespace}/${plural}`);
}

/** The requests of one discovery: its role's informers in each namespace (`''` for every one), and nodes' where attached. */
export function roleRequests(role: string, namespaces: readonly string[], attachNode: boolean): string[] {
  const requests = namespaces.flatMap((namespace) => ROLE_RESOURCES[role]!.flatMap((resource) => informer(resource, namespace, role === 'node')));
  if (attachNode && ['pod', 'endpoints', 'endpointslice'].includes(role)) requests.push(...informer('/api/v1|nodes', '', true));
  return requests;
}
