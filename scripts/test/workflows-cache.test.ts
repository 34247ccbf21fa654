/**
 * The chart archives the workflows keep between runs (actions/cache, test-support/actions/cache.ts): the gate's job
 * on main saves what its pull fetched, the next run restores it and fetches nothing, and an archive the cache hands
 * back with other bytes is never used: the pull holds it to the lock, fetches the chart again, and the gate judges
 * the same as before (workflows-cache-forged.test.ts). An update bot's pull request keeps what it fetched:
 * workflows-cache-bump.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotations, git, transcript, useUpdateLab, gateStep, PULL_STEP, GATE_STEP } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the workflows' chart archives, kept between runs", () => {
  it('are saved by a run that pulled them and restored by the next, which fetches nothing', async () => {
    const { seed, origin } = await lab().originWithLab('cached');
    const main = await git(seed, 'rev-parse', 'HEAD');
    const run = async (n: number) => lab().run('ci.yaml', lab().state(origin, join(lab().scratch, `cached-${n}`), 'push', main));

    // A fresh repository: nothing to restore, the chart fetched, its archive kept.
    const first = await run(1);
    expect(gateStep(first, 'chart archives of earlier runs').log, transcript(first)).toMatch(/^Cache not found for input keys: chart-archives-$/m);
    expect(gateStep(first, PULL_STEP).log).toMatch(/^pulled {3}gizmo 1\.0\.0 /m);
    expect(gateStep(first, 'keep the chart archives').log).toMatch(/^Cache saved with key: chart-archives-[0-9a-f]{64}$/m);

    // The next run on the same lock: the archive restored, nothing fetched, nothing saved again.
    const second = await run(2);
    expect(gateStep(second, 'chart archives of earlier runs').log, transcript(second)).toMatch(/^Cache restored from key: chart-archives-[0-9a-f]{64}$/m);
    expect(gateStep(second, PULL_STEP).log).toMatch(/^cached {3}gizmo 1\.0\.0 from https:\/\/127\.0\.0\.1:\d+$/m);
    expect(gateStep(second, 'keep the chart archives').outcome).toBe('skipped');
    expect(annotations(gateStep(second, GATE_STEP).log)).toEqual(annotations(gateStep(first, GATE_STEP).log));
  });
});
