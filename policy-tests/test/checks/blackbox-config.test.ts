/**
 * monitoring-blackbox-config on a broken copy of the real repository: offline, on the values' config; rendered with a
 * stand-in of the exporter's chart, on the blackbox.yaml it renders, which the values alone do not show.
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { blackboxConfigMutations, blackboxRenderedMutations } from '../mutations/blackbox-config.ts';
import { standInBlackbox } from '../mutations/probe-module.ts';

describeMutations('monitoring-blackbox-config bites on a broken copy of the real repository, offline', blackboxConfigMutations);
describeMutations(
  'monitoring-blackbox-config bites on a broken copy of the real repository, the exporter rendered',
  blackboxRenderedMutations,
  standInBlackbox(),
);

describe('monitoring-blackbox-config offline', () => {
  it("passes the values of a refusal only the chart's defaults make", async () => {
    expect(await onBrokenCopy('monitoring-blackbox-config', blackboxRenderedMutations[0]!.mutate)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});
