/** AppProject.IsSourcePermitted as Argo CD decides it: normalised URLs, '/'-separated globs, `!` denials. */
import { describe, expect, it } from 'vitest';
import { argoNormalizeGitURL, sourcePermitted } from '../../model/argocd/argocd.ts';

describe('sourceRepos', () => {
  it('normalises as git.NormalizeGitURL: case, .git, scp-style SSH; a trailing slash stays', () => {
    expect(argoNormalizeGitURL(' https://GitHub.com/Alice/Lab.git ')).toBe('https://github.com/alice/lab');
    expect(argoNormalizeGitURL('git@github.com:alice/lab.git')).toBe('git@github.com/alice/lab');
    expect(argoNormalizeGitURL('https://charts.jetstack.io/')).toBe('https://charts.jetstack.io/');
  });

  it('permits an exact URL in any spelling Argo CD normalises alike, and nothing else', () => {
    const repos = ['https://github.com/alice/lab.git', 'https://charts.jetstack.io'];
    expect(sourcePermitted(repos, 'https://github.com/Alice/lab')).toBe(true);
    expect(sourcePermitted(repos, 'https://charts.jetstack.io')).toBe(true);
    expect(sourcePermitted(repos, 'https://charts.jetstack.io/')).toBe(false);
    expect(sourcePermitted(repos, 'https://github.com/bob/lab.git')).toBe(false);
    expect(sourcePermitted([], 'https://github.com/alice/lab.git')).toBe(false);
  });

  it("matches globs with '/' as the separator: * within a segment, ** across", () => {
    expect(sourcePermitted(['https://github.com/alice/*'], 'https://github.com/alice/lab.git')).toBe(true);
    expect(sourcePermitted(['https://github.com/*'], 'https://github.com/alice/lab.git')).toBe(false);
    expect(sourcePermitted(['https://github.com/**'], 'https://github.com/alice/lab.git')).toBe(true);
    expect(sourcePermitted(['*'], 'oci://ghcr.io/anything')).toBe(true);
  });

  it('denies with !, and (as Argo CD) an unmatched denial permits everything else', () => {
    expect(sourcePermitted(['*', '!https://github.com/evil/*'], 'https://github.com/evil/repo')).toBe(false);
    expect(sourcePermitted(['*', '!https://github.com/evil/*'], 'https://github.com/alice/lab')).toBe(true);
    expect(sourcePermitted(['!https://github.com/evil/*'], 'https://github.com/alice/lab')).toBe(true);
  });
});
