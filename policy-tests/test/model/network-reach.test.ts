/**
 * shutOutBy reads a NetworkPolicy's ingress as Cilium enforces it: a client's pods by their labels and namespace, an
 * address block never reported as blocking, and a client on the node's network (a multi-node cluster) arriving as
 * its node, which no namespace or pod peer admits; a pod on the node's network is isolated by no policy.
 */
import { describe, expect, it } from 'vitest';
import { shutOutBy, type Client, type Placed, type PodPorts } from '../../model/cluster/network-reach.ts';
import type { Resource } from '../../model/core/manifest.ts';

const policy = (ingress: unknown[]): Placed => ({
  namespace: 'apps',
  policy: { kind: 'NetworkPolicy', name: 'web', object: { spec: { podSelector: {}, policyTypes: ['Ingress'], ingress } } } as unknown as Resource,
});
const namespaces = new Map([
  ['apps', { 'kubernetes.io/metadata.name': 'apps' }],
  ['ingress', { 'kubernetes.io/metadata.name': 'ingress' }],
]);
const web = { namespace: 'apps', labels: { app: 'web' }, named: new Map([['http', '8080']]) };
const proxy: Client = { namespace: 'ingress', pods: [{ app: 'proxy' }] };
const byPeer = policy([
  { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } }, podSelector: { matchLabels: { app: 'proxy' } } }] },
]);
const shut = (p: Placed, client: Client, pod: PodPorts = web) => shutOutBy([p], { pod, port: 'http' }, client, namespaces).map((r) => r.name);

describe('shutOutBy', () => {
  it("admits a client by its namespace and pods, and not one on the node's network, which arrives as its node", () => {
    expect(shut(byPeer, proxy)).toEqual([]);
    expect(shut(byPeer, { ...proxy, onNodeNetwork: true })).toEqual(['web']);
    // A rule with no peer admits anything; an address block is not judged, never blocking.
    expect(shut(policy([{}]), { ...proxy, onNodeNetwork: true })).toEqual([]);
    expect(shut(policy([{ from: [{ ipBlock: { cidr: '192.168.1.0/24' } }] }]), { ...proxy, onNodeNetwork: true })).toEqual([]);
  });

  it("isolates no pod on the node's network: no policy that selects pods holds it", () => {
    expect(shut(policy([]), proxy)).toEqual(['web']);
    expect(shut(policy([]), proxy, { ...web, hostNetwork: true })).toEqual([]);
  });
});
