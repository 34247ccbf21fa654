/**
 * network-policy-ports judges a port only where the containers' ports are known: the repository's own
 * containers must declare every port they serve; upstream's (a chart, a remote base) may serve one
 * undeclared (Argo CD's notifications controller, --metrics-port 9001), so such a port is not judged, and said.
 */
import { describe, expect, it } from 'vitest';
import { networkPolicyChecks } from '../../checks/network-policy/network-policy.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const portsCheck = networkPolicyChecks.filter((c) => c.id === 'network-policy-ports');

/** The real repository with port 9001 added to the API's metrics allowance, its Deployment written by this repo or by upstream. */
function withUndeclaredPort(upstream: boolean): Repo {
  const resources = repo.resources.map((r): Resource => {
    if (r.kind === 'NetworkPolicy' && r.name === 'portfolio-api') {
      const object = structuredClone(r.object) as { spec: { ingress: { ports: { port: unknown }[] }[] } };
      object.spec.ingress[1]!.ports.push({ port: 9001 });
      return { ...r, object };
    }
    if (upstream && r.kind === 'Deployment' && r.name === 'portfolio-api')
      return { ...r, rendered: { id: 'portfolio-api#0', app: 'portfolio-api', source: 'chart api 1.0.0 from https://charts.example.net' } };
    return r;
  });
  return { ...repo, resources };
}

describe('network-policy-ports, by who wrote the pods', () => {
  it("fails a port the repository's own containers do not declare", () => {
    const findings = runPolicy(withUndeclaredPort(false), portsCheck);
    expect(findings.map((f) => [f.check, f.severity, f.message.includes('allows port 9001')])).toEqual([['network-policy-ports', undefined, true]]);
  });

  it("does not judge one an upstream chart's pods may serve undeclared, and says so with the reason", () => {
    const findings = runPolicy(withUndeclaredPort(true), portsCheck);
    expect(findings).toHaveLength(1);
    expect(findings[0]!.severity).toBe('not-judged');
    expect(findings[0]!.message).toMatch(/allows port 9001.*chart api 1\.0\.0 from https:\/\/charts\.example\.net, an upstream chart/);
  });

  it('passes the real repository', () => {
    expect(runPolicy(repo, portsCheck)).toEqual([]);
  });
});
