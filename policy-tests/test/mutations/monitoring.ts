/** Broken copies of the real repository for the monitoring checks: watchdog wiring, routing, limits, probes, SNMP. */
import type { RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';

const KPS = 'monitoring/kube-prometheus-stack/values.yaml';
const WRANGLER = 'monitoring/watchdog/wrangler.toml';
const WATCHDOG_ROUTE = ['alertmanager', 'config', 'route', 'routes', 0];
const WATCHDOG_HOOK = ['alertmanager', 'config', 'receivers', 1, 'webhook_configs', 0];

/** Check id, what breaks, the mutation, and a needle on the line the finding must name. */
export const wiringMutations: Mutation[] = [
  {
    check: 'watchdog-wiring',
    why: 'the heartbeat goes to another host',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'url'], 'https://old-watchdog.example.net/heartbeat')),
    at: 'old-watchdog',
  },
  {
    check: 'watchdog-wiring',
    why: 'the worker moved but Alertmanager did not follow',
    mutate: (c) => c.write(WRANGLER, c.read(WRANGLER).replace('watchdog.homelab.example.net', 'wd.example.org')),
    at: 'url: https://watchdog',
  },
  {
    check: 'watchdog-wiring',
    why: 'heartbeats every 30 min, longer than the 15 min threshold',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_ROUTE, 'repeat_interval'], '30m')),
    at: 'repeat_interval: 30m',
  },
  { check: 'watchdog-wiring', why: 'the Watchdog route is gone', mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(WATCHDOG_ROUTE)), at: '    route:' },
  {
    check: 'watchdog-wiring',
    why: 'the token is committed instead of mounted',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'http_config', 'authorization'], d.createNode({ type: 'Bearer', credentials: 'hunter2' }))),
    at: 'http_config:',
  },
  {
    check: 'watchdog-wiring',
    why: 'the worker no longer runs every minute',
    mutate: (c) => c.write(WRANGLER, c.read(WRANGLER).replace('crons = ["* * * * *"]', 'crons = ["*/10 * * * *"]')),
    at: 'crons =',
  },
];

const CHAT = ['alertmanager', 'config', 'receivers', 2, 'slack_configs', 0];
const EVENTS = ['alertmanager', 'config', 'receivers', 3, 'slack_configs', 0];

/** The line after `- name: <receiver>` that holds `field`. */
const lineIn =
  (receiver: string, field: string) =>
  (c: RepoCopy): number => {
    const lines = c.read(KPS).split('\n');
    const start = lines.findIndex((l) => l.trim() === `- name: ${receiver}`);
    return start + 1 + lines.slice(start).findIndex((l) => l.includes(field));
  };

export const routingMutations: Mutation[] = [
  {
    check: 'alert-routing',
    why: 'critical alerts without resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'send_resolved'], false)),
    at: lineIn('chat', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'the event route sends resolved messages',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn([...EVENTS, 'send_resolved'], true)),
    at: lineIn('chat-events', 'send_resolved'),
  },
  {
    check: 'alert-routing',
    why: 'warnings routed to chat',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], d.createNode(['severity=~"critical|warning"']))),
    at: '- receiver: chat\n',
  },
];

const LOKI = 'monitoring/loki/values.yaml';
const TEMPO = 'monitoring/tempo/values.yaml';
const PROBES = 'monitoring/blackbox-exporter/probes.yaml';
const SNMP = 'monitoring/snmp-exporter/values.yaml';
const ALLOY = 'monitoring/alloy/values.yaml';
const DASHBOARD = 'monitoring/dashboards/homelab-overview.yaml';

export const monitoringMutations: Mutation[] = [
  {
    check: 'monitoring-retention',
    why: 'metrics kept 14 days',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['prometheus', 'prometheusSpec', 'retention'], '14d')),
    at: 'retention: 14d',
  },
  {
    check: 'monitoring-retention',
    why: 'one Alertmanager replica',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'alertmanagerSpec', 'replicas'], 1)),
    at: 'replicas: 1',
  },
  {
    check: 'monitoring-retention',
    why: 'logs kept 14 days',
    mutate: (c) => c.edit(LOKI, 0, (d) => d.setIn(['loki', 'limits_config', 'retention_period'], '336h')),
    at: 'retention_period',
  },
  {
    check: 'monitoring-retention',
    why: 'events kept as long as logs',
    mutate: (c) => c.edit(LOKI, 0, (d) => d.deleteIn(['loki', 'limits_config', 'retention_stream'])),
    at: 'limits_config:',
  },
  {
    check: 'monitoring-retention',
    why: 'traces kept 2 days',
    mutate: (c) => c.edit(TEMPO, 0, (d) => d.setIn(['tempo', 'retention'], '48h')),
    at: 'retention: 48h',
  },
  {
    check: 'monitoring-probes',
    why: 'the internet probed every 30 s',
    mutate: (c) => c.edit(PROBES, 0, (d) => d.setIn(['spec', 'interval'], '30s')),
    at: 'interval: 30s',
  },
  {
    check: 'monitoring-probes',
    why: 'a public site dropped from the probe',
    mutate: (c) => c.edit(PROBES, 1, (d) => d.deleteIn(['spec', 'targets', 'staticConfig', 'static', 4])),
    at: (c) => c.read(PROBES).split('\n').lastIndexOf('  targets:') + 1,
  },
  {
    check: 'snmp-v3-only',
    why: 'a v2c community added',
    mutate: (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], `${String(d.get('config'))}  legacy:\n    version: 2\n    community: public\n`)),
    at: 'config: |',
  },
  {
    check: 'dashboard-rows',
    why: 'the NAS row is renamed',
    mutate: (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "NAS"', '"title": "Storage"')),
    at: '"panels": [',
  },
  {
    check: 'dashboard-rows',
    why: 'a Hypervisor panel loses its query',
    mutate: (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "VMs stopped"', '"title": "VMs halted"')),
    at: '"title": "Hypervisor"',
  },
  {
    check: 'pve-audit-token',
    why: 'no host reports the cluster-wide view',
    mutate: (c) => c.edit('monitoring/pve-exporter/servicemonitor.yaml', 0, (d) => d.setIn(['spec', 'endpoints', 0, 'params', 'cluster'], d.createNode(['0']))),
    at: '  endpoints:',
  },
  {
    check: 'pve-audit-token',
    why: 'a password instead of the token',
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/externalsecret.yaml',
        c.read('monitoring/pve-exporter/externalsecret.yaml').replace('token_name: monitoring', 'password: "{{ .token }}"'),
      ),
    at: 'pve.yml: |',
  },
  {
    check: 'pve-audit-token',
    why: 'the user is an administrator',
    mutate: (c) =>
      c.write(
        'monitoring/pve-exporter/facts/pve-access.yaml',
        c.read('monitoring/pve-exporter/facts/pve-access.yaml').replace('role: PVEAuditor', 'role: Administrator'),
      ),
    at: () => 1,
  },
  {
    check: 'unpoller-source',
    why: 'the gateway scraped every minute',
    mutate: (c) => c.edit('monitoring/unpoller/deployment.yaml', 2, (d) => d.setIn(['spec', 'endpoints', 0, 'interval'], '60s')),
    at: 'interval: 60s',
  },
  {
    check: 'unpoller-source',
    why: 'the system log pushed every 5 minutes',
    mutate: (c) => c.write('monitoring/unpoller/deployment.yaml', c.read('monitoring/unpoller/deployment.yaml').replace('value: 1m', 'value: 5m')),
    at: '- name: UP_LOKI_INTERVAL',
  },
  {
    check: 'unpoller-source',
    why: 'the password committed in the manifest',
    mutate: (c) =>
      c.write(
        'monitoring/unpoller/deployment.yaml',
        c
          .read('monitoring/unpoller/deployment.yaml')
          .replace(
            /- name: UP_UNIFI_DEFAULT_PASS\n              valueFrom:\n                secretKeyRef:\n                  name: unpoller\n                  key: password/,
            '- name: UP_UNIFI_DEFAULT_PASS\n              value: hunter2',
          ),
      ),
    at: '- name: UP_UNIFI_DEFAULT_PASS',
  },
  {
    check: 'monitoring-retention',
    why: 'the log shipper starts keeping data',
    mutate: (c) => c.edit('monitoring/alloy/values.yaml', 0, (d) => d.setIn(['alloy', 'storagePath'], '/var/lib/alloy')),
    at: 'controller:',
  },
  {
    check: 'snmp-v3-only',
    why: "the image's modules not loaded beside the chart's config file",
    mutate: (c) => c.edit(SNMP, 0, (d) => d.set('extraArgs', d.createNode(['--config.expand-environment-variables']))),
    at: 'extraArgs:',
  },
  {
    check: 'snmp-v3-only',
    why: 'the auth variables given by a key the chart never reads (envFromSecrets)',
    mutate: (c) => c.write(SNMP, c.read(SNMP).replace(/^envFrom:\n(  .*\n)+/m, 'envFromSecrets:\n  - name: snmp-exporter-nas\n')),
    at: 'config: |',
  },
  {
    check: 'grafana-admin-from-store',
    why: 'the admin password left to the subchart (randAlphaNum)',
    mutate: (c) => c.edit(KPS, 0, (d) => d.deleteIn(['grafana', 'admin'])),
    at: 'grafana:',
  },
  {
    check: 'grafana-admin-from-store',
    why: 'the admin Secret written by no ExternalSecret',
    mutate: (c) => c.edit(KPS, 0, (d) => d.setIn(['grafana', 'admin', 'existingSecret'], 'grafana-login')),
    at: 'existingSecret:',
  },
  {
    check: 'events-shipped-once',
    why: 'the events source back in the per-node DaemonSet',
    mutate: (c) =>
      c.edit(ALLOY, 0, (d) =>
        d.setIn(
          ['alloy', 'configMap', 'content'],
          `${String(d.getIn(['alloy', 'configMap', 'content']))}loki.source.kubernetes_events "events" {\n  forward_to = [loki.write.default.receiver]\n}\n`,
        ),
      ),
    at: 'content: |',
  },
  {
    check: 'events-shipped-once',
    why: 'the events Deployment scaled to two replicas',
    mutate: (c) => c.edit('monitoring/alloy-events/values.yaml', 0, (d) => d.setIn(['controller', 'replicas'], 2)),
    at: 'replicas:',
  },
  {
    check: 'ingress-traces',
    why: 'the private proxy stops sending traces',
    mutate: (c) => c.edit('apps/platform/ingress-private/values.yaml', 0, (d) => d.setIn(['tracing', 'otlp', 'enabled'], false)),
    at: 'tracing:',
  },
  {
    check: 'ingress-traces',
    why: 'the public proxy sends traces to the wrong port',
    mutate: (c) => c.edit('apps/platform/ingress-public/values.yaml', 0, (d) => d.setIn(['tracing', 'otlp', 'grpc', 'endpoint'], 'tempo.monitoring.svc:4318')),
    at: 'endpoint:',
  },
  {
    check: 'snmp-v3-only',
    why: 'MD5 instead of SHA',
    mutate: (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], String(d.get('config')).replace('auth_protocol: SHA', 'auth_protocol: MD5'))),
    at: 'config: |',
  },
];

const PLATFORM_RULES = 'monitoring/alert-rules/platform.yaml';
const MEDIA_RULES = 'monitoring/alert-rules/media.yaml';
const replaceFirst = (file: string, from: string, to: string) => (c: RepoCopy) => {
  const text = c.read(file);
  if (!text.includes(from)) throw new Error(`${file} no longer holds ${from}`);
  c.write(file, text.replace(from, to));
};

/** The metrics catalog and the join of every expression against it. */
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
