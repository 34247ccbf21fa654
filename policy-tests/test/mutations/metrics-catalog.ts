/** Broken copies of the real repository for the check of policy-tests/checks/metrics-catalog.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { replaceFirst, swap } from './edits.ts';

export const metricsCatalogMutations: Mutation[] = [
  {
    check: 'metrics-catalog-current',
    why: "the first hypervisor's endpoint given an empty path: Prometheus scrapes /metrics, the exporter's own process metrics, and pve1's cluster-wide view is never scraped",
    mutate: swap(
      'monitoring/pve-exporter/servicemonitor.yaml',
      '      path: /pve\n      interval: 60s\n      params:\n        target: [pve1.lan]\n',
      '      path: ""\n      interval: 60s\n      params:\n        target: [pve1.lan]\n',
    ),
    at: 'path: ""',
  },
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
        `${c.read('monitoring/unpoller/deployment.yaml').trimEnd()}\n---\napiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: unpoller-extra\n  namespace: monitoring\nspec:\n  selector:\n    matchLabels:\n      app.kubernetes.io/name: unpoller\n  endpoints:\n    - port: http-metrics\n      path: /extra-metrics\n`,
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
  {
    check: 'metrics-catalog-current',
    why: 'a metric whose labels are written as one text, not a list: read as no labels, every label a rule filters by would be refused for the wrong reason',
    mutate: replaceFirst(
      'monitoring/metrics-catalog/volsync-0.16.0.yaml',
      'volsync_sync_duration_seconds_sum: [method, obj_name, obj_namespace, role]',
      'volsync_sync_duration_seconds_sum: method, obj_name, obj_namespace, role',
    ),
    at: 'volsync_sync_duration_seconds_sum: method',
  },
  {
    check: 'metrics-catalog-current',
    why: 'a scrape whose interval is misspelt: the default interval would be read in its place',
    mutate: replaceFirst('monitoring/metrics-catalog/volsync-0.16.0.yaml', 'interval: 30s', 'intervall: 30s'),
    at: '- { chart: volsync, job: volsync-metrics, intervall: 30s',
  },
  {
    check: 'metrics-catalog-current',
    why: 'a pin under a key nothing reads: the entry would never go stale',
    mutate: replaceFirst(
      'monitoring/metrics-catalog/unpoller-v2.20.0.yaml',
      'pin: { image: ghcr.io/unpoller/unpoller }',
      'pin: { images: ghcr.io/unpoller/unpoller }',
    ),
    at: 'pin: { images: ghcr.io/unpoller/unpoller }',
  },
  {
    check: 'metrics-catalog-current',
    why: "a scrape naming a chart no Application deploys: offline, its declared job would stand for the chart's",
    mutate: replaceFirst('monitoring/metrics-catalog/volsync-0.16.0.yaml', '- { chart: volsync, job:', '- { chart: volsinc, job:'),
    at: '- { chart: volsinc, job:',
  },
  {
    check: 'metrics-catalog-current',
    why: 'an entry pinned to a chart no Application deploys',
    mutate: replaceFirst(
      'monitoring/metrics-catalog/volsync-0.16.0.yaml',
      'pin: { chart: volsync, version: 0.16.0 }',
      'pin: { chart: volsync-operator, version: 0.16.0 }',
    ),
    at: 'version: 0.16.0',
  },
  {
    check: 'metrics-catalog-current',
    why: 'an entry pinned to a file that is gone: its text never goes stale',
    mutate: replaceFirst('monitoring/metrics-catalog/cadvisor-v0.56.2.yaml', 'file: clusters/home/cluster-facts.yaml', 'file: clusters/home/facts.yaml'),
    at: 'version: v0.56.2',
  },
];
