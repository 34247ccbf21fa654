/**
 * The checkout's symlinks, as Argo CD's repo-server judges them before it reads any source (util/app/path
 * `CheckOutOfBoundsSymlinks`, v3.5.1): the whole checkout but `.git`, each link's target as written, refused when it
 * is absolute or any step of it stands outside the repository. One refused link fails every source of the repository.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { outOfBoundsLink } from '../../model/argocd/repo-server.ts';
import { checkoutPaths } from '../../model/repository/checkout-paths.ts';
import { checkFindingObjects, checkFindings } from '../../../test-support/gate-findings.ts';
import { fixtureRepo } from '../../../test-support/render-fixtures.ts';

describe('a symlink of the checkout, as the repo-server judges it', () => {
  // util/app/path/path_test.go at v3.5.1: each testdata folder is a checkout, its links as git holds them.
  const upstream: [string, string, string, boolean][] = [
    ['TestGoodSymlinks', 'goodlink', './file.txt', false],
    ['TestGoodSymlinks', 'goodlink2', 'subdir/file.txt', false],
    ['TestGoodSymlinks', 'goodlink3', 'subdir/..file.txt', false],
    ['TestGoodSymlinks', 'subdir/goodlink', '../subdir/file.txt', false],
    ['TestBadSymlinks', 'badlink', '../../bla', true],
    ['TestBadSymlinks2 (crazy formatting)', 'badlink', '..///../bad//../link/', true],
    ['TestBadSymlinks3 (leaves, then comes back in)', 'badlink', '../badlink3/test.txt', true],
    ['TestAbsSymlink', 'abslink', '/somethingbad', true],
  ];
  it.each(upstream)('agrees with Argo CD on %s: %s -> %s', (_test, path, target, refused) => {
    expect(outOfBoundsLink(path, target) !== undefined).toBe(refused);
  });

  it('judges the target as written, never resolved: an absolute link into the repository is refused, a dangling one that stays is not', () => {
    expect(outOfBoundsLink('docs/a.md', '/work/lab/docs/b.md')).toBe('absolute');
    expect(outOfBoundsLink('docs/deep/a.md', '../../apps/x.yaml')).toBeUndefined();
    expect(outOfBoundsLink('docs/deep/a.md', '../../../lab/apps/x.yaml')).toBe('leaves the repository');
    expect(outOfBoundsLink('a.md', 'missing/nowhere.md')).toBeUndefined();
  });
});

describe("argocd-applied-files on the checkout's symlinks", () => {
  it('fails at every link that leaves, in any folder, once each; not at one that stays; not where argocd-cmd-params-cm allows them', async () => {
    const repo = fixtureRepo();
    repo.write('docs/guide.md', '# guide\n');
    symlinkSync('/etc/hostname', join(repo.root, 'docs/hostname.md'));
    symlinkSync('../../outside/notes.md', join(repo.root, 'docs/notes.md'));
    symlinkSync('guide.md', join(repo.root, 'docs/same.md'));
    expect((await checkoutPaths(repo.root)).links).toEqual([
      { path: 'docs/hostname.md', target: '/etc/hostname' },
      { path: 'docs/notes.md', target: '../../outside/notes.md' },
      { path: 'docs/same.md', target: 'guide.md' },
    ]);
    const findings = () => checkFindings('argocd-applied-files', { root: repo.root, env: process.env });
    expect(await findings()).toEqual([
      expect.stringMatching(
        /^docs\/hostname\.md:1 docs\/hostname\.md is a symlink to \/etc\/hostname, which is absolute: .*fails every source of this repository/,
      ),
      expect.stringMatching(/^docs\/notes\.md:1 docs\/notes\.md is a symlink to \.\.\/\.\.\/outside\/notes\.md, which steps out of the repository/),
    ]);
    // Each finding names its own mend, not the check's list of every cause's.
    expect(new Set((await checkFindingObjects('argocd-applied-files', { root: repo.root, env: process.env })).map((f) => f.fix))).toEqual(
      new Set(['replace the symlink by the file itself, or by a relative link that stays inside the repository']),
    );
    repo.write(
      'clusters/home/argocd-params.yaml',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cmd-params-cm\n  namespace: argocd\ndata:\n  reposerver.allow.oob.symlinks: "True"\n',
    );
    expect(await findings()).toEqual([]);
  });
});
