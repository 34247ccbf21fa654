/**
 * A run on inputs judged before returns the verdict kept for them (gate/verdict.ts): that is only sound if the key
 * names everything the stages read. Held here on a copy of the real repository: the kept verdict equals the run that
 * made it, and a change the stages would see is judged afresh, even where it keeps the file's size and is read by a
 * check from disk (a metrics-catalog entry's code), and so is an option. A run tells a kept verdict by its progress:
 * the admission and policy stages report their start only when they run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate, type GateOptions, type GateResult } from '../../gate/gate.ts';
import { keptVerdict, SETTLED_MS } from '../../gate/verdict.ts';
import { loadTree, renderTree } from '../../gate/pipeline.ts';
import { copyGateOptions, copyRepo, type RepoCopy } from '../support/helpers.ts';

/** A file of the copy, written again unchanged. */
const FILE = 'clusters/home/cluster-facts.yaml';

describe('a kept verdict', () => {
  let copy: RepoCopy;
  let lastWrite = 0;
  beforeAll(() => {
    copy = copyRepo();
    lastWrite = Date.now();
  });
  afterAll(() => copy?.dispose());

  /** Until every file the copy holds changed longer ago than a verdict is kept for (gate/verdict.ts SETTLED_MS). */
  const settled = () => expect.poll(() => Date.now() - lastWrite > SETTLED_MS + 100).toBe(true);
  const write = (file: string, text: string) => {
    copy.write(file, text);
    lastWrite = Date.now();
  };
  /** A run, and whether its stages judged (true) or a kept verdict answered (false). */
  async function judge(options: GateOptions = {}): Promise<{ result: GateResult; judged: boolean }> {
    let judged = false;
    const result = await runGate({
      ...copyGateOptions(copy.root),
      ...options,
      onProgress: (phase, done, total) => {
        if (phase === 'policy' && done === 0 && total > 0) judged = true;
      },
    });
    return { result, judged };
  }

  it('answers a run on unchanged inputs with the verdict the run before made', async () => {
    await settled();
    const first = await judge();
    const second = await judge();
    expect(second.judged, 'the second run is answered from the kept verdict').toBe(false);
    expect(second.result).toEqual(JSON.parse(JSON.stringify(first.result)));
    expect(first.result.summary.invalid).toBe(0);
  });

  it('judges afresh a change of the same size to a file a check reads from disk', async () => {
    const code = 'portfolio-api/src/metrics.ts';
    const before = copy.read(code);
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
      copy.reset();
      lastWrite = Date.now();
    }
  });

  it('does not keep the verdict of a run whose files changed just before it', async () => {
    // Written again as it was: a file changed within its timestamp's granularity may change again unseen.
    write(FILE, copy.read(FILE));
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

  it("answers a run on some files from the whole repository's verdict, as that run judges them", async () => {
    const DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';
    const paths = ['portfolio-api/deploy', 'apps/media/sonarr/deployment.yaml'];
    try {
      copy.edit(DEPLOYMENT, 0, (d) => d.setIn(['spec', 'replicas'], 'two'));
      lastWrite = Date.now();
      // Judged in full: the edit is too recent for any verdict to answer.
      const full = await judge({ paths });
      expect(full.judged).toBe(true);
      expect(full.result.summary.invalid).toBeGreaterThan(0);
      await settled();
      expect((await judge()).judged, 'the whole repository, judged and kept').toBe(true);
      const answered = await judge({ paths });
      expect(answered.judged).toBe(false);
      expect(answered.result).toEqual(JSON.parse(JSON.stringify(full.result)));
    } finally {
      copy.reset();
      lastWrite = Date.now();
    }
  });

  it('is keyed by what each render is made of, and not kept where a rendered source does not say', async () => {
    const tree = await renderTree(await loadTree(copy.root), copyGateOptions(copy.root).env);
    const rendered = tree.renders.findIndex((r) => r.status === 'rendered');
    expect(rendered, 'the copy renders its kustomizations').toBeGreaterThanOrEqual(0);
    // A run started well after every file of the copy last changed: no file is too recent to key.
    const later = Date.now() + 10 * SETTLED_MS;
    const inputs = (renders: typeof tree.renders) => keptVerdict({ ...tree, checked: true, notRendered: [], renderFindings: [], renders }, {}, later)?.inputs;
    const asRendered = inputs(tree.renders);
    expect(asRendered).toBeDefined();
    const withMade = (madeOf: string[] | undefined) => tree.renders.map((r, i) => (i === rendered ? { ...r, madeOf } : r));
    expect(inputs(withMade(['print another']))).not.toEqual(asRendered);
    expect(inputs(withMade(undefined))).toBeUndefined();
  });
});
