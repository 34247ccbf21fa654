import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { durationMs, isWatchdogRoute } from '../checks/watchdog.ts';
import { checkIds, copyRepo, describeFindings, lineOf, type RepoCopy } from './helpers.ts';
import { monitoringMutations, routingMutations, wiringMutations } from './monitoring-mutations.ts';

let copy: RepoCopy;
beforeEach(() => {
  copy = copyRepo();
});
afterEach(() => copy?.remove());

describe('monitoring checks bite on a broken copy of the real repository', () => {
  it.each([...wiringMutations, ...routingMutations, ...monitoringMutations])('%s: %s', async (check, _why, mutate, needle) => {
    mutate(copy);
    const findings = await copy.gate();
    expect(checkIds(findings), describeFindings(findings)).toEqual([check]);
    const file = findings[0]!.file;
    const line = typeof needle === 'string' ? lineOf(copy, file, needle) : needle(copy);
    expect(findings.map((f) => `${f.file}:${f.line}`), describeFindings(findings)).toContain(`${file}:${line}`);
  });
});

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
