/** The Argo CD projects' checks (projects.ts) and the install's (argocd-install.ts) bite on a broken copy of the real repository. */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { onBrokenCopy } from '../support/helpers.ts';
import { mediaInheritsSecurity, PORTFOLIO_APP } from '../mutations/edits.ts';
import { projectsMutations } from '../mutations/projects.ts';
import { argocdInstallMutations } from '../mutations/argocd-install.ts';

describeMutations('platform checks (projects.ts) bite on a broken copy of the real repository', projectsMutations);
describeMutations('platform checks (argocd-install.ts) bite on a broken copy of the real repository', argocdInstallMutations);

describe("a global project's sync windows (argocd-cm globalProjects)", () => {
  it('hold back the apps of every project it is given to, and a window for those apps only is no window that matches nothing', async () => {
    const { failed } = await onBrokenCopy('argocd-sync-windows', (copy) => {
      mediaInheritsSecurity('  syncWindows:\n    - kind: deny\n      schedule: "* * * * *"\n      duration: 1h\n      applications: ["media-*"]\n')(copy);
    });
    expect(failed.map((f) => (f as { message: string }).message)).toEqual([
      expect.stringMatching(
        /^Applications media-bazarr-4k, .*, media-unpackerr never sync on their own: deny window 0 .* leave the controller no moment to sync in$/,
      ),
    ]);
  });
});

describe("the namespace CreateNamespace=true makes is an object of the app's sync", () => {
  it("fails where the project does not permit Namespace, in Argo CD's words, at the option", async () => {
    // The portfolio project permits ClusterRoles and their bindings only.
    const { failed } = await onBrokenCopy('argocd-project-scope', (copy) =>
      copy.edit(PORTFOLIO_APP, 0, (d) => d.setIn(['spec', 'syncPolicy', 'syncOptions'], d.createNode(['CreateNamespace=true']))),
    );
    expect(failed.map((f) => `${f.file}:${f.line} ${f.message}`)).toEqual([
      expect.stringMatching(
        /^portfolio-api\/deploy\/application\.yaml:\d+ resource :Namespace is not permitted in project portfolio: CreateNamespace=true makes namespace portfolio an object of Application portfolio-api's sync/,
      ),
    ]);
  });
});
