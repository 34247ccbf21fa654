/**
 * closure-annotation-keys: a key of a controller's domain (Argo CD's, MetalLB's) it does not read, or a domain one or
 * two edits from one of theirs, is said with the key meant; keys of other domains, and Argo CD's own subdomains
 * (link., notifications), are not its.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { annotationKeysCheck } from '../../checks/closure/annotation-keys.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const service = repo.resources.find((r) => r.kind === 'Service' && r.name === 'portfolio-api')!;

const judged = (metadata: Record<string, Record<string, string>>) => {
  const object = structuredClone(service.object) as { metadata: Record<string, unknown> };
  Object.assign(object.metadata, metadata);
  const changed = { ...service, object } as Resource;
  return runPolicy({ ...repo, resources: repo.resources.map((r) => (r === service ? changed : r)) }, [annotationKeysCheck]).map((f) => f.message);
};

describe('closure-annotation-keys', () => {
  it("holds the gate's own keys to the ones the gate reads, and leaves an exemption's to the exemption step", async () => {
    // Every gate.homelab-gitops/ key a rule of the gate names is one the domain lists: a new one unlisted would be refused.
    const files = await new Promise<string[]>((resolve, reject) =>
      execFile('git', ['ls-files', 'policy-tests/*.ts'], { cwd: REPO_ROOT, timeout: 60_000 }, (err, out) =>
        err ? reject(err) : resolve(out.split('\n').filter((f) => f && !f.includes('/test/'))),
      ),
    );
    const named = new Set(
      files.flatMap((f) => [...readFileSync(`${REPO_ROOT}/${f}`, 'utf8').matchAll(/'gate\.homelab-gitops\/([a-z-]+[a-z])'/g)].map((m) => m[1]!)),
    );
    const unread = [...named].filter((name) => judged({ annotations: { [`gate.homelab-gitops/${name}`]: 'x' } }).length > 0);
    expect(named.size).toBeGreaterThan(10);
    expect(unread).toEqual([]);
    expect(judged({ annotations: { 'gate.homelab-gitops/exempt-closure-service': 'why' } })).toEqual([]);
    expect(judged({ annotations: { 'gate.homelab-gitops/requires-crd': 'x' } })).toEqual([
      expect.stringContaining('is no annotation the gate reads (did you mean "gate.homelab-gitops/requires-crds"?)'),
    ]);
  });

  it("says a MetalLB key it does not read, or a domain one slip from MetalLB's, with the key meant", () => {
    expect(judged({ annotations: { 'metallb.io/loadBalancerIPs': '192.168.1.240', 'metallb.universe.tf/allow-shared-ip': 'x' } })).toEqual([]);
    expect(judged({ annotations: { 'mteallb.io/loadBalancerIPs': '192.168.1.240' } })).toEqual([
      'Service portfolio-api: annotation "mteallb.io/loadBalancerIPs" is in no domain MetalLB v0.16.1 reads, 2 edit(s) from metallb.io (did you mean "metallb.io/loadBalancerIPs"?); it ignores it without a word',
    ]);
    expect(judged({ annotations: { 'metallb.io/loadBalancerIP': '192.168.1.240' } })).toEqual([
      'Service portfolio-api: annotation "metallb.io/loadBalancerIP" is no annotation MetalLB v0.16.1 reads (did you mean "metallb.io/loadBalancerIPs"?); it ignores it without a word',
    ]);
  });

  it("says a domain one slip from Traefik's, and leaves Traefik's own keys to closure-traefik-annotations", () => {
    expect(judged({ annotations: { 'traefik.ingres.kubernetes.io/router.middlewares': 'a-b@kubernetescrd' } })).toEqual([
      'Service portfolio-api: annotation "traefik.ingres.kubernetes.io/router.middlewares" is in no domain Traefik v3.7 reads, 1 edit(s) from traefik.ingress.kubernetes.io (did you mean "traefik.ingress.kubernetes.io/router.middlewares"?); it ignores it without a word',
    ]);
    expect(judged({ annotations: { 'traefik.ingress.kubernetes.io/router.midlewares': 'a-b@kubernetescrd' } })).toEqual([]);
  });

  it('passes the real repository', () => {
    expect(runPolicy(repo, [annotationKeysCheck])).toEqual([]);
  });
  it("passes Argo CD's keys, other domains and Argo CD's subdomains", () => {
    expect(
      judged({
        annotations: {
          'argocd.argoproj.io/sync-wave': '1',
          'argocd.argoproj.io/hook': 'PreSync',
          'link.argocd.argoproj.io/dashboard': 'https://example.org',
          'notifications.argoproj.io/subscribe.on-sync-failed.slack': 'x',
          'example.org/anything': 'x',
        },
        labels: { 'argocd.argoproj.io/secret-type': 'repository', 'app.kubernetes.io/name': 'x' },
      }),
    ).toEqual([]);
  });
  it('says a key of its domain Argo CD does not read, and the one meant', () => {
    expect(judged({ annotations: { 'argocd.argoproj.io/sync-wav': '1' } })).toEqual([
      'Service portfolio-api: annotation "argocd.argoproj.io/sync-wav" is no annotation Argo CD v3.5.1 reads (did you mean "argocd.argoproj.io/sync-wave"?); it ignores it without a word',
    ]);
    expect(judged({ labels: { 'argocd.argoproj.io/sync-wave': '1' } })).toEqual([
      'Service portfolio-api: label "argocd.argoproj.io/sync-wave" is one Argo CD v3.5.1 reads as an annotation, never as a label; it ignores it without a word',
    ]);
  });
  it('says a domain one or two edits from argocd.argoproj.io, and the key meant', () => {
    expect(judged({ annotations: { 'argocd.argporoj.io/sync-options': 'Prune=false' } })).toEqual([
      'Service portfolio-api: annotation "argocd.argporoj.io/sync-options" is in no domain Argo CD v3.5.1 reads, 2 edit(s) from argocd.argoproj.io (did you mean "argocd.argoproj.io/sync-options"?); it ignores it without a word',
    ]);
  });
});
