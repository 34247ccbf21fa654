/**
 * network-policy-pod-cidr on the rendered cilium-config: Cilium's pool outside the facts' pod network fails, a
 * cluster pool inside it and the kubernetes IPAM pass, and another mode is said not judged.
 */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { podCidrMutations, standInCilium } from '../mutations/pod-cidr.ts';
import { podCidrCheck } from '../../checks/network-policy/pod-cidr.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

describeMutations('network-policy-pod-cidr bites on a broken copy of the real repository, the chart rendered', podCidrMutations, standInCilium());

const repo = await loadRepo(REPO_ROOT);
const config = (data: Record<string, string>): Resource =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'cilium-config',
    namespace: 'kube-system',
    file: 'apps/platform/cilium/application.yaml',
    doc: 0,
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cilium-config', namespace: 'kube-system' }, data },
    rendered: { id: 'cilium#0', app: 'cilium', source: 'chart cilium 1.19.8' },
    positions: { at: () => ({ line: 1, col: 1 }) },
  }) as unknown as Resource;
const verdicts = (data: Record<string, string>) => {
  const findings = runPolicy({ ...repo, resources: [...repo.resources, config(data)] }, [podCidrCheck]);
  const of = (severity: string) => findings.filter((f) => (f.severity ?? 'error') === severity).map((f) => f.message);
  return { failed: of('error'), notJudged: of('not-judged') };
};

describe("Cilium's pod addresses, as cilium-config gives them", () => {
  it("takes the kubernetes IPAM and a cluster pool inside the facts' pod network", () => {
    expect(verdicts({ ipam: 'kubernetes' })).toEqual({ failed: [], notJudged: [] });
    expect(verdicts({ ipam: 'cluster-pool', 'cluster-pool-ipv4-cidr': '10.244.0.0/17 10.244.128.0/17' })).toEqual({ failed: [], notJudged: [] });
  });

  it('refuses each pool outside it, and says where a pool holds the Service network', () => {
    const { failed } = verdicts({ ipam: 'cluster-pool', 'cluster-pool-ipv4-cidr': '10.0.0.0/8 10.244.0.0/16' });
    expect(failed).toEqual([expect.stringMatching(/^Cilium gives pods addresses from 10\.0\.0\.0\/8 .*holds the Service network 10\.96\.0\.0\/12/)]);
  });

  it('says another mode is not judged', () => {
    expect(verdicts({ ipam: 'multi-pool' })).toEqual({ failed: [], notJudged: [expect.stringMatching(/IPAM mode "multi-pool"/)] });
  });
});
