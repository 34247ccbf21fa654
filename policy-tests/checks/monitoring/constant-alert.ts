/**
 * alert-reads-series: an alert's expression reads a series or the clock. Prometheus fires an alert for every sample
 * its expression returns, whatever the sample's value, so one that selects no series and calls no time function
 * returns the same at every evaluation: it fires from the first one on and never resolves (`0` and `vector(0)` fire:
 * a value of 0 is no "off"), or it never fires at all (`vector(1) > 2`). Only the watchdog's heartbeat is meant to
 * fire always (the alert routed to the watchdog receiver).
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { functionsCalled, parsePromQL } from '../../model/monitoring/promql.ts';
import { promExpressions } from '../../model/monitoring/promql-expressions.ts';
import { expectedReceiver } from '../../model/monitoring/alertmanager.ts';

/** PromQL's functions of the evaluation time: each reads the clock where no series is given (hour() is hour(vector(time()))). */
const CLOCK_FUNCTIONS = new Set(['time', 'timestamp', 'minute', 'hour', 'day_of_week', 'day_of_month', 'day_of_year', 'days_in_month', 'month', 'year']);

export const constantAlertCheck: PolicyCheck = {
  id: 'alert-reads-series',
  description:
    "Every alert's expression reads a series or the clock: Prometheus fires an alert for every sample its expression returns, whatever its value, so one that selects nothing returns the same at every evaluation and fires forever (`0` and `vector(0)` fire) or never; only the watchdog's heartbeat may (A17).",
  invariants: ['A17'],
  remediation: 'select the series the alert is about (an alert is silenced by a silence or by deleting it, not by an expression of 0)',
  reads: { kinds: ['PrometheusRule'] },
  exemptible: false,
  run(ctx) {
    for (const e of promExpressions(ctx.repo)) {
      if (e.kind !== 'alert' || expectedReceiver({ alertname: e.name }) === 'watchdog') continue;
      const parsed = parsePromQL(e.expr);
      if (parsed.error || parsed.selectors.length > 0 || functionsCalled(e.expr).some((f) => CLOCK_FUNCTIONS.has(f))) continue;
      ctx.fail(
        { file: e.file, ...e.at(0) },
        `alert ${e.name}: its expression ${JSON.stringify(e.expr.trim())} reads no series and no clock, so it returns the same at every evaluation: Prometheus fires an alert for every sample returned, whatever its value, so it fires from the first evaluation and never resolves, or never fires at all`,
      );
    }
  },
};
