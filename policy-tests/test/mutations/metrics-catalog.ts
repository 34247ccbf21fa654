/** Broken copies of the real repository for the check of policy-tests/checks/metrics-catalog.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { replaceFirst } from './edits.ts';

export const metricsCatalogMutations: Mutation[] = [
  {
    check: 'metrics-catalog-current',
    why: 'Renovate bumps exportarr, its catalog entry is stale',
    mutate: replaceFirst('apps/media/sonarr/deployment.yaml', 'exportarr:v2.2.0', 'exportarr:v2.3.0'),
    at: 'version: v2.2.0',
  },
  {
    check: 'metrics-catalog-current',
    why: 'the portfolio API declares a metric its entry lacks',
    mutate: replaceFirst(
      'portfolio-api/src/metrics.ts',
      "blogFetches: new Counter({ name: 'blog_origin_fetches_total'",
      "blogFetches: new Counter({ name: 'blog_fetches_total'",
    ),
    at: 'version: code',
  },
  {
    check: 'metrics-catalog-current',
    why: 'a new monitor without a catalog entry',
    mutate: (c) =>
      c.write(
        'monitoring/unpoller/deployment.yaml',
        `${c.read('monitoring/unpoller/deployment.yaml').trimEnd()}\n---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: unpoller-extra\n  namespace: monitoring\nspec:\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: unpoller\n  endpoints:\n    - port: http-metrics\n`,
      ),
    at: 'name: unpoller-extra',
  },
  {
    check: 'metrics-catalog-current',
    why: 'an exemption without a reason',
    mutate: (c) =>
      c.write(
        'monitoring/metrics-catalog/exemptions.yaml',
        `${c.read('monitoring/metrics-catalog/exemptions.yaml')}- monitor: ServiceMonitor/monitoring/anything\n`,
      ),
    at: '- monitor: ServiceMonitor/monitoring/anything',
  },
  {
    check: 'metrics-catalog-current',
    why: 'an entry that names no source files',
    mutate: (c) => c.edit('monitoring/metrics-catalog/volsync-0.16.0.yaml', 0, (d) => d.setIn(['source', 'files'], d.createNode([]))),
    at: 'source:',
  },
];
