/**
 * The repository's own workflows after an update bot's chart patch bump is merged (gizmo 1.0.0 -> 1.0.1, served over
 * HTTPS on 127.0.0.1): main moves to the merge commit, and the push's record job commits the digest the chart
 * repository publishes to main's lock, as the bot. The pull request's own jobs: workflows-run.test.ts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { git, useUpdateLab, transcript, verdict } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the repository's workflows after an update bot's chart patch bump is merged", () => {
  it('record the published digest on main', async () => {
    const { seed, origin } = await lab().originWithLab('merged');
    const merge = await lab().botPullRequest(seed, origin, '1.0.1');
    // The merge: main moves to the merge commit, and the push runs the lock's recorder.
    await git(seed, 'push', '-q', origin, `${merge}:refs/heads/main`);
    const push = lab().state(origin, join(lab().scratch, 'merged-push-artifacts'), 'push', merge);
    const record = await lab().run('record-lock.yaml', push);
    expect(verdict(record), transcript(record)).toEqual({ record: 'success' });
    const lock = JSON.parse(await git(lab().scratch, '--git-dir', origin, 'show', 'main:charts.lock.json')) as {
      charts: { chart: string; version: string; digest: string }[];
    };
    const index = parse(readFileSync(join(lab().charts.dir, 'index.yaml'), 'utf8')) as { entries: { gizmo: { version: string; digest: string }[] } };
    const published = index.entries.gizmo.find((e) => e.version === '1.0.1')!.digest;
    expect(lock.charts.filter((c) => c.chart === 'gizmo')).toEqual([
      { repoURL: lab().charts.url, chart: 'gizmo', version: '1.0.1', digest: `sha256:${published}` },
    ]);
    expect(await git(lab().scratch, '--git-dir', origin, 'log', '-1', '--format=%an', 'main')).toBe('github-actions[bot]');
  });
});
