/**
 * A run on inputs judged before returns the verdict kept for them (gate/verdict.ts): held here on a copy of the real
 * repository, the kept verdict equals the run that made it, for the whole repository and for a run on some of its
 * files, and its key names what each render is made of. What makes a run judge afresh is held in
 * kept-verdict-afresh.test.ts. A run tells a kept verdict by its progress: the admission and policy stages report
 * their start only when they run.
 */
import { describe, expect, it } from 'vitest';
import { keptVerdict, SETTLED_MS } from '../../gate/verdict.ts';
import { loadTree, renderTree } from '../../gate/pipeline.ts';
import { copyGateOptions } from '../support/helpers.ts';
import { useKeptVerdictCopy } from '../support/kept-verdict.ts';

describe('a kept verdict', () => {
  const { copy, settled, touched, judge } = useKeptVerdictCopy();
  it('answers a run on unchanged inputs with the verdict the run before made', async () => {
    await settled();
    const first = await judge();
    const second = await judge();
    expect(second.judged, 'the second run is answered from the kept verdict').toBe(false);
    expect(second.result).toEqual(JSON.parse(JSON.stringify(first.result)));
    expect(first.result.summary.invalid).toBe(0);
  });

  it("answers a run on some files from the whole repository's verdict, as that run judges them", async () => {
    const DEPLOYMENT = 'portfolio-api/deploy/deployment.yaml';
    const paths = ['portfolio-api/deploy', 'apps/media/sonarr/deployment.yaml'];
    try {
      copy().edit(DEPLOYMENT, 0, (d) => d.setIn(['spec', 'replicas'], 'two'));
      touched();
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
      copy().reset();
      touched();
    }
  });

  it('is keyed by what each render is made of, and not kept where a rendered source does not say', async () => {
    const tree = await renderTree(await loadTree(copy().root), copyGateOptions(copy().root).env);
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
