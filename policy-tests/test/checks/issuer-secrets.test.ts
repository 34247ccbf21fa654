/**
 * closure-secret on the Secrets an issuer's DNS-01 solver reads: the ClusterIssuer's Cloudflare token, read in
 * cert-manager's own namespace, misnamed. Offline, cert-manager's namespace holds the chart the gate does not render,
 * so a broken copy cannot show it; here every namespace is seen whole, as with every chart rendered.
 */
import { describe, expect, it } from 'vitest';
import { closureChecks } from '../../checks/closure/index.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const secretCheck = closureChecks({ isClusterScoped: (_v, kind) => kind === 'ClusterIssuer', builtinGroups: new Set(), builtinKinds: new Map() }).find(
  (c) => c.id === 'closure-secret',
)!;
const issuer = repo.resources.find((r) => r.kind === 'ClusterIssuer' && r.name === 'letsencrypt')!;

describe("closure-secret on an issuer's solver credentials", () => {
  it('passes the real repository, and fails a ClusterIssuer whose Cloudflare token Secret nothing writes', () => {
    expect(runPolicy(repo, [secretCheck]).filter((f) => f.message.includes('ClusterIssuer'))).toEqual([]);
    const object = structuredClone(issuer.object) as {
      spec: { acme: { solvers: Array<{ dns01?: { cloudflare: { apiTokenSecretRef: { name: string } } } }> } };
    };
    const solver = object.spec.acme.solvers.find((s) => s.dns01)!;
    solver.dns01!.cloudflare.apiTokenSecretRef.name = 'cloudflrae-api-token';
    const broken = { ...repo, resources: repo.resources.map((r) => (r === issuer ? ({ ...r, object } as Resource) : r)) };
    expect(runPolicy(broken, [secretCheck]).map((f) => f.message)).toEqual([
      'ClusterIssuer letsencrypt uses Secret cert-manager/cloudflrae-api-token, which nothing in the repository provides: cert-manager cannot prove a name through it, so no certificate it should issue is issued',
    ]);
  });
});
