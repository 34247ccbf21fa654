import { describe, expect, it } from 'vitest';
import { isWatchdogRoute } from '../checks/watchdog.ts';
import { durationMs } from '../model/durations.ts';
import { describeMutations } from './mutation-runner.ts';
import { monitoringMutations, routingMutations, wiringMutations } from './monitoring-mutations.ts';

describeMutations('monitoring checks bite on a broken copy of the real repository', [...wiringMutations, ...routingMutations, ...monitoringMutations]);

describe('helpers', () => {
  it('reads Alertmanager durations', () => {
    expect([durationMs('5m'), durationMs('1h30m'), durationMs('90s'), durationMs('5 minutes')]).toEqual([300_000, 5_400_000, 90_000, NaN]);
  });

  it('recognises the Watchdog route in both matcher styles', () => {
    expect(isWatchdogRoute({ matchers: ['alertname="Watchdog"'] })).toBe(true);
    expect(isWatchdogRoute({ match: { alertname: 'Watchdog' } })).toBe(true);
    expect(isWatchdogRoute({ matchers: ['alertname="WatchdogX"'] })).toBe(false);
  });
});
