/**
 * ingressVerdict reads the ingress of the policies that select a pod as Cilium enforces NetworkPolicy and
 * CiliumNetworkPolicy together: a client's pods by their namespace and labels (by namespace alone where the gate does
 * not see them), an address block admitting no client of pods (the nodes' blocks: cilium-node-addresses.test.ts), a client on the node's network (a multi-node cluster) arriving as its
 * node, which no namespace or pod peer admits; Cilium's fromEndpoints, its entities and a rule of ports alone; and a
 * pod on the node's network isolated by no policy.
 */
import { describe, expect, it } from 'vitest';
import { ingressVerdict } from '../../model/cilium/ingress.ts';
import type { Client, Placed, PodPorts } from '../../model/cluster/network-reach.ts';
import type { Resource } from '../../model/core/manifest.ts';

const policy = (ingress: unknown[], kind = 'NetworkPolicy'): Placed => ({
  namespace: 'apps',
  policy: {
    kind,
    name: 'web',
    object: {
      spec: kind === 'NetworkPolicy' ? { podSelector: {}, policyTypes: ['Ingress'], ingress } : { endpointSelector: { matchLabels: { app: 'web' } }, ingress },
    },
  } as unknown as Resource,
});
const namespaces = new Map([
  ['apps', { 'kubernetes.io/metadata.name': 'apps' }],
  ['ingress', { 'kubernetes.io/metadata.name': 'ingress' }],
]);
const web: PodPorts = { namespace: 'apps', labels: { app: 'web' }, named: new Map([['http', '8080']]) };
const proxy: Client = { namespace: 'ingress', pods: [{ app: 'proxy' }] };
const byPeer = policy([
  { from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress' } }, podSelector: { matchLabels: { app: 'proxy' } } }] },
]);
/** What the verdict says, in a word: allowed, refused (by which policies) or unknown. */
const verdict = (p: Placed, client: Client, pod: PodPorts = web) => {
  const v = ingressVerdict([p], { pod, port: 'http' }, client, { namespaces });
  return 'allowed' in v ? 'allowed' : 'unknown' in v ? 'unknown' : v.refusedBy.map((r) => r.name).join();
};

describe('ingressVerdict', () => {
  it("isolates a pod's ingress as Cilium reads a NetworkPolicy: by its ingress rules whatever policyTypes says, else unless policyTypes names Egress alone", () => {
    const spec = (s: Record<string, unknown>): Placed => ({ ...byPeer, policy: { ...byPeer.policy, object: { spec: { podSelector: {}, ...s } } } as Resource });
    const rules = (byPeer.policy.object.spec as { ingress: unknown[] }).ingress;
    expect(verdict(spec({ policyTypes: ['Egress'], ingress: rules }), { ...proxy, pods: [{ app: 'other' }] })).toBe('web');
    expect(verdict(spec({ policyTypes: ['Egress'], ingress: rules }), proxy)).toBe('allowed');
    expect(verdict(spec({ policyTypes: ['Egress'] }), proxy)).toBe('allowed');
    expect(verdict(spec({ policyTypes: ['Egress'], ingress: [] }), proxy)).toBe('allowed');
    expect(verdict(spec({}), proxy)).toBe('web');
    expect(verdict(spec({ policyTypes: [] }), proxy)).toBe('web');
  });

  it("admits a client by its namespace and pods, and not one on the node's network, which arrives as its node", () => {
    expect(verdict(byPeer, proxy)).toBe('allowed');
    expect(verdict(byPeer, { namespace: 'ingress' })).toBe('allowed');
    expect(verdict(byPeer, { ...proxy, pods: [{ app: 'other' }] })).toBe('web');
    expect(verdict(byPeer, { ...proxy, onNodeNetwork: true })).toBe('web');
    // A rule with no peer admits anything; an address block never selects a pod, and selects a node only where the
    // cluster facts place the nodes (not given here: not judged).
    expect(verdict(policy([{}]), { ...proxy, onNodeNetwork: true })).toBe('allowed');
    expect(verdict(policy([{ from: [{ ipBlock: { cidr: '192.168.1.0/24' } }] }]), { ...proxy, onNodeNetwork: true })).toBe('unknown');
    expect(verdict(policy([{ from: [{ ipBlock: { cidr: '10.244.0.0/16' } }] }]), proxy)).toBe('web');
    expect(verdict(policy([{ from: [{ ipBlock: { cidr: '10.244.0.0/16' } }] }]), { namespace: 'ingress' })).toBe('unknown');
  });

  it("reads Cilium's fromEndpoints, its entities and a rule of ports alone", () => {
    const endpoints = policy([{ fromEndpoints: [{ matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'ingress', app: 'proxy' } }] }], 'CiliumNetworkPolicy');
    expect(verdict(endpoints, proxy)).toBe('allowed');
    expect(verdict(endpoints, { ...proxy, pods: [{ app: 'other' }] })).toBe('web');
    // Pods the gate does not see: their labels would decide.
    expect(verdict(endpoints, { namespace: 'ingress' })).toBe('unknown');
    expect(verdict(policy([{ fromEntities: ['cluster'] }], 'CiliumNetworkPolicy'), proxy)).toBe('allowed');
    expect(verdict(policy([{ fromEntities: ['world'] }], 'CiliumNetworkPolicy'), proxy)).toBe('web');
    expect(verdict(policy([{ fromEntities: ['remote-node'] }], 'CiliumNetworkPolicy'), { ...proxy, onNodeNetwork: true })).toBe('unknown');
    expect(verdict(policy([{ toPorts: [{ ports: [{ port: '8080', protocol: 'TCP' }] }] }], 'CiliumNetworkPolicy'), proxy)).toBe('allowed');
    expect(verdict(policy([{ toPorts: [{ ports: [{ port: '80', protocol: 'TCP' }] }] }], 'CiliumNetworkPolicy'), proxy)).toBe('web');
  });

  it("isolates no pod on the node's network: no policy that selects pods holds it", () => {
    expect(verdict(policy([]), proxy)).toBe('web');
    expect(verdict(policy([]), proxy, { ...web, hostNetwork: true })).toBe('allowed');
  });
});
