/**
 * The repository's own workflows, run as GitHub runs them (test-support/actions/), on an update bot's chart patch
 * bump (gizmo 1.0.0 -> 1.0.1, served over HTTPS on 127.0.0.1): the pull request's jobs pass and comment, and after
 * the merge the push's record job commits the published digest to main (workflows-record.test.ts). The tampered bump:
 * workflows-tampered.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JobResult } from '../../test-support/actions/runner.ts';
import { describe, expect, it } from 'vitest';
import { annotations, git, useUpdateLab, transcript, verdict, GATE_STEP, gateStep, PULL_STEP } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the repository's workflows on an update bot's chart patch bump", () => {
  it('pass on the bump and comment on it', async () => {
    const { seed, origin } = await lab().originWithLab('green');
    // main before the bump: what the gate says of the scratch lab, which is not a whole lab (no Argo CD install,
    // CNI, Falco, monitoring or media stack to judge), so the bump is held to adding nothing to it.
    const main = await git(seed, 'rev-parse', 'HEAD');
    const merge = await lab().botPullRequest(seed, origin, '1.0.1');
    const pr = lab().state(origin, join(lab().scratch, 'green-pr-artifacts'), 'pull_request', merge);
    // Three runs that read the origin and write only their own jobs' folders, as GitHub would run them: at once.
    const [before, gate, diff] = await Promise.all([
      lab().run('ci.yaml', lab().state(origin, join(lab().scratch, 'green-main-artifacts'), 'push', main)),
      lab().run('ci.yaml', pr),
      lab().run('diff.yaml', pr),
    ]);
    expect({ ...verdict(gate), ...verdict(diff) }, transcript({ ...gate, ...diff })).toEqual({
      gate: `failure: ${GATE_STEP}`,
      diff: 'success',
      comment: 'success',
    });
    const findings = (jobs: Record<string, JobResult>) => annotations(gateStep(jobs, GATE_STEP).log);
    expect(findings(gate)).toEqual(findings(before));
    expect(findings(gate).some((a) => a.includes('apps/demo/gizmo'))).toBe(findings(before).some((a) => a.includes('apps/demo/gizmo')));
    // The JUnit report is uploaded after the failure (if: always()).
    expect(gate.gate!.steps.map((s) => s.outcome).slice(-2)).toEqual(['failure', 'success']);
    expect(readFileSync(join(lab().scratch, 'green-pr-artifacts', 'junit-reports', 'validate-junit.xml'), 'utf8')).toContain('<testsuites');
    expect(gateStep(gate, PULL_STEP).log).toMatch(/verified gizmo 1\.0\.1 from https:\/\/127\.0\.0\.1:\d+ sha256:[0-9a-f]{64}/);
    const replaced = [...gate.gate!.steps, ...diff.diff!.steps].filter((s) => s.replaced).map((s) => s.name);
    expect(replaced).toEqual([
      'run sudo apt-get update && sudo apt-get install -y --no-install-recommends prometheus prometheus-alertmanager sqlite3 zstd restic postgresql postgresql-client etcd-server etcd-client openssl',
      'run npm ci',
      'run npm test',
      'install',
    ]);
    expect(pr.comments).toHaveLength(1);
    const comment = pr.comments[0]!.body;
    expect(comment).toMatch(/^<!-- homelab-gitops:rendered-diff -->\n## Rendered diff/);
    expect(comment).toMatch(/gizmo.*1\.0\.0.*1\.0\.1/);
    expect(comment).not.toMatch(/not judged/i);
  });
});
