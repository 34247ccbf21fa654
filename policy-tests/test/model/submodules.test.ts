/**
 * Git submodules, as Argo CD's checkout brings them in (util/git/client.go `Checkout`, v3.5.1): with `.gitmodules` at
 * the root and ARGOCD_GIT_MODULES_ENABLED not false, `git submodule update --init --recursive` puts another
 * repository's files at the commit each gitlink pins into the checkout, where any source reaching them applies them.
 */
import { describe, expect, it } from 'vitest';
import { checkoutPaths, submodulesOf } from '../../model/repository/checkout-paths.ts';
import { output } from '../../../test-support/exec.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { fixtureRepo } from '../../../test-support/render-fixtures.ts';

const COMMIT = '0123456789abcdef0123456789abcdef01234567';

describe('a submodule of the checkout', () => {
  it('is read from .gitmodules as git reads it: sections, quoted values, comments, and a gitlink it does not name', () => {
    const text = '[submodule "a"]\n\tpath = apps/a/\n\turl = "https://example.org/a.git" ; a comment\n# [submodule "b"]\n[Submodule "c"]\n\tPath=apps/c\n';
    expect(submodulesOf(text)).toEqual([
      { path: 'apps/a', url: 'https://example.org/a.git', line: 2 },
      { path: 'apps/c', line: 6 },
    ]);
    expect(
      submodulesOf(text, [
        { path: 'apps/a', commit: COMMIT },
        { path: 'apps/z', commit: COMMIT },
      ]),
    ).toEqual([
      { path: 'apps/a', url: 'https://example.org/a.git', line: 2, gitlink: true, commit: COMMIT },
      { path: 'apps/c', line: 6, gitlink: false },
      { path: 'apps/z', commit: COMMIT, gitlink: true },
    ]);
  });

  it("fails argocd-applied-files at its .gitmodules line, where Argo CD's checkout would fetch it, and not where the repo-server updates no submodule", async () => {
    const repo = fixtureRepo();
    const git = (...args: string[]) => output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', ...args], { cwd: repo.root });
    repo.write('.gitmodules', '[submodule "extras"]\n\tpath = apps/extras\n\turl = https://github.com/attacker/extras.git\n');
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    // The gitlink a `git submodule add` would stage: a commit of the other repository, which no checkout of this one holds.
    await git('update-index', '--add', '--cacheinfo', `160000,${COMMIT},apps/extras`);
    expect((await checkoutPaths(repo.root)).submodules).toEqual([
      { path: 'apps/extras', url: 'https://github.com/attacker/extras.git', line: 2, gitlink: true, commit: COMMIT },
    ]);
    const findings = () => checkFindings('argocd-applied-files', { root: repo.root, env: process.env });
    expect(await findings()).toEqual([
      expect.stringMatching(/^\.gitmodules:2 Argo CD's checkout fetches the submodule at apps\/extras \(https:\/\/github\.com\/attacker\/extras\.git\)/),
    ]);
    // A gitlink .gitmodules does not name fails the update, and every source of the repository with it.
    await git('update-index', '--add', '--cacheinfo', `160000,${COMMIT},apps/other`);
    expect(await findings()).toContainEqual(
      expect.stringMatching(/^\.gitmodules:1 git's index holds a submodule at apps\/other that \.gitmodules does not name/),
    );
    // A repo-server told not to update submodules leaves the gitlinks empty folders.
    repo.write(
      'clusters/home/argocd-params.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  reposerver.enable.git.submodule: "FALSE"\n',
    );
    expect(await findings()).toEqual([]);
  });
});
