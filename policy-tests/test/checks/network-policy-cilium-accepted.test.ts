/**
 * network-policy-cilium-accepted reads the agent's settings from the cilium-config the chart renders: with it, a
 * setting that is off refuses every policy resting on it; without it, those policies are one "not judged" per setting.
 */
import { describe, expect, it } from 'vitest';
import { ciliumAcceptedCheck } from '../../checks/network-policy/cilium-accepted.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** The ConfigMap the cilium chart renders for its agents, with these settings. */
const agentConfig = (data: Record<string, string>): Resource =>
  ({
    ...repo.resources.find((r) => r.kind === 'ConfigMap')!,
    apiVersion: 'v1',
    kind: 'ConfigMap',
    name: 'cilium-config',
    object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cilium-config', namespace: 'kube-system' }, data },
  }) as Resource;

const run = (extra: Resource[]) => runPolicy({ ...repo, resources: [...repo.resources, ...extra] }, [ciliumAcceptedCheck]);
/** The policies of the real repository that send DNS through the agent's proxy (an L7 rule). */
const DNS_POLICIES = ['backups-egress', 'etcd-backup-egress', 'etcd-backup-check-egress', 'portfolio-api-egress', 'falco-artifacts', 'falcosidekick-egress'];

describe('network-policy-cilium-accepted', () => {
  it("passes the real repository under the chart's settings (its L7 proxy on)", () => {
    expect(run([agentConfig({ 'enable-l7-proxy': 'true', 'enable-node-selector-labels': 'false' })])).toEqual([]);
  });

  it('refuses every policy with DNS rules where the L7 proxy is off, at its egress rule', () => {
    const findings = run([agentConfig({ 'enable-l7-proxy': 'false' })]);
    expect(findings.map((f) => f.message.replace(/^CiliumNetworkPolicy (\S+) .*$/, '$1'))).toEqual(DNS_POLICIES);
    expect(findings.every((f) => f.severity !== 'not-judged' && f.message.includes('L7 policy is not supported since L7 proxy is not enabled'))).toBe(true);
  });

  it('says the policies resting on a setting not judged, once, where the chart is not rendered', () => {
    const findings = run([]);
    expect(findings.map((f) => f.severity)).toEqual(['not-judged']);
    expect(findings[0]!.message).toContain(`${DNS_POLICIES.length} Cilium policies`);
    expect(findings[0]!.message).toContain('enable-l7-proxy');
  });
});
