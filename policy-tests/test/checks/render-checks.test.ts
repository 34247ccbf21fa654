/**
 * The checks on rendered output, each proven to bite on a broken copy of the real repository with a stand-in chart;
 * the values a chart is handed are helm-values-checks.test.ts'.
 */
import { describe, expect, it } from 'vitest';
import { runGate, allFindings } from '../../gate/gate.ts';
import { describeFindings } from '../support/helpers.ts';
import { describeMutations, useSetupCopy } from '../support/mutation-runner.ts';
import { renderMutations, standInVolsync } from '../mutations/render.ts';

describeMutations('checks on rendered output bite on the real repository', renderMutations, standInVolsync());

describe('the stand-in render', () => {
  const rendered = useSetupCopy(standInVolsync());

  it('passes unbroken, with the stand-in rendered and the other nineteen counted as not rendered', async () => {
    const { copy, options } = rendered();
    const result = await runGate({ root: copy.root, cwd: copy.root, ...options });
    const findings = allFindings(result);
    expect(findings, describeFindings(findings)).toEqual([]);
    expect(result.summary.notRendered).toBe(19);
    expect(result.resources.some((r) => r.renderedBy === 'volsync: volsync/templates/configmap.yaml' && r.status === 'valid')).toBe(true);
  });
});
