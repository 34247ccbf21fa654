/**
 * A kept verdict (gate/verdict.ts) is only sound if its key names everything the stages read. Held here on a copy of
 * the real repository: a change the stages would see is judged afresh, even where it keeps the file's size and is
 * read by a check from disk (a metrics-catalog entry's code), and so is an option, and a run whose files changed just
 * before it is not kept. That a kept verdict answers as the run that made it: kept-verdict.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { allFindings } from '../../gate/gate.ts';
import { useKeptVerdictCopy } from '../support/kept-verdict.ts';

/** A file of the copy, written again unchanged. */
const FILE = 'clusters/home/cluster-facts.yaml';

describe('a kept verdict is judged afresh', () => {
  const { copy, settled, write, touched, judge } = useKeptVerdictCopy();
  // In this order, each test finds the copy as the last left it: settled after the first, so the next runs at once.
  it('does not keep the verdict of a run whose files changed just before it', async () => {
    // Written again as it was: a file changed within its timestamp's granularity may change again unseen.
    write(FILE, copy().read(FILE));
    const racy = await judge();
    await settled();
    const next = await judge();
    expect([racy.judged, next.judged]).toEqual([true, true]);
  });

  it('judges afresh when an option the stages read differs', async () => {
    await settled();
    await judge();
    const skipping = await judge({ skip: ['ConfigMap'] });
    expect(skipping.judged).toBe(true);
    expect(skipping.result.summary.skipped).toBeGreaterThan(0);
  });

  it('judges afresh a change of the same size to a file a check reads from disk', async () => {
    const code = 'portfolio-api/src/metrics.ts';
    const before = copy().read(code);
    const after = before.replace("'blog_origin_fetches_total'", "'blog_origin_fetched_total'");
    expect(after.length).toBe(before.length);
    try {
      await settled();
      await judge(); // the unchanged copy's verdict kept
      write(code, after);
      await settled();
      const changed = await judge();
      expect(changed.judged).toBe(true);
      expect(allFindings(changed.result).some((f) => f.check === 'metrics-catalog-current' && f.message.includes('blog_origin_fetched_total'))).toBe(true);
      const again = await judge();
      expect(again.judged, 'the changed tree is kept in turn').toBe(false);
      expect(again.result).toEqual(JSON.parse(JSON.stringify(changed.result)));
    } finally {
      copy().reset();
      touched();
    }
  });
});
