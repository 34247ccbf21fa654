/**
 * The Argo CD checks (checks/argocd/) of how Argo CD syncs an app bite on a broken copy of the real repository: its
 * sync policy, options and windows, pruning, hooks, cascade and operation; a window that holds an app back part of
 * the time, CreateNamespace=true where the app holds its Namespace, an app that renders nothing under prune. What it
 * reads before it syncs: argocd-checks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { rmSync } from 'node:fs';
import { runGate } from '../../gate/gate.ts';
import { fixtureRepo, REPO_URL, repoApp } from '../../../test-support/render-fixtures.ts';
import { PORTFOLIO_APP, PROJECTS } from '../mutations/edits.ts';
import { argocdSyncMutations } from '../mutations/argocd.ts';

describeMutations("platform checks (argocd.ts) of Argo CD's sync bite on a broken copy of the real repository", argocdSyncMutations);

describe('a sync window that holds an app back part of the time is said, and signed commits are not judged', () => {
  it('warns with the share of the year the window leaves, and fails nothing', async () => {
    const { failed, warned, notJudged } = await onBrokenCopy('argocd-sync-windows', (copy) =>
      copy.edit(PROJECTS, 4, (d) => {
        // Working hours on weekdays, Berlin time: 10 of 24 hours on 5 of 7 days are held back.
        d.setIn(
          ['spec', 'syncWindows'],
          d.createNode([{ kind: 'deny', schedule: '0 8 * * 1-5', duration: '10h', timeZone: 'Europe/Berlin', namespaces: ['portfolio'] }]),
        );
        d.setIn(['spec', 'signatureKeys'], d.createNode([{ keyID: '4AEE18F83AFDEB23' }]));
      }),
    );
    expect(failed).toEqual([]);
    expect(warned).toEqual([
      'Application portfolio-api syncs on its own only outside deny window 0 ("0 8 * * 1-5" for 10h, Europe/Berlin), 70% of the time: a change merged while the windows hold it back reaches the cluster at the next moment they allow',
    ]);
    expect(notJudged).toEqual([expect.stringMatching(/^AppProject portfolio has Argo CD sync only commits signed by the keys its signatureKeys names/)]);
  });
});

describe('CreateNamespace=true on an app whose own manifests hold the Namespace creates none', () => {
  const ownNamespace = (copy: RepoCopy) => {
    copy.write('portfolio-api/deploy/namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: portfolio-extra\n');
    copy.edit(PORTFOLIO_APP, 0, (d) => {
      d.setIn(['spec', 'destination', 'namespace'], 'portfolio-extra');
      d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['CreateNamespace=true']));
      d.setIn(['spec', 'syncPolicy', 'managedNamespaceMetadata'], d.createNode({ labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } }));
    });
  };

  it("so the Namespace has one owner (argocd-will-sync sees no fight over it), and its managedNamespaceMetadata is never written: said at the metadata, naming the Namespace's file", async () => {
    const { failed } = await onBrokenCopy(['argocd-managed-namespace', 'argocd-will-sync'], ownNamespace);
    expect(failed.map((f) => `${f.check} ${f.file}: ${f.message}`)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^argocd-managed-namespace ${PORTFOLIO_APP}: Application portfolio-api: managedNamespaceMetadata is never written: its own manifests hold Namespace portfolio-extra \\(portfolio-api/deploy/namespace\\.yaml\\)`,
        ),
      ),
    ]);
  });
});

describe('an app that renders nothing, under an automated prune without allowEmpty', () => {
  it("is a warning: where it manages anything, Argo CD skips its sync ('auto-sync will wipe out all resources'); none with allowEmpty", async () => {
    const repo = fixtureRepo();
    try {
      repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
      repo.write('apps/web/chart/values.yaml', 'enabled: false\n');
      repo.write('apps/web/chart/templates/cm.yaml', '{{- if .Values.enabled }}\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n{{- end }}\n');
      const app = (automated: string) => repoApp('web', '    path: apps/web/chart', `  syncPolicy:\n    automated:\n${automated}      selfHeal: true\n`);
      const warned = async () =>
        (await runGate({ root: repo.root, cwd: repo.root, env: process.env })).warnings.filter((w) => w.check === 'argocd-sync-policy').map((w) => w.message);
      repo.write('apps/web/application.yaml', app('      prune: true\n'));
      expect(await warned()).toEqual([expect.stringMatching(/^Application web renders nothing: .*auto-sync will wipe out all resources/)]);
      repo.write('apps/web/application.yaml', app('      prune: true\n      allowEmpty: true\n'));
      expect(await warned()).toEqual([]);
      // Its chart source dropped, the values' ref alone is left: the repo-server skips a ref-only source.
      repo.write(
        'apps/web/application.yaml',
        app('      prune: true\n').replace(
          /  source:\n[\s\S]*?(?=  destination:)/,
          `  sources:\n    - repoURL: ${REPO_URL}\n      targetRevision: main\n      ref: values\n`,
        ),
      );
      expect(await warned()).toEqual([expect.stringMatching(/^Application web renders nothing: /)]);
    } finally {
      rmSync(repo.root, { recursive: true, force: true });
    }
  });
});
