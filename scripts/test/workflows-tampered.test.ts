/**
 * The repository's own workflows on an update bot's chart bump whose archive is not the bytes its repository
 * publishes (gizmo 1.0.2 republished): the gate and the diff jobs fail at the pull, and the comment still says which
 * step. The clean bump: workflows-run.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useUpdateLab, transcript, verdict } from '../../test-support/actions/update-lab.ts';

const lab = useUpdateLab();

describe("the repository's workflows on an update bot's tampered chart bump", () => {
  it('fail on a bump whose archive is not the bytes its repository publishes, and say so in the comment', async () => {
    const { seed, origin } = await lab().originWithLab('red');
    const merge = await lab().botPullRequest(seed, origin, '1.0.2');
    const pr = lab().state(origin, join(lab().scratch, 'red-pr-artifacts'), 'pull_request', merge);
    // Two workflows on one pull request, as GitHub runs them: at once.
    const [gate, diff] = await Promise.all([lab().run('ci.yaml', pr), lab().run('diff.yaml', pr)]);
    expect({ ...verdict(gate), ...verdict(diff) }, transcript({ ...gate, ...diff })).toEqual({
      gate: 'failure: run npm run charts:pull -- --verify-index --prune',
      diff: "failure: pull the head's charts",
      comment: 'success',
    });
    expect(gate.gate!.steps.find((s) => s.outcome === 'failure')!.log).toMatch(/REFUSED\s+gizmo 1\.0\.2.*not the ones published/);
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]!.body).toContain('**No diff: the step "pull the head\'s charts" failed**');
  });
});
