/** Broken copies of the real repository for the checks of policy-tests/checks/metrics.ts: each fails exactly its check, at its line. */
import type { Mutation } from '../support/mutation-runner.ts';
import { DASHBOARD, PLATFORM_RULES, MEDIA_RULES, replaceFirst, swap } from './edits.ts';
import { lineOf } from '../support/helpers.ts';

export const metricsMutations: Mutation[] = [
  {
    check: 'metrics-join',
    why: 'the NAS exporter alert filters up by a misspelt label (ojb): no target has it, the selector matches nothing, and the alert never fires',
    mutate: swap('monitoring/alert-rules/nas.yaml', 'up{job="snmp-nas"} == 0', 'up{ojb="snmp-nas"} == 0'),
    at: (c) => ({ file: 'monitoring/alert-rules/nas.yaml', line: lineOf(c, 'monitoring/alert-rules/nas.yaml', 'up{ojb="snmp-nas"}') }),
  },
  {
    check: 'metrics-join',
    why: 'a misspelt metric in an alert',
    mutate: replaceFirst(PLATFORM_RULES, 'increase(kube_pod_container_status_restarts_total[1h])', 'increase(kube_pod_container_status_restart_total[1h])'),
    at: 'kube_pod_container_status_restart_total',
  },
  {
    check: 'metrics-join',
    why: 'a health status Argo CD never writes (degraded, not Degraded): the selector matches no series, and GitopsAppDegraded never fires',
    mutate: replaceFirst(PLATFORM_RULES, 'argocd_app_info{health_status="Degraded"}', 'argocd_app_info{health_status="degraded"}'),
    at: 'health_status="degraded"',
  },
  {
    check: 'metrics-join',
    why: "a termination reason one slip from the runtime's (OOMkilled): the OOM alert never fires",
    mutate: replaceFirst(PLATFORM_RULES, 'reason="OOMKilled"', 'reason="OOMkilled"'),
    at: 'reason="OOMkilled"',
  },
  {
    check: 'metrics-join',
    why: 'the portfolio\'s dropped-traffic alert reads source_namespace="portfolo": no namespace of the cluster has that name, and the alert never fires',
    mutate: replaceFirst('monitoring/alert-rules/network.yaml', 'source_namespace="portfolio"', 'source_namespace="portfolo"'),
    at: 'source_namespace="portfolo"',
  },
  {
    check: 'metrics-join',
    why: 'a label the metric does not have',
    mutate: replaceFirst(PLATFORM_RULES, 'argocd_app_info{health_status="Degraded"}', 'argocd_app_info{health="Degraded"}'),
    at: 'health="Degraded"',
  },
  {
    check: 'metrics-join',
    why: 'the NAS RAID alert\'s summary prints $labels.raidNaem: no series of raidStatus has it, and chat reads "NAS RAID  is degraded"',
    mutate: replaceFirst('monitoring/alert-rules/nas.yaml', 'NAS RAID {{ $labels.raidName }} is degraded.', 'NAS RAID {{ $labels.raidNaem }} is degraded.'),
    at: '$labels.raidNaem',
  },
  {
    check: 'metrics-join',
    why: 'the Alloy alert\'s sum no longer keeps pod, which its summary prints: Prometheus writes nothing there, and chat reads "Alloy alloy on  has had..."',
    mutate: replaceFirst('monitoring/alert-rules/platform-health.yaml', 'sum by (job, pod, health_type) (alloy_', 'sum by (job, health_type) (alloy_'),
    at: 'Alloy {{ $labels.job }} on {{ $labels.pod }}',
  },
  {
    check: 'metrics-join',
    why: 'a rule on a job nothing scrapes',
    mutate: replaceFirst('monitoring/alert-rules/hypervisor.yaml', 'up{job="proxmox"}', 'up{job="pve"}'),
    at: 'job="pve"',
  },
  {
    check: 'metrics-join',
    why: "the media exporters' down alert reads job=~\"exportrar-.+|qbittorrent\": the selector still reads qBittorrent's exporter, and the misspelt branch watches none of exportarr's",
    mutate: replaceFirst(MEDIA_RULES, 'up{job=~"exportarr-.+|qbittorrent"}', 'up{job=~"exportrar-.+|qbittorrent"}'),
    at: 'job=~"exportrar-.+|qbittorrent"',
  },
  {
    check: 'metrics-join',
    why: "a per-port panel grouped by port_idx, a label unpoller's port series do not have: the sum over the two rates falls into one line per device",
    mutate: replaceFirst(
      DASHBOARD,
      'sum by (name, port_num) (rate(unpoller_device_port_receive_bytes_total',
      'sum by (name, port_idx) (rate(unpoller_device_port_receive_bytes_total',
    ),
    at: 'sum by (name, port_idx)',
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
];
