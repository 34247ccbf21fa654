/**
 * What a sync does with an object the repository no longer declares, in the rendered diff, as gitops-engine's
 * pruneObject decides it: deleted only where the automated sync prunes and no Prune=false says otherwise; left in
 * the cluster (and said, for review) where it does not; the sync held for a person under Prune=confirm; a hook never
 * pruned. Scratch git repositories, diffed against their working tree.
 */
import { describe, expect, it } from 'vitest';
import { CLAIM, DEMO_APP, diff, repoWith, WEB } from './diff-repo.ts';
import { RISK_FLAGGED } from '../diff/command.ts';

type Report = {
  plan: { app: string; delete: number; left: number }[];
  risks: { flag: string; level: string; reason: string }[];
  changes: { id: string; change: string; pruned?: string }[];
};

const annotated = (options: string) =>
  CLAIM.replace('  namespace: demo\n', `  namespace: demo\n  annotations: {argocd.argoproj.io/sync-options: "${options}"}\n`);

/** The diff once `base` (committed with WEB) loses everything but WEB, as JSON and as the comment. */
async function removed(base: string, app = DEMO_APP) {
  const repo = await repoWith(WEB + base, app);
  repo.write('apps/demo/objects.yaml', WEB);
  const r = await diff(repo, ['HEAD', '-o', 'json']);
  const md = await diff(repo, ['HEAD', '-o', 'markdown']);
  return { code: r.code, stderr: r.stderr, report: JSON.parse(r.stdout) as Report, markdown: md.stdout };
}

describe('the rendered diff says what a sync does with what the repository no longer declares', () => {
  it('deletes it where the automated sync prunes: a delete in the plan, with what goes with it', async () => {
    const r = await removed(CLAIM);
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.plan).toEqual([expect.objectContaining({ delete: 1, left: 0 })]);
    expect(r.report.risks.map((x) => x.flag)).toEqual(['delete']);
  });

  it('leaves it in the cluster where the automated sync does not prune: no delete, a risk to review, a "left" column', async () => {
    const r = await removed(CLAIM, DEMO_APP.replace('      prune: true\n', ''));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.plan).toEqual([expect.objectContaining({ delete: 0, left: 1 })]);
    expect(r.report.changes).toEqual([expect.objectContaining({ change: 'removed', pruned: 'requires pruning' })]);
    expect(r.report.risks).toEqual([
      expect.objectContaining({
        flag: 'not-pruned',
        level: 'review',
        reason:
          "PersistentVolumeClaim demo/data is no longer in the repository, but the sync leaves it in the cluster as it is: app demo's automated sync does not prune (syncPolicy.automated.prune is not true); the app stays OutOfSync until someone deletes it",
      }),
    ]);
    expect(r.markdown).toContain('**Plan:** 0 to create, 0 to update, 0 to delete, 0 to replace, 1 left in the cluster (not pruned), in 1 Application(s).');
    expect(r.markdown).toContain(
      '| Application | create | update | delete | replace | left (not pruned) |\n|---|---:|---:|---:|---:|---:|\n| `demo` | 0 | 0 | 0 | 0 | 1 |',
    );
  });

  it('leaves everything where the app now renders nothing: its automated sync refuses to wipe out all its resources, unless allowEmpty', async () => {
    const emptied = async (app: string) => {
      const repo = await repoWith(WEB + CLAIM, app);
      repo.write('apps/demo/objects.yaml', '# nothing here any more\n');
      const r = await diff(repo, ['HEAD', '-o', 'json']);
      return JSON.parse(r.stdout) as Report;
    };
    const refused = await emptied(DEMO_APP);
    expect(refused.plan).toEqual([expect.objectContaining({ delete: 0, left: 2 })]);
    expect(refused.changes.map((c) => c.pruned)).toEqual(['wipe-out refused', 'wipe-out refused']);
    expect(refused.risks.map((x) => x.reason)).toContainEqual(
      expect.stringMatching(
        /^Deployment demo\/web is no longer in the repository, but the sync leaves it in the cluster as it is: app demo now renders nothing, .*auto-sync will wipe out all resources/,
      ),
    );
    const allowed = await emptied(DEMO_APP.replace('      prune: true\n', '      prune: true\n      allowEmpty: true\n'));
    expect(allowed.plan).toEqual([expect.objectContaining({ delete: 2, left: 0 })]);
  });

  it('leaves it under Prune=false on the object, and holds the sync for a person under Prune=confirm', async () => {
    let r = await removed(annotated('Prune=false'));
    expect(r.report.plan).toEqual([expect.objectContaining({ delete: 0, left: 1 })]);
    expect(r.report.risks.map((x) => x.reason)).toEqual([
      expect.stringContaining("Prune=false (on the object, or in app demo's syncOptions) keeps every sync from deleting it"),
    ]);
    r = await removed(annotated('Prune=confirm'));
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    expect(r.report.risks.map((x) => [x.flag, x.reason])).toEqual([
      ['not-pruned', expect.stringMatching(/Prune=confirm holds its deletion: app demo's sync stays Syncing until a person confirms the prune/)],
    ]);
  });

  it('counts nothing for a hook it removes, and says it stays: Argo CD never prunes a hook', async () => {
    const hook = CLAIM.replace('kind: PersistentVolumeClaim', 'kind: ConfigMap')
      .replace(/spec:[\s\S]*$/, 'data: {a: "1"}\n')
      .replace('  namespace: demo\n', '  namespace: demo\n  annotations: {argocd.argoproj.io/hook: PreSync}\n');
    const r = await removed(hook);
    expect(r.code, r.stderr).toBe(RISK_FLAGGED);
    // The app stays Synced: nothing to delete, nothing left OutOfSync.
    expect(r.report.plan).toEqual([expect.objectContaining({ delete: 0, left: 0 })]);
    expect(r.report.changes).toEqual([expect.objectContaining({ change: 'removed', pruned: 'never pruned' })]);
    expect(r.report.risks).toEqual([
      expect.objectContaining({
        flag: 'not-pruned',
        level: 'review',
        reason: expect.stringMatching(/^ConfigMap demo\/data, a hook, is no longer in the repository: Argo CD never prunes a hook/),
      }),
    ]);
  });
});
