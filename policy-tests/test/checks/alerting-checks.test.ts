/**
 * Alerting: the routing checks (alert-routing/) and the watchdog's (watchdog.ts) bite on a broken copy of the real
 * repository; durations read as Alertmanager reads them, the Watchdog route in both matcher styles, and routing that
 * has nothing to read fails. The monitoring stack's own checks: monitoring-checks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { isWatchdogRoute } from '../../checks/watchdog.ts';
import { durationMs } from '../../model/core/time.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { watchdogMutations } from '../mutations/watchdog.ts';
import { alertRoutingMutations } from '../mutations/alert-routing.ts';

describeMutations('monitoring checks (watchdog.ts) bite on a broken copy of the real repository', watchdogMutations);
describeMutations('monitoring checks (alert-routing/) bite on a broken copy of the real repository', alertRoutingMutations);

describe('helpers', () => {
  it('reads Alertmanager durations', () => {
    expect([durationMs('5m'), durationMs('1h30m'), durationMs('90s'), durationMs('5 minutes')]).toEqual([300_000, 5_400_000, 90_000, NaN]);
  });

  it("reads them as common/model's ParseDuration: a bare 0, each unit once, biggest first, within 292 years", () => {
    expect([durationMs('0'), durationMs('1y2w3d4h5m6s7ms'), durationMs('0s')]).toEqual([0, 33_019_506_007, 0]);
    for (const refused of ['', '30m1h', '1m1m', '1.5h', '-5m', '1d2', 'h', '300y', 5]) expect(durationMs(refused), String(refused)).toBeNaN();
  });

  it('recognises the Watchdog route in both matcher styles', () => {
    expect(isWatchdogRoute({ matchers: ['alertname="Watchdog"'] })).toBe(true);
    expect(isWatchdogRoute({ match: { alertname: 'Watchdog' } })).toBe(true);
    expect(isWatchdogRoute({ matchers: ['alertname="WatchdogX"'] })).toBe(false);
    // A pull request may write anything in a route: read, never thrown on (fuzz seed 1205268: matchers: true).
    for (const odd of [true, 'alertname="Watchdog"', [1, null], { alertname: 1 }]) expect(isWatchdogRoute({ matchers: odd, match: odd })).toBe(false);
  });
});

describe('alert-routing with nothing to read', () => {
  it('fails, instead of passing, when no Application deploys the chart that holds the routing', async () => {
    const { alertRoutingChecks } = await import('../../checks/alert-routing/index.ts');
    const { runPolicy } = await import('../../model/checks/runner.ts');
    const { loadRepo, REPO_ROOT } = await import('../../model/repository/repo.ts');
    const repo = await loadRepo(REPO_ROOT);
    const withoutStack = { ...repo, dataFiles: new Map([...repo.dataFiles].filter(([file]) => file !== 'monitoring/kube-prometheus-stack/values.yaml')) };
    // What the checks cannot judge (DSM's escaping of the NAS's text) is said apart, never a failure.
    const failures = (r: typeof repo) => runPolicy(r, alertRoutingChecks).filter((f) => f.severity !== 'not-judged');
    expect(failures(repo)).toEqual([]);
    expect(failures(withoutStack).map((f) => `${f.file}: ${f.message}`)).toEqual([
      'monitoring/README.md: no Application deploys the kube-prometheus-stack chart with values from this repo: there is no Alertmanager routing to check',
    ]);
  });
});
