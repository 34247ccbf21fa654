/** The runner shows each check only what it declares it reads. */
import { describe, expect, it } from 'vitest';
import type { PolicyCheck, Reads } from '../checks/kit.ts';
import { runPolicy } from '../gate/runner.ts';
import { loadRepo, REPO_ROOT } from '../model/repo.ts';

const repo = await loadRepo(REPO_ROOT);

/** Runs a probe check with these reads, and returns what it saw. */
function seen(reads: Reads): { kinds: string[]; files: string[]; ctxKinds: string[] } {
  const out = { kinds: [] as string[], files: [] as string[], ctxKinds: [] as string[] };
  const probe: PolicyCheck = {
    id: 'probe',
    description: 'sees',
    invariants: [],
    remediation: '',
    reads,
    exemptible: false,
    run(ctx) {
      out.kinds = [...new Set(ctx.repo.resources.map((r) => r.kind))].sort();
      out.ctxKinds = [...new Set(ctx.resources.map((r) => r.kind))].sort();
      out.files = [...ctx.repo.dataFiles.keys()].sort();
    },
  };
  runPolicy(repo, [probe]);
  return out;
}

describe('the runner enforces what a check reads', () => {
  it('gives resources of the declared kinds and no data file', () => {
    expect(seen({ kinds: ['Deployment', 'Service'] })).toEqual({ kinds: ['Deployment', 'Service'], ctxKinds: ['Deployment', 'Service'], files: [] });
  });

  it('gives the data files a glob names, and no resource', () => {
    const s = seen({ files: ['security/falco/facts/*'] });
    expect(s.kinds).toEqual([]);
    expect(s.files.length).toBeGreaterThan(0);
    expect(s.files.every((f) => f.startsWith('security/falco/facts/'))).toBe(true);
  });

  it('gives a chart its values files and the Applications that name them, but not as the check\'s own resources', () => {
    const s = seen({ charts: ['falco'] });
    expect(s.files).toEqual(['security/falco/values.yaml']);
    expect(s.kinds).toEqual(['Application']);
    expect(s.ctxKinds).toEqual([]);
  });

  it('gives everything for every resource', () => {
    expect(seen({ kinds: ['*'] }).kinds.length).toBe(new Set(repo.resources.map((r) => r.kind)).size);
  });
});
