/**
 * network-policy-node-cidr knows a node by its port (Talos' API, the kubelet's) or by an address the repository
 * names as a node, in every form a CIDR peer takes (toCIDR, toCIDRSet, fromCIDR, a NetworkPolicy's ipBlock), and
 * leaves alone a CIDR that means the world.
 */
import { describe, expect, it } from 'vitest';
import { nodeCidrCheck } from '../../checks/network-policy/node-cidr.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const VALUES = 'apps/platform/cilium/values.yaml';

/** The real repository with `extra` policies added and Cilium's CIDR matching at its default (no nodes). */
function withPolicies(extra: Resource[], nodesMode: boolean): Repo {
  const dataFiles = new Map(repo.dataFiles);
  const values = dataFiles.get(VALUES)!;
  const data = { ...(values.data as Record<string, unknown>) };
  if (!nodesMode) delete data.policyCIDRMatchMode;
  dataFiles.set(VALUES, { ...values, data });
  return { ...repo, dataFiles, resources: [...repo.resources, ...extra] };
}

const policy = (kind: string, name: string, spec: object): Resource =>
  ({
    ...repo.resources.find((r) => r.kind === 'NetworkPolicy')!,
    apiVersion: kind === 'NetworkPolicy' ? 'networking.k8s.io/v1' : 'cilium.io/v2',
    kind,
    name,
    object: { apiVersion: kind === 'NetworkPolicy' ? 'networking.k8s.io/v1' : 'cilium.io/v2', kind, metadata: { name, namespace: 'backups' }, spec },
  }) as Resource;

const EXTRA = [
  policy('NetworkPolicy', 'kubelet-by-ipblock', {
    podSelector: {},
    egress: [{ to: [{ ipBlock: { cidr: '192.168.1.0/24' } }], ports: [{ port: 10250 }] }],
  }),
  policy('CiliumNetworkPolicy', 'talos-by-cidrset', {
    endpointSelector: {},
    egress: [{ toCIDRSet: [{ cidr: '192.168.1.8/29' }], toPorts: [{ ports: [{ port: '443' }] }] }],
  }),
  policy('CiliumNetworkPolicy', 'from-a-node', { endpointSelector: {}, ingress: [{ fromCIDR: ['192.168.1.22/32'] }] }),
  policy('CiliumNetworkPolicy', 'the-world', { endpointSelector: {}, egress: [{ toCIDR: ['1.1.1.1/32'], toPorts: [{ ports: [{ port: '443' }] }] }] }),
];

describe('network-policy-node-cidr', () => {
  it('passes the real repository, whose Cilium selects nodes by CIDR and rolls its agents', () => {
    expect(runPolicy(withPolicies(EXTRA, true), [nodeCidrCheck])).toEqual([]);
  });

  it('finds a node by its port or its address in each form of CIDR peer, and never a CIDR of the world', () => {
    const findings = runPolicy(withPolicies(EXTRA, false), [nodeCidrCheck]);
    const named = findings.map((f) => /^\S+ (\S+) allows (\S+), and (port \d+|[\d.]+ is a node)/.exec(f.message)?.slice(1));
    expect(named).toEqual(
      expect.arrayContaining([
        ['etcd-backup-egress', '192.168.1.11/32', 'port 50000'],
        ['kubelet-by-ipblock', '192.168.1.0/24', 'port 10250'],
        ['talos-by-cidrset', '192.168.1.8/29', '192.168.1.11 is a node'],
        ['from-a-node', '192.168.1.22/32', '192.168.1.22 is a node'],
      ]),
    );
    expect(findings).toHaveLength(4);
  });

  it("holds a rule on a node's own port to the nodes the cluster facts list, whatever Cilium's mode", () => {
    const stale = policy('CiliumNetworkPolicy', 'talos-before-the-move', {
      endpointSelector: {},
      egress: [{ toCIDR: ['10.0.10.11/32'], toPorts: [{ ports: [{ port: '50000' }] }] }],
    });
    const findings = runPolicy(withPolicies([stale], true), [nodeCidrCheck]);
    expect(findings.map((f) => f.message)).toEqual([
      expect.stringMatching(
        /^CiliumNetworkPolicy talos-before-the-move allows 10\.0\.10\.11\/32 on port 50000, Talos' API \(apid\).*no node of the cluster facts' nodeNetwork \(192\.168\.1\.0\/24\)/,
      ),
    ]);
  });
});
