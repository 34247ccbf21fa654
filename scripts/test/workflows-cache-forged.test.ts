/**
 * The chart archives the workflows keep between runs (actions/cache, test-support/actions/cache.ts), handed back
 * with other bytes under the archive's name: the pull holds each to the lock, fetches the chart again, and the gate
 * judges the same as before. The archives saved and restored: workflows-cache.test.ts.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { annotations, git, transcript, useUpdateLab, gateStep, PULL_STEP, GATE_STEP } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the workflows' chart archives, come back other bytes", () => {
  it('are held to the lock: the chart is fetched again, and the gate judges the same', async () => {
    const { seed, origin } = await lab().originWithLab('forged');
    const main = await git(seed, 'rev-parse', 'HEAD');
    const run = async (n: number) => lab().run('ci.yaml', lab().state(origin, join(lab().scratch, `forged-${n}`), 'push', main));

    // A run that pulls the chart and keeps its archive.
    const first = await run(1);
    expect(gateStep(first, 'keep the chart archives').log, transcript(first)).toMatch(/^Cache saved with key: chart-archives-[0-9a-f]{64}$/m);

    // The cache hands back other bytes under the archive's name: the pull fetches the chart again, as the lock records it.
    const store = join(`${origin}.caches`);
    for (const scope of readdirSync(store))
      for (const entry of readdirSync(join(store, scope))) writeFileSync(join(store, scope, entry, 'files', '0'), 'not the archive\n');
    const second = await run(2);
    expect(gateStep(second, 'chart archives of earlier runs').log, transcript(second)).toMatch(/^Cache restored from key: /m);
    expect(gateStep(second, PULL_STEP).log).toMatch(/^pulled {3}gizmo 1\.0\.0 /m);
    expect(annotations(gateStep(second, GATE_STEP).log)).toEqual(annotations(gateStep(first, GATE_STEP).log));
  });
});
