/** Broken copies of the real repository for the monitoring checks: watchdog wiring, routing, limits, probes, SNMP. */
import type { RepoCopy } from './helpers.ts';

const KPS = 'monitoring/kube-prometheus-stack/values.yaml';
const WRANGLER = 'monitoring/watchdog/wrangler.toml';
const WATCHDOG_ROUTE = ['alertmanager', 'config', 'route', 'routes', 0];
const WATCHDOG_HOOK = ['alertmanager', 'config', 'receivers', 1, 'webhook_configs', 0];

/** Check id, what breaks, the mutation, and a needle on the line the finding must name. */
export const wiringMutations: [string, string, (c: RepoCopy) => void, string][] = [
  ['watchdog-wiring', 'the heartbeat goes to another host', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'url'], 'https://old-watchdog.example.net/heartbeat')), 'old-watchdog'],
  ['watchdog-wiring', 'the worker moved but Alertmanager did not follow', (c) => c.write(WRANGLER, c.read(WRANGLER).replace('watchdog.homelab.example.net', 'wd.example.org')), 'url: https://watchdog'],
  ['watchdog-wiring', 'heartbeats every 30 min, longer than the 15 min threshold', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_ROUTE, 'repeat_interval'], '30m')), 'repeat_interval: 30m'],
  ['watchdog-wiring', 'the Watchdog route is gone', (c) => c.edit(KPS, 0, (d) => d.deleteIn(WATCHDOG_ROUTE)), '    route:'],
  ['watchdog-wiring', 'the token is committed instead of mounted', (c) => c.edit(KPS, 0, (d) => d.setIn([...WATCHDOG_HOOK, 'http_config', 'authorization'], d.createNode({ type: 'Bearer', credentials: 'hunter2' }))), 'http_config:'],
  ['watchdog-wiring', 'the worker no longer runs every minute', (c) => c.write(WRANGLER, c.read(WRANGLER).replace('crons = ["* * * * *"]', 'crons = ["*/10 * * * *"]')), 'crons ='],
];

const CHAT = ['alertmanager', 'config', 'receivers', 2, 'slack_configs', 0];
const EVENTS = ['alertmanager', 'config', 'receivers', 3, 'slack_configs', 0];

/** The line after `- name: <receiver>` that holds `field`. */
const lineIn = (receiver: string, field: string) => (c: RepoCopy): number => {
  const lines = c.read(KPS).split('\n');
  const start = lines.findIndex((l) => l.trim() === `- name: ${receiver}`);
  return start + 1 + lines.slice(start).findIndex((l) => l.includes(field));
};

export const routingMutations: [string, string, (c: RepoCopy) => void, string | ((c: RepoCopy) => number)][] = [
  ['alert-routing', 'critical alerts without resolved messages', (c) => c.edit(KPS, 0, (d) => d.setIn([...CHAT, 'send_resolved'], false)), lineIn('chat', 'send_resolved')],
  ['alert-routing', 'the event route sends resolved messages', (c) => c.edit(KPS, 0, (d) => d.setIn([...EVENTS, 'send_resolved'], true)), lineIn('chat-events', 'send_resolved')],
  ['alert-routing', 'warnings routed to chat', (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'config', 'route', 'routes', 3, 'matchers'], d.createNode(['severity=~"critical|warning"']))), '- receiver: chat\n'],
];

const LOKI = 'monitoring/loki/values.yaml';
const TEMPO = 'monitoring/tempo/values.yaml';
const PROBES = 'monitoring/blackbox-exporter/probes.yaml';
const SNMP = 'monitoring/snmp-exporter/values.yaml';
const DASHBOARD = 'monitoring/dashboards/homelab-overview.yaml';

export const monitoringMutations: [string, string, (c: RepoCopy) => void, string | ((c: RepoCopy) => number)][] = [
  ['monitoring-retention', 'metrics kept 14 days', (c) => c.edit(KPS, 0, (d) => d.setIn(['prometheus', 'prometheusSpec', 'retention'], '14d')), 'retention: 14d'],
  ['monitoring-retention', 'one Alertmanager replica', (c) => c.edit(KPS, 0, (d) => d.setIn(['alertmanager', 'alertmanagerSpec', 'replicas'], 1)), 'replicas: 1'],
  ['monitoring-retention', 'logs kept 14 days', (c) => c.edit(LOKI, 0, (d) => d.setIn(['loki', 'limits_config', 'retention_period'], '336h')), 'retention_period'],
  ['monitoring-retention', 'events kept as long as logs', (c) => c.edit(LOKI, 0, (d) => d.deleteIn(['loki', 'limits_config', 'retention_stream'])), 'limits_config:'],
  ['monitoring-retention', 'traces kept 2 days', (c) => c.edit(TEMPO, 0, (d) => d.setIn(['tempo', 'retention'], '48h')), 'retention: 48h'],
  ['monitoring-probes', 'the internet probed every 30 s', (c) => c.edit(PROBES, 0, (d) => d.setIn(['spec', 'interval'], '30s')), 'interval: 30s'],
  ['monitoring-probes', 'a public site dropped from the probe', (c) => c.edit(PROBES, 1, (d) => d.deleteIn(['spec', 'targets', 'staticConfig', 'static', 4])), (c) => c.read(PROBES).split('\n').lastIndexOf('  targets:') + 1],
  ['snmp-v3-only', 'a v2c community added', (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], `${String(d.get('config'))}  legacy:\n    version: 2\n    community: public\n`)), 'config: |'],
  ['dashboard-rows', 'the NAS row is renamed', (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "NAS"', '"title": "Storage"')), '"panels": ['],
  ['dashboard-rows', 'a Hypervisor panel loses its query', (c) => c.write(DASHBOARD, c.read(DASHBOARD).replace('"title": "VMs stopped"', '"title": "VMs halted"')), '"title": "Hypervisor"'],
  ['pve-audit-token', 'no host reports the cluster-wide view', (c) => c.edit('monitoring/pve-exporter/servicemonitor.yaml', 0, (d) => d.setIn(['spec', 'endpoints', 0, 'params', 'cluster'], d.createNode(['0']))), '  endpoints:'],
  ['pve-audit-token', 'a password instead of the token', (c) => c.write('monitoring/pve-exporter/externalsecret.yaml', c.read('monitoring/pve-exporter/externalsecret.yaml').replace('token_name: monitoring', 'password: "{{ .token }}"')), 'pve.yml: |'],
  ['pve-audit-token', 'the user is an administrator', (c) => c.write('monitoring/pve-exporter/facts/pve-access.yaml', c.read('monitoring/pve-exporter/facts/pve-access.yaml').replace('role: PVEAuditor', 'role: Administrator')), () => 1],
  ['unpoller-source', 'the gateway scraped every minute', (c) => c.edit('monitoring/unpoller/deployment.yaml', 2, (d) => d.setIn(['spec', 'endpoints', 0, 'interval'], '60s')), 'interval: 60s'],
  ['unpoller-source', 'the system log pushed every 5 minutes', (c) => c.write('monitoring/unpoller/deployment.yaml', c.read('monitoring/unpoller/deployment.yaml').replace('value: 1m', 'value: 5m')), '- name: UP_LOKI_INTERVAL'],
  ['unpoller-source', 'the password committed in the manifest', (c) => c.write('monitoring/unpoller/deployment.yaml', c.read('monitoring/unpoller/deployment.yaml').replace(/- name: UP_UNIFI_DEFAULT_PASS\n              valueFrom:\n                secretKeyRef:\n                  name: unpoller\n                  key: password/, '- name: UP_UNIFI_DEFAULT_PASS\n              value: hunter2')), '- name: UP_UNIFI_DEFAULT_PASS'],
  ['volsync-metrics', 'nothing scrapes VolSync', (c) => c.write('apps/platform/volsync/servicemonitor.yaml', '# removed\n'), () => 1],
  ['monitoring-retention', 'the log shipper starts keeping data', (c) => c.edit('monitoring/alloy/values.yaml', 0, (d) => d.setIn(['alloy', 'storagePath'], '/var/lib/alloy')), 'controller:'],
  ['snmp-v3-only', 'MD5 instead of SHA', (c) => c.edit(SNMP, 0, (d) => d.setIn(['config'], String(d.get('config')).replace('auth_protocol: SHA', 'auth_protocol: MD5'))), 'config: |'],
];
