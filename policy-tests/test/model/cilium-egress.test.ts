/**
 * Whether the policies selecting a pod let it open a connection (model/cilium/egress.ts), rule by rule as Cilium
 * enforces a NetworkPolicy and a CiliumNetworkPolicy: peers by namespace and pods, ports by number, name, range and
 * protocol, Cilium's namespace labels and entities, an address block that selects no pod, and what the gate cannot place
 * said unknown.
 */
import { describe, expect, it } from 'vitest';
import { egressVerdict, type Destination } from '../../model/cilium/egress.ts';
import type { Resource } from '../../model/core/manifest.ts';

const pod = (namespace: string, labels: Record<string, string>, named: Record<string, string> = {}) => ({
  namespace,
  labels,
  named: new Map(Object.entries(named)),
});
const client = pod('media', { app: 'sonarr' });
const dest: Destination = {
  pod: pod('media-vpn', { app: 'gluetun' }, { 'http-qbt': '8080' }),
  port: 'http-qbt',
  service: { namespace: 'media-vpn', name: 'qbittorrent' },
};
const policy = (kind: string, spec: Record<string, unknown>, namespace = 'media') => ({
  policy: { kind, name: `${kind.toLowerCase()}-x`, object: { kind, spec } } as unknown as Resource,
  namespace,
});
const labels = new Map([
  ['media', { 'kubernetes.io/metadata.name': 'media' }],
  ['media-vpn', { 'kubernetes.io/metadata.name': 'media-vpn', tier: 'vpn' }],
]);
const verdict = (...policies: ReturnType<typeof policy>[]) => {
  const v = egressVerdict(policies, client, dest, { namespaces: labels });
  return 'allowed' in v ? 'allowed' : 'unknown' in v ? 'unknown' : 'refused';
};
const np = (egress: unknown[], extra: Record<string, unknown> = {}) => policy('NetworkPolicy', { podSelector: {}, policyTypes: ['Egress'], egress, ...extra });
const cnp = (egress: unknown[]) => policy('CiliumNetworkPolicy', { endpointSelector: {}, egress });
const toVpn = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'media-vpn' } } };

describe('egressVerdict', () => {
  it('allows what no policy isolates, and refuses what an isolating policy lets nowhere', () => {
    expect(verdict()).toBe('allowed');
    expect(verdict(policy('NetworkPolicy', { podSelector: {}, policyTypes: ['Ingress'] }))).toBe('allowed');
    expect(verdict(np([]))).toBe('refused');
    // Without policyTypes, egress rules make it an egress policy (the API server defaults policyTypes so), and an empty
    // list does not.
    expect(verdict(policy('NetworkPolicy', { podSelector: {}, egress: [{ to: [{ podSelector: {} }] }] }))).toBe('refused');
    expect(verdict(policy('NetworkPolicy', { podSelector: {}, egress: [] }))).toBe('allowed');
    // Cilium's ParseNetworkPolicy takes egress rules whatever policyTypes says: the API reads this policy as ingress
    // only, Cilium isolates the pods' egress to its one rule.
    expect(verdict(policy('NetworkPolicy', { podSelector: {}, policyTypes: ['Ingress'], egress: [{ to: [{ podSelector: {} }] }] }))).toBe('refused');
    expect(verdict(policy('NetworkPolicy', { podSelector: {}, policyTypes: ['Ingress'], egress: [] }))).toBe('allowed');
    expect(verdict(np([]), np([{}]))).toBe('allowed');
  });

  it("reads a NetworkPolicy's peers and ports: namespace and pods, a number, the destination's port name, a range", () => {
    expect(verdict(np([{ to: [toVpn], ports: [{ port: 8080 }] }]))).toBe('allowed');
    expect(verdict(np([{ to: [toVpn], ports: [{ port: 'http-qbt' }] }]))).toBe('allowed');
    expect(verdict(np([{ to: [toVpn], ports: [{ port: 8000, endPort: 8100 }] }]))).toBe('allowed');
    expect(verdict(np([{ to: [toVpn], ports: [{ port: 8080, protocol: 'UDP' }] }]))).toBe('refused');
    expect(verdict(np([{ to: [{ ...toVpn, podSelector: { matchLabels: { app: 'other' } } }] }]))).toBe('refused');
    expect(verdict(np([{ to: [{ podSelector: {} }] }]))).toBe('refused'); // its own namespace only
    // An address block never selects a pod: its address maps to its endpoint's identity.
    expect(verdict(np([{ to: [{ ipBlock: { cidr: '10.0.0.0/8' } }] }]))).toBe('refused');
  });

  it("reads a CiliumNetworkPolicy's endpoints by namespace label, namespace labels, entities, Services and ports", () => {
    const inVpn = { matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'media-vpn', 'k8s:app': 'gluetun' } };
    expect(verdict(cnp([{ toEndpoints: [inVpn], toPorts: [{ ports: [{ port: '8080', protocol: 'TCP' }] }] }]))).toBe('allowed');
    expect(verdict(cnp([{ toEndpoints: [inVpn], toPorts: [{ ports: [{ port: '9090', protocol: 'TCP' }] }] }]))).toBe('refused');
    expect(verdict(cnp([{ toEndpoints: [{ matchLabels: { 'k8s:io.cilium.k8s.namespace.labels.tier': 'vpn' } }] }]))).toBe('allowed');
    expect(verdict(cnp([{ toEndpoints: [{ matchLabels: { 'k8s:app': 'gluetun' } }] }]))).toBe('refused'); // the policy's namespace only
    expect(verdict(cnp([{ toEndpoints: [{}] }]))).toBe('refused');
    expect(verdict(cnp([{ toEndpoints: [{ matchLabels: { 'reserved:host': '' } }] }]))).toBe('refused');
    expect(verdict(cnp([{ toEntities: ['cluster'] }]))).toBe('allowed');
    expect(verdict(cnp([{ toEntities: ['world'] }]))).toBe('refused');
    expect(verdict(cnp([{ toServices: [{ k8sService: { serviceName: 'qbittorrent', namespace: 'media-vpn' } }] }]))).toBe('allowed');
    expect(verdict(cnp([{ toFQDNs: [{ matchName: 'qbittorrent.media-vpn.svc.cluster.local' }] }]))).toBe('refused');
    expect(verdict(cnp([{ toCIDR: ['10.0.0.0/8'] }]))).toBe('refused');
    expect(verdict(cnp([{ toGroups: [{ aws: { securityGroupsIds: ['sg-1'] } }] }]))).toBe('unknown');
  });

  it('says a deny rule or a clusterwide policy leaves the verdict unknown', () => {
    expect(
      verdict(policy('CiliumNetworkPolicy', { endpointSelector: {}, egressDeny: [{ toEntities: ['world'] }], egress: [{ toEntities: ['cluster'] }] })),
    ).toBe('unknown');
    expect(verdict(policy('CiliumClusterwideNetworkPolicy', { endpointSelector: {}, egress: [{ toEntities: ['world'] }] }, ''))).toBe('unknown');
  });
});
