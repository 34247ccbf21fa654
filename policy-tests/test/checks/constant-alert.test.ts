/** alert-reads-series on a broken copy of the real repository; the watchdog's heartbeat and a clock-driven alert pass. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { constantAlertMutations } from '../mutations/constant-alert.ts';

describeMutations('alert-reads-series bites on a broken copy of the real repository', constantAlertMutations);

describe('alert-reads-series passes', () => {
  it("the watchdog's vector(1), and an alert of the clock (a reminder at 3 a.m.)", async () => {
    const clock = swap(
      'monitoring/alert-rules/platform-health.yaml',
      '          expr: increase(falcosecurity_scap_n_drops_total{job="falco-metrics"}[30m]) > 0\n',
      '          expr: hour() == 3\n',
    );
    expect(await onBrokenCopy('alert-reads-series', clock)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});
