/** Mutations for alert-reads-series: an alert "switched off" with an expression of 0, and one that can never fire. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const RULES = 'monitoring/alert-rules/platform-health.yaml';

export const constantAlertMutations: Mutation[] = [
  {
    check: 'alert-reads-series',
    why: 'the Falco drops alert "turned off" with vector(0): Prometheus fires on every sample returned, a 0 among them, so it fires forever',
    mutate: swap(RULES, '          expr: increase(falcosecurity_scap_n_drops_total{job="falco-metrics"}[30m]) > 0\n', '          expr: vector(0)\n'),
    at: 'expr: vector(0)',
  },
  {
    check: 'alert-reads-series',
    why: 'the Loki discards alert compares two numbers: the expression returns nothing at every evaluation, and the alert never fires',
    mutate: swap(
      RULES,
      '          expr: sum by (reason) (increase(loki_discarded_samples_total{job="monitoring/loki"}[30m])) > 0\n',
      '          expr: vector(1) > 2\n',
    ),
    at: 'expr: vector(1) > 2',
  },
  {
    check: 'alert-reads-series',
    why: 'an alert whose expr is a bare number, which the CRD takes (an int or a string) and Prometheus reads as PromQL: it fires for good',
    mutate: swap('monitoring/alert-rules/app-a.yaml', '          expr: time() - appgateway_last_backup_timestamp_seconds > 26 * 3600\n', '          expr: 0\n'),
    at: 'expr: 0',
  },
];
