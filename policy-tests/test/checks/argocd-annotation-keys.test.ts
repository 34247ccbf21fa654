/**
 * argocd-annotation-keys: a key of Argo CD's domain it does not read, or a domain one or two edits from its own, is
 * said with the key meant; keys of other domains, and Argo CD's own subdomains (link., notifications), are not its.
 */
import { describe, expect, it } from 'vitest';
import { argocdAnnotationKeysCheck } from '../../checks/argocd/annotation-keys.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const service = repo.resources.find((r) => r.kind === 'Service' && r.name === 'portfolio-api')!;

const judged = (metadata: Record<string, Record<string, string>>) => {
  const object = structuredClone(service.object) as { metadata: Record<string, unknown> };
  Object.assign(object.metadata, metadata);
  const changed = { ...service, object } as Resource;
  return runPolicy({ ...repo, resources: repo.resources.map((r) => (r === service ? changed : r)) }, [argocdAnnotationKeysCheck]).map((f) => f.message);
};

describe('argocd-annotation-keys', () => {
  it('passes the real repository', () => {
    expect(runPolicy(repo, [argocdAnnotationKeysCheck])).toEqual([]);
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
      'Service portfolio-api: annotation "argocd.argoproj.io/sync-wav" is no annotation Argo CD reads (did you mean "argocd.argoproj.io/sync-wave"?); Argo CD ignores it without a word',
    ]);
    expect(judged({ labels: { 'argocd.argoproj.io/sync-wave': '1' } })).toEqual([
      'Service portfolio-api: label "argocd.argoproj.io/sync-wave" is one Argo CD reads as an annotation, never as a label; Argo CD ignores it without a word',
    ]);
  });
  it('says a domain one or two edits from argocd.argoproj.io, and the key meant', () => {
    expect(judged({ annotations: { 'argocd.argporoj.io/sync-options': 'Prune=false' } })).toEqual([
      'Service portfolio-api: annotation "argocd.argporoj.io/sync-options" is in no domain Argo CD reads, 2 edit(s) from argocd.argoproj.io (did you mean "argocd.argoproj.io/sync-options"?); Argo CD ignores it without a word',
    ]);
  });
});
