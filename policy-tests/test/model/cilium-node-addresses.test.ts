/**
 * Address peers as Cilium reads them (model/cilium/node-addresses.ts): a block never selects a pod, and selects a node
 * only under policy-cidr-match-mode: nodes. The API server is at every control-plane node's address, so a block that
 * leaves one out loses the calls to or from it; a pod on the node's network is at any node, so a block that holds some
 * nodes is not judged; where the cluster facts give no nodes, nothing by address is judged.
 */
import { describe, expect, it } from 'vitest';
import { apiServerEgressVerdict, egressVerdict } from '../../model/cilium/egress.ts';
import { apiServerIngressVerdict, ingressVerdict } from '../../model/cilium/ingress.ts';
import { cidrSelectsNodes, type NodeAddresses, type PeerFacts } from '../../model/cilium/node-addresses.ts';
import type { Placed, PodPorts } from '../../model/cluster/network-reach.ts';
import type { EgressVerdict } from '../../model/cilium/egress.ts';
import type { Resource } from '../../model/core/manifest.ts';

const nodes: NodeAddresses = {
  controlPlane: ['192.168.1.11', '192.168.1.12', '192.168.1.13'],
  all: ['192.168.1.11', '192.168.1.12', '192.168.1.13', '192.168.1.21', '192.168.1.22', '192.168.1.23'],
  selectedByCidr: true,
};
const namespaces = new Map([['apps', { 'kubernetes.io/metadata.name': 'apps' }]]);
const facts: PeerFacts = { namespaces, nodes };
const modeOff: PeerFacts = { namespaces, nodes: { ...nodes, selectedByCidr: false } };
const noNodes: PeerFacts = { namespaces };

const web: PodPorts = { namespace: 'apps', labels: { app: 'web' }, named: new Map([['https', '9443']]) };
const agent: PodPorts = { namespace: 'apps', labels: { app: 'agent' }, named: new Map([['metrics', '9100']]), hostNetwork: true };
const placed = (kind: string, spec: Record<string, unknown>): Placed => ({
  namespace: 'apps',
  policy: { kind, name: 'p', object: { kind, spec } } as unknown as Resource,
});
const egress = (rules: unknown[], kind = 'NetworkPolicy') =>
  placed(kind, kind === 'NetworkPolicy' ? { podSelector: {}, policyTypes: ['Egress'], egress: rules } : { endpointSelector: {}, egress: rules });
const ingress = (rules: unknown[], kind = 'NetworkPolicy') =>
  placed(kind, kind === 'NetworkPolicy' ? { podSelector: {}, policyTypes: ['Ingress'], ingress: rules } : { endpointSelector: {}, ingress: rules });
const word = (v: EgressVerdict) => ('allowed' in v ? 'allowed' : 'unknown' in v ? 'unknown' : 'refused');
const block = (cidr: string, except?: string[]) => ({ ipBlock: { cidr, ...(except ? { except } : {}) } });

describe('address peers to the API server', () => {
  const toApi = (to: unknown[], peers: PeerFacts = facts) => word(apiServerEgressVerdict([egress([{ to, ports: [{ port: 6443 }] }])], web, peers));

  it('admits a block that holds every control-plane node, under agents that match nodes by CIDR', () => {
    expect(toApi([block('192.168.1.0/24')])).toBe('allowed');
    expect(toApi([block('192.168.1.11/32'), block('192.168.1.12/31')])).toBe('allowed');
    expect(toApi([block('192.168.1.0/24')], modeOff)).toBe('refused');
    expect(toApi([block('192.168.1.0/24')], noNodes)).toBe('unknown');
  });

  it('refuses a block that leaves a control-plane node out (the VIP alone, an except, another network)', () => {
    expect(toApi([block('192.168.1.11/32')])).toBe('refused');
    expect(toApi([block('192.168.1.10/32')])).toBe('refused'); // the VIP: the Service's endpoints are the nodes
    expect(toApi([block('192.168.1.0/24', ['192.168.1.13/32'])])).toBe('refused');
    expect(toApi([block('10.96.0.1/32')])).toBe('refused'); // the Service's address: policy sees the endpoint
  });

  it("reads Cilium's toCIDR and toCIDRSet the same way, and a CIDR group as not judged", () => {
    const cnp = (rule: Record<string, unknown>) =>
      word(apiServerEgressVerdict([egress([{ ...rule, toPorts: [{ ports: [{ port: '6443', protocol: 'TCP' }] }] }], 'CiliumNetworkPolicy')], web, facts));
    expect(cnp({ toCIDR: ['192.168.1.0/28'] })).toBe('allowed');
    expect(cnp({ toCIDRSet: [{ cidr: '192.168.1.0/24', except: ['192.168.1.12/32'] }] })).toBe('refused');
    expect(cnp({ toCIDRSet: [{ cidrGroupRef: 'control-plane' }] })).toBe('unknown');
  });
});

describe('address peers to and from pods and nodes', () => {
  it('never admits a pod by address', () => {
    const client: PodPorts = { namespace: 'apps', labels: { app: 'client' }, named: new Map() };
    const v = egressVerdict([egress([{ to: [block('0.0.0.0/0')] }])], client, { pod: web, port: 'https', service: { namespace: 'apps', name: 'web' } }, facts);
    expect(word(v)).toBe('refused');
  });

  it("admits a pod on the node's network by a block that holds every node, and leaves one that holds some not judged", () => {
    const toAgent = (cidr: string, peers: PeerFacts = facts) =>
      word(egressVerdict([egress([{ to: [block(cidr)] }])], web, { pod: agent, port: 'metrics', service: { namespace: 'apps', name: 'agent' } }, peers));
    expect(toAgent('192.168.1.0/24')).toBe('allowed');
    expect(toAgent('192.168.1.16/28')).toBe('unknown'); // the workers only
    expect(toAgent('10.0.0.0/8')).toBe('refused');
    expect(toAgent('192.168.1.0/24', modeOff)).toBe('refused');
  });

  it('lets the API server call a webhook through a block of every control-plane node', () => {
    const call = (from: unknown[], peers: PeerFacts = facts) => word(apiServerIngressVerdict([ingress([{ from }])], web, 'https', peers));
    expect(call([block('192.168.1.0/24')])).toBe('allowed');
    expect(call([block('192.168.1.11/32')])).toBe('refused');
    expect(call([block('192.168.1.0/24')], modeOff)).toBe('refused');
    const cilium = word(apiServerIngressVerdict([ingress([{ fromCIDR: ['192.168.1.0/24'] }], 'CiliumNetworkPolicy')], web, 'https', facts));
    expect(cilium).toBe('allowed');
  });

  it("judges a client on the node's network by the nodes a block holds, and a client of pods refused by any block", () => {
    const from = (cidr: string, client: Parameters<typeof ingressVerdict>[2]) =>
      word(ingressVerdict([ingress([{ from: [block(cidr)] }])], { pod: web, port: 'https' }, client, facts));
    expect(from('192.168.1.0/24', { namespace: 'apps', pods: [{}], onNodeNetwork: true })).toBe('allowed');
    expect(from('192.168.1.16/28', { namespace: 'apps', pods: [{}], onNodeNetwork: true })).toBe('unknown');
    expect(from('0.0.0.0/0', { namespace: 'apps', pods: [{ app: 'web' }] })).toBe('refused');
  });
});

describe('cidrSelectsNodes', () => {
  it("holds where every source of Cilium's chart sets policyCIDRMatchMode to include nodes", () => {
    expect(cidrSelectsNodes([{ values: { policyCIDRMatchMode: ['nodes'] } }])).toBe(true);
    expect(cidrSelectsNodes([{ values: { policyCIDRMatchMode: 'nodes' } }])).toBe(true);
    expect(cidrSelectsNodes([{ values: { policyCIDRMatchMode: ['nodes'] } }, { values: {} }])).toBe(false);
    expect(cidrSelectsNodes([])).toBe(false);
  });
});
