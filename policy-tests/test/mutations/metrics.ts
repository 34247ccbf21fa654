/** Broken copies of the real repository for the checks of policy-tests/checks/metrics.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { DASHBOARD, PLATFORM_RULES, MEDIA_RULES, replaceFirst } from './edits.ts';

export const metricsMutations: Mutation[] = [
  {
    check: 'metrics-join',
    why: 'a misspelt metric in an alert',
    mutate: replaceFirst(PLATFORM_RULES, 'increase(kube_pod_container_status_restarts_total[1h])', 'increase(kube_pod_container_status_restart_total[1h])'),
    at: 'kube_pod_container_status_restart_total',
  },
  {
    check: 'metrics-join',
    why: 'a label the metric does not have',
    mutate: replaceFirst(PLATFORM_RULES, 'argocd_app_info{health_status="Degraded"}', 'argocd_app_info{health="Degraded"}'),
    at: 'health="Degraded"',
  },
  {
    check: 'metrics-join',
    why: 'a rule on a job nothing scrapes',
    mutate: replaceFirst('monitoring/alert-rules/hypervisor.yaml', 'up{job="proxmox"}', 'up{job="pve"}'),
    at: 'job="pve"',
  },
  {
    check: 'metrics-join',
    why: 'a dashboard panel on a metric that does not exist',
    mutate: replaceFirst(DASHBOARD, 'pve_cpu_usage_ratio', 'pve_cpu_usage_percent'),
    at: 'pve_cpu_usage_percent',
  },
  {
    check: 'metrics-join',
    why: 'a promtool test feeds a series under a job nothing scrapes',
    mutate: replaceFirst(
      'monitoring/alert-rules/tests/media.test.yaml',
      '\'qbittorrent_connected{job="qbittorrent"}\'',
      '\'qbittorrent_connected{job="qbit"}\'',
    ),
    at: 'job="qbit"',
  },
  {
    check: 'metrics-windows',
    why: 'an increase over fewer than 4 scrape intervals',
    mutate: replaceFirst(PLATFORM_RULES, 'increase(kube_pod_container_status_restarts_total[1h])', 'increase(kube_pod_container_status_restarts_total[1m])'),
    at: 'restarts_total[1m]',
  },
  {
    check: 'metrics-absence-guard',
    why: 'the torrent client exporter down no longer alerts',
    mutate: (c) => {
      replaceFirst(MEDIA_RULES, 'up{job=~"exportarr-.+|qbittorrent"} == 0', 'up{job=~"exportarr-.+"} == 0')(c);
      replaceFirst(PLATFORM_RULES, 'expr: up == 0', 'expr: up{job!="qbittorrent"} == 0')(c);
    },
    at: 'qbittorrent_connected == 0',
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
