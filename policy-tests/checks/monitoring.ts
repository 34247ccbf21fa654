/**
 * The monitoring stack's Limits and scrape sources (A1-A7, A20), read from
 * the chart values and the Probe resources.
 */
import { parse } from 'yaml';
import { chartValues, type ChartValues } from '../model/chart-values.ts';
import { dig } from '../model/dig.ts';
import { eachChartValues, type ValuesFail } from './kit.ts';
import type { Path } from '../model/positions.ts';
import { writtenByExternalSecret } from '../model/external-secrets.ts';
import { durationMs } from '../model/durations.ts';
import { dashboards, rowsOf } from '../model/dashboards.ts';
import type { CheckContext, PolicyCheck } from './kit.ts';

type Fail = ValuesFail;

/** The Alloy configuration a values file gives the alloy chart. */
const alloyConfig = (values: unknown): string => String(dig(values, ['alloy', 'configMap', 'content']) ?? '');
const EVENTS_SOURCE = /loki\.source\.kubernetes_events\s+"/;
const onValues = (ctx: CheckContext, chart: string, body: (v: ChartValues, fail: Fail) => void) => eachChartValues(ctx, chart, 'monitoring/README.md', body);

function expectDuration(fail: Fail, values: unknown, path: Path, expected: string, what: string): void {
  const actual = dig(values, path);
  if (durationMs(actual) !== durationMs(expected)) fail(path, `${what} is ${actual === undefined ? 'unset' : String(actual)}, must be ${expected}`);
}

export const monitoringChecks: PolicyCheck[] = [
  {
    id: 'monitoring-retention',
    description:
      'Retention and shape of the stores: metrics 7d; Alertmanager 2 replicas and 120h; Loki single binary, logs 7d and Kubernetes events 30d; traces 24h over OTLP; the log shipper a DaemonSet; the sensor and the shipper keep nothing (Limits; A1, A2, A3).',
    invariants: ['A1', 'A2', 'A3'],
    remediation: 'set the retention or replica count docs/invariants.md states (A1-A3)',
    reads: { kinds: ['Application'], charts: ['kube-prometheus-stack', 'loki', 'tempo', 'alloy', 'falco'] },
    exemptible: false,
    run(ctx) {
      onValues(ctx, 'kube-prometheus-stack', ({ values }, fail) => {
        expectDuration(fail, values, ['prometheus', 'prometheusSpec', 'retention'], '7d', 'metrics retention');
        expectDuration(fail, values, ['alertmanager', 'alertmanagerSpec', 'retention'], '120h', 'Alertmanager retention');
        if (dig(values, ['alertmanager', 'alertmanagerSpec', 'replicas']) !== 2)
          fail(
            ['alertmanager', 'alertmanagerSpec', 'replicas'],
            `Alertmanager runs ${String(dig(values, ['alertmanager', 'alertmanagerSpec', 'replicas']) ?? 1)} replica(s), must be 2`,
          );
      });
      onValues(ctx, 'loki', ({ values }, fail) => {
        if (dig(values, ['deploymentMode']) !== 'SingleBinary') fail(['deploymentMode'], 'Loki must run as a single binary');
        if (dig(values, ['loki', 'compactor', 'retention_enabled']) !== true)
          fail(['loki', 'compactor'], 'the compactor must enforce retention (retention_enabled: true)');
        expectDuration(fail, values, ['loki', 'limits_config', 'retention_period'], '7d', 'log retention');
        const streams = (dig(values, ['loki', 'limits_config', 'retention_stream']) ?? []) as { selector?: string; period?: string }[];
        const events = streams.findIndex((s) => s.selector?.includes('kubernetes/eventhandler'));
        if (events === -1) fail(['loki', 'limits_config'], 'no retention_stream keeps Kubernetes events for 30 days');
        else expectDuration(fail, values, ['loki', 'limits_config', 'retention_stream', events, 'period'], '30d', 'Kubernetes events retention');
      });
      onValues(ctx, 'tempo', ({ values }, fail) => {
        expectDuration(fail, values, ['tempo', 'retention'], '24h', 'trace retention');
        if (!dig(values, ['tempo', 'receivers', 'otlp'])) fail(['tempo', 'receivers'], 'Tempo must receive OTLP');
      });
      onValues(ctx, 'alloy', ({ values }, fail) => {
        const shipsPodLogs = /loki\.source\.kubernetes\s+"/.test(alloyConfig(values));
        if (shipsPodLogs && (dig(values, ['controller', 'type']) ?? 'daemonset') !== 'daemonset')
          fail(['controller', 'type'], 'the pod-log shipper must run on every node (controller.type: daemonset)');
        // Limits: "sensor and log shipper retention: none". They forward; the stores keep.
        const claims = dig(values, ['controller', 'volumeClaimTemplates']);
        if ((Array.isArray(claims) && claims.length) || dig(values, ['alloy', 'storagePath']))
          fail(['controller'], 'the log shipper keeps nothing: no volume claims, no storage path');
      });
      onValues(ctx, 'falco', ({ values }, fail) => {
        if (dig(values, ['falco', 'file_output', 'enabled']) === true) fail(['falco', 'file_output'], 'the sensor keeps nothing: no file output');
      });
    },
  },
  {
    id: 'monitoring-probes',
    description:
      'Blackbox Probes: internet every 15 s on two HTTPS endpoints, public-sites every 60 s on five sites resolved through public DNS (Limits; A4, A20).',
    invariants: ['A4', 'A20'],
    remediation: 'fix the Probe interval or targets in monitoring/blackbox-exporter/probes.yaml, or the exporter’s dnsConfig',
    reads: { kinds: ['Probe', 'Application'], charts: ['prometheus-blackbox-exporter'] },
    exemptible: false,
    run(ctx) {
      const expected: Record<string, { interval: string; targets: number }> = {
        internet: { interval: '15s', targets: 2 },
        'public-sites': { interval: '60s', targets: 5 },
      };
      for (const [name, want] of Object.entries(expected)) {
        const probe = ctx.resources.find((r) => r.kind === 'Probe' && r.name === name);
        if (!probe) {
          ctx.fail({ file: 'monitoring/README.md' }, `no Probe named ${name}`);
          continue;
        }
        const interval = dig(probe.object, ['spec', 'interval']);
        if (durationMs(interval) !== durationMs(want.interval))
          ctx.fail({ resource: probe, path: ['spec', 'interval'] }, `Probe ${name} runs every ${String(interval)}, must be ${want.interval}`);
        const targets = (dig(probe.object, ['spec', 'targets', 'staticConfig', 'static']) ?? []) as string[];
        if (targets.length !== want.targets || !targets.every((t) => t.startsWith('https://')))
          ctx.fail({ resource: probe, path: ['spec', 'targets'] }, `Probe ${name} must probe ${want.targets} HTTPS targets, has ${targets.length}`);
      }
      onValues(ctx, 'prometheus-blackbox-exporter', ({ values }, fail) => {
        const servers = dig(values, ['dnsConfig', 'nameservers']);
        if (dig(values, ['dnsPolicy']) !== 'None' || !Array.isArray(servers) || servers.length === 0)
          fail(['dnsPolicy'], 'the blackbox exporter must resolve through public DNS (dnsPolicy: None with public nameservers), not the gateway');
      });
    },
  },
  {
    id: 'snmp-v3-only',
    description: 'The NAS is scraped with modules if_mib and synology over SNMPv3 authPriv (SHA, AES) every 60 s; no v1/v2c auth exists (A6).',
    invariants: ['A6'],
    remediation:
      'keep only version 3 auths with security_level authPriv, auth_protocol SHA and priv_protocol AES; drop every community; load the image modules with a second --config.file and give the auth variables through envFrom',
    reads: { kinds: ['Application'], charts: ['prometheus-snmp-exporter'] },
    exemptible: false,
    run(ctx) {
      onValues(ctx, 'prometheus-snmp-exporter', ({ values }, fail) => {
        let config: { auths?: Record<string, Record<string, unknown>> } = {};
        try {
          config = (parse(String(dig(values, ['config']) ?? '')) ?? {}) as typeof config;
        } catch (err) {
          fail(['config'], `the exporter config does not parse: ${(err as Error).message.split('\n')[0]}`);
          return;
        }
        const auths = Object.entries(config.auths ?? {});
        if (auths.length === 0) fail(['config'], 'no auth is defined');
        for (const [name, auth] of auths) {
          if (auth.version !== 3 || 'community' in auth)
            fail(['config'], `auth ${name} is SNMP v${String(auth.version ?? 2)}${'community' in auth ? ' with a community' : ''}; only SNMPv3 is allowed`);
          else if (auth.security_level !== 'authPriv' || !/^SHA/.test(String(auth.auth_protocol)) || !/^AES/.test(String(auth.priv_protocol))) {
            fail(
              ['config'],
              `auth ${name} must be authPriv with SHA auth and AES privacy, is ${String(auth.security_level)}/${String(auth.auth_protocol)}/${String(auth.priv_protocol)}`,
            );
          }
        }
        // The chart's --config.file=/config/snmp.yaml replaces the image's generated modules; only a second --config.file brings them back.
        const args = ((dig(values, ['extraArgs']) ?? []) as unknown[]).map(String);
        if (!args.includes(`--config.file=${SNMP_DEFAULT_CONFIG}`))
          fail(
            ['extraArgs'],
            `the chart's own --config.file replaces the image's modules, so if_mib and synology never load: add --config.file=${SNMP_DEFAULT_CONFIG} to extraArgs`,
          );
        const variables = [...String(dig(values, ['config']) ?? '').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]);
        const envFrom = (dig(values, ['envFrom']) ?? []) as { secretRef?: { name?: string } }[];
        if (variables.length && !envFrom.some((e) => e.secretRef?.name))
          fail(
            ['config'],
            `the auths read ${variables.map((v) => `\${${v}}`).join(', ')} from the environment, but envFrom gives the container no Secret; the exporter exits on an unset variable`,
          );
        const params = (dig(values, ['serviceMonitor', 'params']) ?? []) as { module?: string[]; interval?: string }[];
        params.forEach((p, i) => {
          if (JSON.stringify([...(p.module ?? [])].sort()) !== JSON.stringify(['if_mib', 'synology']))
            fail(['serviceMonitor', 'params', i, 'module'], `NAS modules are ${JSON.stringify(p.module ?? [])}, must be if_mib and synology`);
          if (durationMs(p.interval) !== 60_000)
            fail(['serviceMonitor', 'params', i, 'interval'], `the NAS is scraped every ${String(p.interval)}, must be 60s`);
        });
        if (params.length === 0) fail(['serviceMonitor'], 'nothing scrapes the NAS');
      });
    },
  },
];

/** The spec's dashboard table: each row and the panels it shows (matched by title prefix). */
export const DASHBOARD_ROWS: Record<string, string[]> = {
  'Internet & Backups': [
    'Public sites up',
    'Public site response time',
    'Internet state',
    'Internet downtime',
    'Internet outages',
    'Probe latency',
    'Backup job ages',
    'Backup-sync sources behind',
  ],
  Network: ['WAN latency', 'WAN session uptime', 'WAN drops', 'Gateway CPU', 'Per-port traffic', 'Port errors and drops'],
  Hypervisor: ['Hosts up', 'VMs running', 'VMs stopped', 'Host CPU', 'Host memory', 'Storage per host and shared'],
  NAS: ['System status', 'Volume used and free', 'RAID status', 'Unhealthy disks', 'Temperature', 'eth0 traffic', 'Disk temperatures'],
};

/** Where the snmp_exporter image keeps its generated modules (if_mib, synology, ...). */
export const SNMP_DEFAULT_CONFIG = '/etc/snmp_exporter/snmp.yml';

export const dashboardChecks: PolicyCheck[] = [
  {
    id: 'dashboard-rows',
    description:
      'A provisioned dashboard has the four rows of invariant A10 (Internet & Backups, Network, Hypervisor, NAS), each with the panels that invariant lists.',
    invariants: ['A10'],
    remediation: 'add the missing row or panel to monitoring/dashboards/homelab-overview.yaml',
    reads: { kinds: ['ConfigMap'] },
    exemptible: false,
    run(ctx) {
      const boards = dashboards(ctx.repo);
      for (const d of boards.filter((b) => b.error))
        ctx.fail({ file: d.file, line: d.error!.pos.line, col: d.error!.pos.col }, `${d.key}: ${d.error!.message}`);
      const overview = boards.find((d) => rowsOf(d).some((r) => r.title in DASHBOARD_ROWS));
      if (!overview) {
        ctx.fail({ file: 'monitoring/README.md' }, 'no provisioned dashboard has the four rows of invariant A10');
        return;
      }
      const rows = rowsOf(overview);
      for (const [row, panels] of Object.entries(DASHBOARD_ROWS)) {
        const found = rows.find((r) => r.title === row);
        if (!found) {
          const { line, col } = overview.at(['panels']);
          ctx.fail({ file: overview.file, line, col }, `${overview.key}: no row "${row}"`);
          continue;
        }
        for (const panel of panels) {
          if (!found.panels.some((p) => p.title?.startsWith(panel) && (p.targets ?? []).some((t) => t.expr))) {
            const { line, col } = overview.at(['panels', found.index, 'title']);
            ctx.fail({ file: overview.file, line, col }, `${overview.key}: row "${row}" has no "${panel}" panel with a query`);
          }
        }
      }
    },
  },
];

const PVE_FACTS = 'monitoring/pve-exporter/facts/pve-access.yaml';
const UNIFI_FACTS = 'monitoring/unpoller/facts/unifi-access.yaml';

export const sourceChecks: PolicyCheck[] = [
  {
    id: 'ingress-traces',
    description: 'Every ingress proxy (the Traefik apps) pushes traces over OTLP to the trace store, at the gRPC port Tempo receives on (A3).',
    invariants: ['A3'],
    remediation: 'set tracing.otlp.enabled and tracing.otlp.grpc (enabled, endpoint tempo.monitoring.svc:4317, insecure) in the proxy values',
    reads: { kinds: ['Application'], charts: ['traefik', 'tempo'] },
    exemptible: false,
    run(ctx) {
      const tempoGrpc = chartValues(ctx.repo, 'tempo')
        .map((v) => String(dig(v.values, ['tempo', 'receivers', 'otlp', 'protocols', 'grpc', 'endpoint']) ?? ''))
        .find(Boolean);
      const port = tempoGrpc?.split(':').pop();
      eachChartValues(ctx, 'traefik', 'apps/platform/README.md', ({ values }, fail) => {
        const otlp = dig(values, ['tracing', 'otlp']);
        if (dig(otlp, ['enabled']) !== true || dig(otlp, ['grpc', 'enabled']) !== true) {
          fail(['tracing'], 'the proxy sends no traces over OTLP gRPC: the trace store receives nothing from it');
          return;
        }
        const endpoint = String(dig(otlp, ['grpc', 'endpoint']) ?? '');
        if (!/^tempo\.monitoring(\.svc)?(\.cluster\.local)?:\d+$/.test(endpoint) || (port && endpoint.split(':').pop() !== port))
          fail(
            ['tracing', 'otlp', 'grpc', 'endpoint'],
            `traces go to "${endpoint}", not to Tempo's OTLP gRPC receiver (tempo.monitoring.svc:${port ?? '4317'})`,
          );
      });
    },
  },
  {
    id: 'events-shipped-once',
    description:
      'Exactly one Alloy ships the Kubernetes events, a single-replica Deployment: loki.source.kubernetes_events does not take part in clustering, so in the DaemonSet every node would push every event (A2).',
    invariants: ['A2'],
    remediation: 'keep loki.source.kubernetes_events only in the alloy-events values (controller.type: deployment, replicas: 1)',
    reads: { kinds: ['Application'], charts: ['alloy'] },
    exemptible: false,
    run(ctx) {
      const shippers: { fail: Fail; values: unknown }[] = [];
      onValues(ctx, 'alloy', ({ values }, fail) => {
        if (EVENTS_SOURCE.test(alloyConfig(values))) shippers.push({ fail, values });
      });
      if (shippers.length === 0) ctx.fail({ file: 'monitoring/README.md' }, 'no Alloy ships the Kubernetes events (loki.source.kubernetes_events)');
      for (const { fail, values } of shippers) {
        const type = dig(values, ['controller', 'type']) ?? 'daemonset';
        const replicas = dig(values, ['controller', 'replicas']) ?? 1;
        if (type === 'daemonset')
          fail(
            ['alloy', 'configMap', 'content'],
            'Kubernetes events are shipped from a DaemonSet: every node watches and pushes every event, since loki.source.kubernetes_events ignores clustering',
          );
        else if (replicas !== 1)
          fail(['controller', 'replicas'], `Kubernetes events are shipped by ${String(replicas)} replicas, each pushing every event; run one`);
        if (shippers.length > 1)
          fail(
            ['alloy', 'configMap', 'content'],
            `${shippers.length} Alloy apps ship the Kubernetes events; each event would reach Loki ${shippers.length} times`,
          );
      }
    },
  },
  {
    id: 'grafana-admin-from-store',
    description:
      "Grafana's admin login comes from a Secret an ExternalSecret writes (grafana.admin.existingSecret); the subchart would otherwise generate one with randAlphaNum, new on every Argo CD render (P1).",
    invariants: ['P1'],
    remediation: 'set grafana.admin.existingSecret (with userKey and passwordKey) to the target of an ExternalSecret in the monitoring namespace',
    reads: { kinds: ['Application', 'ExternalSecret'], charts: ['kube-prometheus-stack'] },
    exemptible: false,
    run(ctx) {
      onValues(ctx, 'kube-prometheus-stack', ({ values }, fail) => {
        if (dig(values, ['grafana', 'enabled']) === false) return;
        const secret = dig(values, ['grafana', 'admin', 'existingSecret']);
        if (typeof secret !== 'string' || secret === '')
          fail(
            ['grafana'],
            'Grafana has no admin.existingSecret, so the subchart generates a password with randAlphaNum on every render: drift, a restart and a new password on each sync',
          );
        else if (!writtenByExternalSecret(ctx.repo, secret, 'monitoring'))
          fail(['grafana', 'admin', 'existingSecret'], `no ExternalSecret in monitoring writes Secret ${secret}`);
      });
    },
  },
  {
    id: 'volsync-metrics',
    description:
      "VolSync runs from a pinned chart and its sync metrics (ReplicationSource sync state) are scraped by a ServiceMonitor in volsync-system, the chart's own or a plain one, never both (A8).",
    invariants: ['A8'],
    remediation: 'keep the volsync Application; the chart renders its ServiceMonitor whenever the ServiceMonitor API exists, so add no second one',
    reads: { kinds: ['ServiceMonitor', 'Application'], charts: ['volsync'], renders: true },
    exemptible: false,
    run(ctx) {
      if (chartValues(ctx.repo, 'volsync').length === 0) ctx.fail({ file: 'monitoring/README.md' }, 'no Application deploys the volsync chart');
      const render = ctx.renders.find((r) => r.source.chart === 'volsync');
      const monitor = ctx.resources.some(
        (r) => r.kind === 'ServiceMonitor' && (r.namespace === 'volsync-system' || (render !== undefined && r.rendered?.app === render.app.name)),
      );
      // Not rendered (no chart in the cache): the summary counts the source as not judged; volsync 0.13 renders its own monitor.
      if (monitor || render?.status !== 'rendered') return;
      ctx.fail(
        { resource: render.app.resource, path: [...render.source.at, 'chart'] },
        'nothing scrapes VolSync: neither the chart nor a manifest renders a ServiceMonitor in volsync-system',
      );
    },
  },
  {
    id: 'pve-audit-token',
    description:
      'The hypervisor exporter scrapes three hosts every 60 s, one of them cluster-wide, with the API token of an audit-only user (PVEAuditor), never a password (A7).',
    invariants: ['A7'],
    remediation: `scrape three targets at 60s with exactly one cluster=1, and render pve.yml from an ExternalSecret with user/token_name/token_value of the user in ${PVE_FACTS}`,
    reads: { kinds: ['ServiceMonitor', 'ExternalSecret'], files: ['monitoring/pve-exporter/facts/*'] },
    exemptible: false,
    run(ctx) {
      const facts = (ctx.repo.dataFiles.get(PVE_FACTS)?.data ?? {}) as { user?: string; role?: string; token?: string };
      if (facts.role !== 'PVEAuditor')
        ctx.fail({ file: PVE_FACTS }, `the exporter's user must hold only PVEAuditor, facts say ${JSON.stringify(facts.role ?? null)}`);
      const monitor = ctx.resources.find((r) => r.kind === 'ServiceMonitor' && r.name === 'pve-exporter');
      if (!monitor) {
        ctx.fail({ file: 'monitoring/README.md' }, 'no ServiceMonitor pve-exporter scrapes the hypervisors');
        return;
      }
      const endpoints = (dig(monitor.object, ['spec', 'endpoints']) ?? []) as { interval?: string; params?: Record<string, string[]> }[];
      const targets = new Set(endpoints.map((e) => e.params?.target?.[0]));
      if (endpoints.length !== 3 || targets.size !== 3)
        ctx.fail({ resource: monitor, path: ['spec', 'endpoints'] }, `the exporter must scrape 3 distinct hosts, scrapes ${targets.size}`);
      const clusterWide = endpoints.filter((e) => e.params?.cluster?.[0] === '1').length;
      if (clusterWide !== 1)
        ctx.fail({ resource: monitor, path: ['spec', 'endpoints'] }, `exactly one host reports the cluster-wide view (cluster=1), found ${clusterWide}`);
      endpoints.forEach(
        (e, i) =>
          durationMs(e.interval) !== 60_000 &&
          ctx.fail({ resource: monitor, path: ['spec', 'endpoints', i, 'interval'] }, `hypervisor scrape interval is ${String(e.interval)}, must be 60s`),
      );
      const secret = ctx.resources.find((r) => r.kind === 'ExternalSecret' && r.name === 'pve-exporter');
      const template = secret ? String(dig(secret.object, ['spec', 'target', 'template', 'data', 'pve.yml']) ?? '') : '';
      let config: Record<string, Record<string, unknown>> = {};
      try {
        config = (parse(template) ?? {}) as typeof config;
      } catch {
        // reported below as a missing token configuration
      }
      const modules = Object.values(config);
      const at: Path = ['spec', 'target', 'template', 'data', 'pve.yml'];
      if (!secret || modules.length === 0) {
        secret
          ? ctx.fail({ resource: secret, path: at }, 'pve.yml is missing or does not parse')
          : ctx.fail({ file: 'monitoring/README.md' }, 'no ExternalSecret pve-exporter renders the exporter config');
        return;
      }
      for (const m of modules) {
        if ('password' in m) ctx.fail({ resource: secret, path: at }, 'the exporter logs in with a password; use the audit user’s API token');
        if (m.user !== facts.user || m.token_name !== facts.token || !String(m.token_value ?? '').includes('{{'))
          ctx.fail({ resource: secret, path: at }, `pve.yml must use ${facts.user}'s token "${facts.token}", with token_value taken from the secret store`);
      }
    },
  },
  {
    id: 'unpoller-source',
    description:
      'The gateway exporter is scraped every 30 s as a local read-only user (network view only) from an ExternalSecret, and pushes the system log to Loki every minute (A5).',
    invariants: ['A5'],
    remediation: `scrape unpoller at 30s, take UP_UNIFI_DEFAULT_USER/PASS from an ExternalSecret of the user in ${UNIFI_FACTS}, set UP_LOKI_URL and UP_LOKI_INTERVAL=1m`,
    reads: { kinds: ['Deployment', 'ServiceMonitor', 'ExternalSecret'], files: ['monitoring/unpoller/facts/*'] },
    exemptible: false,
    run(ctx) {
      const facts = (ctx.repo.dataFiles.get(UNIFI_FACTS)?.data ?? {}) as { local?: boolean; role?: string };
      if (facts.local !== true || facts.role !== 'network-view-only')
        ctx.fail({ file: UNIFI_FACTS }, 'the gateway user must be local-only with the network-view-only role');
      const deployment = ctx.resources.find((r) => r.kind === 'Deployment' && r.name === 'unpoller');
      const monitor = ctx.resources.find((r) => r.kind === 'ServiceMonitor' && r.name === 'unpoller');
      if (!deployment || !monitor) {
        ctx.fail({ file: 'monitoring/README.md' }, 'unpoller (Deployment and ServiceMonitor) is missing');
        return;
      }
      const endpoints = (dig(monitor.object, ['spec', 'endpoints']) ?? []) as { interval?: string }[];
      endpoints.forEach(
        (e, i) =>
          durationMs(e.interval) !== 30_000 &&
          ctx.fail({ resource: monitor, path: ['spec', 'endpoints', i, 'interval'] }, `the gateway is scraped every ${String(e.interval)}, must be 30s`),
      );
      const env = (dig(deployment.object, ['spec', 'template', 'spec', 'containers', 0, 'env']) ?? []) as {
        name: string;
        value?: string;
        valueFrom?: { secretKeyRef?: { name?: string } };
      }[];
      const at = (name: string): Path => {
        const i = env.findIndex((e) => e.name === name);
        return ['spec', 'template', 'spec', 'containers', 0, 'env', ...(i === -1 ? [] : [i])];
      };
      const byName = new Map(env.map((e) => [e.name, e]));
      for (const name of ['UP_UNIFI_DEFAULT_USER', 'UP_UNIFI_DEFAULT_PASS']) {
        const ref = byName.get(name)?.valueFrom?.secretKeyRef?.name;
        if (!writtenByExternalSecret(ctx.repo, ref, deployment.namespace))
          ctx.fail({ resource: deployment, path: at(name) }, `${name} must come from a Secret written by an ExternalSecret`);
      }
      if (!byName.get('UP_LOKI_URL')?.value)
        ctx.fail({ resource: deployment, path: at('UP_LOKI_URL') }, 'the gateway system log is not pushed to Loki (UP_LOKI_URL)');
      if (durationMs(byName.get('UP_LOKI_INTERVAL')?.value) !== 60_000)
        ctx.fail(
          { resource: deployment, path: at('UP_LOKI_INTERVAL') },
          `the system log is pushed every ${byName.get('UP_LOKI_INTERVAL')?.value ?? '(default)'}, must be 1m`,
        );
    },
  },
];
