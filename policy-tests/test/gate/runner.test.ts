/** The runner shows each check only what it declares it reads. */
import { describe, expect, it } from 'vitest';
import type { PolicyCheck, Reads } from '../../model/checks/kit.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

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
      // Kustomization files are layout, visible to every check (asserted below); the rest is what the check declared.
      out.files = [...ctx.repo.dataFiles.keys()].filter((f) => !f.endsWith('/kustomization.yaml')).sort();
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

  it("gives a chart its values files and the Applications that name them, but not as the check's own resources", () => {
    const s = seen({ charts: ['falco'] });
    expect(s.files).toEqual(['security/falco/values.yaml']);
    expect(s.kinds).toEqual(['Application']);
    expect(s.ctxKinds).toEqual([]);
  });

  it('shows every check the kustomization files, which say what an app applies', () => {
    let layout: string[] = [];
    runPolicy(repo, [
      {
        id: 'probe',
        description: '',
        invariants: [],
        remediation: '',
        reads: { kinds: ['Deployment'] },
        exemptible: false,
        run: (ctx) => void (layout = [...ctx.repo.dataFiles.keys()]),
      },
    ]);
    expect(layout.length).toBeGreaterThan(0);
    expect(layout.every((f) => f.endsWith('/kustomization.yaml'))).toBe(true);
  });

  it('gives everything for every resource', () => {
    expect(seen({ kinds: ['*'] }).kinds.length).toBe(new Set(repo.resources.map((r) => r.kind)).size);
  });
});
