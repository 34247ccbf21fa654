/**
 * monitoring-probe-module on a broken copy of the real repository: rendered with a stand-in of the exporter's chart
 * (test/mutations/probe-module.ts), it fails; offline, a module the values do not write is said not judged.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { internetModule, probeModuleMutations, standInBlackbox } from '../mutations/probe-module.ts';

describeMutations('monitoring-probe-module bites on a broken copy of the real repository, the exporter rendered', probeModuleMutations, standInBlackbox());

describe('monitoring-probe-module offline (the chart not rendered)', () => {
  it('says not judged of a module the values do not write, and passes one they write', async () => {
    const { failed, notJudged } = await onBrokenCopy('monitoring-probe-module', internetModule('http_3xx'));
    expect(failed).toEqual([]);
    expect(notJudged).toEqual([
      expect.stringMatching(
        /^Probe internet asks blackbox-exporter-prometheus-blackbox-exporter for module http_3xx which the repository's values of prometheus-blackbox-exporter do not write/,
      ),
    ]);
    expect(await onBrokenCopy('monitoring-probe-module', () => undefined)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});
