/**
 * The chart archives an update bot's pull request keeps between its runs (ci.yaml, test-support/actions/cache.ts): the
 * lock does not hold the bumped version yet, so the entry is named by the archives it holds, not by the lock. The
 * first run fetches the bump and keeps it; the next restores it and reads only the index that vouches for it.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { transcript, useUpdateLab, gateStep, PULL_STEP } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the workflows' chart archives on an update bot's pull request", () => {
  it('are kept by its first run under a name of their own and restored by the next, which fetches nothing', async () => {
    const { seed, origin } = await lab().originWithLab('bump-cached');
    // An update bot's bump, which the lock does not hold yet: its pull request's first run fetches the new version
    // and keeps the archives under a name of their own; its next run restores them and fetches nothing, although
    // the lock is still main's.
    const merge = await lab().botPullRequest(seed, origin, '1.0.1');
    const pr = async (n: number) => lab().run('ci.yaml', lab().state(origin, join(lab().scratch, `bump-cached-${n}`), 'pull_request', merge));
    const bump = await pr(1);
    expect(gateStep(bump, PULL_STEP).log, transcript(bump)).toMatch(/^verified gizmo 1\.0\.1 /m);
    const saved = gateStep(bump, 'keep the chart archives').log.match(/^Cache saved with key: (chart-archives-[0-9a-f]{64})$/m)?.[1];
    expect(saved, transcript(bump)).toBeDefined();
    const again = await pr(2);
    expect(gateStep(again, 'chart archives of earlier runs').log, transcript(again)).toMatch(new RegExp(`^Cache restored from key: ${saved}$`, 'm'));
    expect(gateStep(again, PULL_STEP).log).toMatch(
      /^cached {3}gizmo 1\.0\.1 from https:\/\/127\.0\.0\.1:\d+ sha256:[0-9a-f]{64}, the digest its repository's index\.yaml publishes$/m,
    );
    expect(gateStep(again, 'keep the chart archives').outcome).toBe('skipped');
  });
});
