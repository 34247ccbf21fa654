/**
 * The monitoring stack's Limits and scrape sources (A1-A7, A20), read from
 * the chart values and the Probe resources.
 */
import { alloyConfig, onValues, type Fail } from './values.ts';
import { parse } from 'yaml';
import { dig, list, objects } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { durationMs } from '../../model/core/time.ts';
import { dashboards, rowsOf } from '../../model/monitoring/dashboards.ts';
import { promqlProblems } from '../../model/monitoring/promql-lint.ts';
import { prometheusFeatures } from '../../model/prometheus-operator/relabel.ts';
import { parsePromQL } from '../../model/monitoring/promql.ts';
import { promExpressions } from '../../model/monitoring/promql-expressions.ts';
import { prometheusViews } from '../../model/prometheus-operator/selection.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { CONTROL_PLANE_TAINT, toleratesControlPlane } from '../../model/core/workloads.ts';
import { keysOf } from '../../model/cluster/provided-keys.ts';
import { applicationsByName } from '../../model/argocd/argocd.ts';

function expectDuration(fail: Fail, values: unknown, path: Path, { expected, what }: { expected: string; what: string }): void {
  const actual = dig(values, path);
  if (durationMs(actual) !== durationMs(expected)) fail(path, `${what} is ${actual === undefined ? 'unset' : scalarText(actual)}, must be ${expected}`);
}

export const monitoringChecks: PolicyCheck[] = [
  {
    id: 'monitoring-retention',
    description:
      'Retention and shape of the stores: metrics 7d; Alertmanager 2 replicas and 120h; Loki single binary, logs 7d and Kubernetes events 30d; traces 24h over OTLP; the log shipper a DaemonSet that tolerates the control-plane taint, so it runs on every node, and one that ships pod logs (a log source other than the events one, loki.source.kubernetes or loki.source.file; an Alloy whose configuration was dropped runs the example of its chart, which ships none); the sensor and the shipper keep nothing (Limits; A1, A2, A3).',
    invariants: ['A1', 'A2', 'A3'],
    remediation: 'set the retention or replica count docs/invariants.md states (A1-A3)',
    reads: { kinds: ['Application'], charts: ['kube-prometheus-stack', 'loki', 'tempo', 'alloy', 'falco'] },
    exemptible: false,
    run(ctx) {
      onValues(ctx, 'kube-prometheus-stack', ({ values }, fail) => {
        expectDuration(fail, values, ['prometheus', 'prometheusSpec', 'retention'], { expected: '7d', what: 'metrics retention' });
        expectDuration(fail, values, ['alertmanager', 'alertmanagerSpec', 'retention'], { expected: '120h', what: 'Alertmanager retention' });
        if (dig(values, ['alertmanager', 'alertmanagerSpec', 'replicas']) !== 2)
          fail(
            ['alertmanager', 'alertmanagerSpec', 'replicas'],
            `Alertmanager runs ${scalarText(dig(values, ['alertmanager', 'alertmanagerSpec', 'replicas']) ?? 1)} replica(s), must be 2`,
          );
      });
      onValues(ctx, 'loki', ({ values }, fail) => {
        if (dig(values, ['deploymentMode']) !== 'SingleBinary') fail(['deploymentMode'], 'Loki must run as a single binary');
        if (dig(values, ['loki', 'compactor', 'retention_enabled']) !== true)
          fail(['loki', 'compactor'], 'the compactor must enforce retention (retention_enabled: true)');
        expectDuration(fail, values, ['loki', 'limits_config', 'retention_period'], { expected: '7d', what: 'log retention' });
        const streams = objects(dig(values, ['loki', 'limits_config', 'retention_stream'])) as { selector?: string; period?: string }[];
        const events = streams.findIndex((s) => s.selector?.includes('kubernetes/eventhandler'));
        if (events === -1) fail(['loki', 'limits_config'], 'no retention_stream keeps Kubernetes events for 30 days');
        else
          expectDuration(fail, values, ['loki', 'limits_config', 'retention_stream', events, 'period'], {
            expected: '30d',
            what: 'Kubernetes events retention',
          });
      });
      onValues(ctx, 'tempo', ({ values }, fail) => {
        expectDuration(fail, values, ['tempo', 'retention'], { expected: '24h', what: 'trace retention' });
        if (!dig(values, ['tempo', 'receivers', 'otlp'])) fail(['tempo', 'receivers'], 'Tempo must receive OTLP');
      });
      // A2: a shipper on every node ships pod logs. The node shippers (DaemonSets) where none holds a pod-log source.
      const nodeShippers: Fail[] = [];
      let podLogsShipped = false;
      onValues(ctx, 'alloy', ({ values }, fail) => {
        const config = alloyConfig(values);
        const shipsPodLogs = /loki\.source\.kubernetes\s+"/.test(config);
        // Pod logs tailed through the API, or read from the node's files: any log source but the events' counts (a
        // component name Alloy does not have is alloy-config-loads' to say).
        podLogsShipped ||= [...config.matchAll(/loki\.source\.(\w+)\s+"/g)].some((m) => m[1] !== 'kubernetes_events');
        if ((dig(values, ['controller', 'type']) ?? 'daemonset') === 'daemonset') nodeShippers.push(fail);
        if (shipsPodLogs && (dig(values, ['controller', 'type']) ?? 'daemonset') !== 'daemonset')
          fail(['controller', 'type'], 'the pod-log shipper must run on every node (controller.type: daemonset)');
        // The chart tolerates nothing: without the control-plane taint's toleration, the pods there ship no log.
        const facts = ctx.repo.facts;
        if (shipsPodLogs && facts && facts.controlPlaneCount > 0 && !toleratesControlPlane(dig(values, ['controller', 'tolerations'])))
          fail(
            ['controller'],
            `the pod-log shipper would run on ${facts.nodeCount - facts.controlPlaneCount} of ${facts.nodeCount} nodes: no toleration for the control-plane taint (${CONTROL_PLANE_TAINT}), so no log of a pod on a control-plane node reaches Loki`,
          );
        // Limits: "sensor and log shipper retention: none". They forward; the stores keep.
        const claims = dig(values, ['controller', 'volumeClaimTemplates']);
        if ((Array.isArray(claims) && claims.length) || dig(values, ['alloy', 'storagePath']))
          fail(['controller'], 'the log shipper keeps nothing: no volume claims, no storage path');
      });
      if (!podLogsShipped)
        for (const fail of nodeShippers)
          fail(
            ['alloy', 'configMap'],
            "no Alloy ships pod logs: this node shipper's configuration has no log source but the events' (loki.source.kubernetes, or loki.source.file of the node's pod logs), so no pod log reaches Loki",
            "give the node shipper a loki.source.kubernetes over a discovery.kubernetes of its own node's pods, forwarded to a loki.write",
          );
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
        const targets = list(dig(probe.object, ['spec', 'targets', 'staticConfig', 'static'])) as string[];
        if (targets.length !== want.targets || !targets.every((t) => typeof t === 'string' && t.startsWith('https://')))
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
    description:
      'The NAS is scraped with modules if_mib and synology over SNMPv3 authPriv (SHA, AES) every 60 s, each scrape naming one auth the exporter config defines (snmp_exporter answers another, or two, with 400); no v1/v2c auth exists; every ${VARIABLE} the auths expand is a key of a Secret envFrom hands the exporter (A6).',
    invariants: ['A6'],
    remediation:
      'keep only version 3 auths with security_level authPriv, auth_protocol SHA and priv_protocol AES; drop every community; load the image modules with a second --config.file and give the auth variables through envFrom',
    reads: { kinds: ['Application', 'ExternalSecret', 'Secret'], charts: ['prometheus-snmp-exporter'] },
    exemptible: false,
    run(ctx) {
      onValues(ctx, 'prometheus-snmp-exporter', ({ appName, values }, fail) => {
        let config: { auths?: Record<string, Record<string, unknown>> } = {};
        try {
          config = (parse(scalarText(dig(values, ['config']) ?? '')) ?? {}) as typeof config;
        } catch (err) {
          fail(['config'], `the exporter config does not parse: ${(err as Error).message.split('\n')[0]}`);
          return;
        }
        const auths = Object.entries(config.auths ?? {});
        if (auths.length === 0) fail(['config'], 'no auth is defined');
        for (const [name, auth] of auths) {
          if (auth.version !== 3 || 'community' in auth)
            fail(['config'], `auth ${name} is SNMP v${scalarText(auth.version ?? 2)}${'community' in auth ? ' with a community' : ''}; only SNMPv3 is allowed`);
          else if (auth.security_level !== 'authPriv' || !/^SHA/.test(String(auth.auth_protocol)) || !/^AES/.test(String(auth.priv_protocol))) {
            fail(
              ['config'],
              `auth ${name} must be authPriv with SHA auth and AES privacy, is ${String(auth.security_level)}/${String(auth.auth_protocol)}/${String(auth.priv_protocol)}`,
            );
          }
        }
        // The chart's --config.file=/config/snmp.yaml replaces the image's generated modules; only a second --config.file brings them back.
        const args = (list(dig(values, ['extraArgs'])) as unknown[]).map(String);
        if (!args.includes(`--config.file=${SNMP_DEFAULT_CONFIG}`))
          fail(
            ['extraArgs'],
            `the chart's own --config.file replaces the image's modules, so if_mib and synology never load: add --config.file=${SNMP_DEFAULT_CONFIG} to extraArgs`,
          );
        const variables = [...scalarText(dig(values, ['config']) ?? '').matchAll(/\$\{(\w+)\}/g)].map((m) => m[1]);
        const envFrom = objects(dig(values, ['envFrom'])) as { secretRef?: { name?: string } }[];
        if (variables.length && !envFrom.some((e) => e.secretRef?.name))
          fail(
            ['config'],
            `the auths read ${variables.map((v) => `\${${v}}`).join(', ')} from the environment, but envFrom gives the container no Secret; the exporter exits on an unset variable`,
          );
        // Each variable is a key of a Secret envFrom hands over, where the repository says which keys those have.
        const namespace = applicationsByName(ctx.repo).get(appName)?.destinationNamespace;
        const given = envFrom.map((e) => keysOf(ctx, { kind: 'Secret', namespace, name: e.secretRef?.name }));
        if (given.length > 0 && given.every((k) => k !== undefined))
          for (const v of new Set(variables).values())
            if (v && !given.some((k) => k!.has(v)))
              fail(
                ['config'],
                `the auths read \${${v}}, which no Secret envFrom hands the container sets (${given.map((k) => [...k!].sort().join(', ')).join('; ')}): the exporter exits on an unset variable`,
              );
        const params = objects(dig(values, ['serviceMonitor', 'params'])) as { module?: string[]; interval?: string; auth?: unknown }[];
        const defined = new Set(auths.map(([name]) => name));
        params.forEach((p, i) => {
          // snmp_exporter v0.30's handler: one auth parameter (two answer 400), public_v2 where none is given, and a
          // name its config does not define answered 400 "Unknown auth": the NAS is never scraped.
          const asked = list(p.auth).map(scalarText);
          if (asked.length !== 1)
            fail(
              ['serviceMonitor', 'params', i, ...(p.auth === undefined ? [] : ['auth'])],
              asked.length === 0
                ? 'the NAS scrape names no auth, so the exporter uses public_v2 (SNMPv2c, community public); name the SNMPv3 auth of the config'
                : `the NAS scrape names ${asked.length} auths, and the exporter answers a scrape with more than one 400 ("'auth' parameter must only be specified once")`,
            );
          for (const name of asked.filter((a) => !defined.has(a)))
            fail(
              ['serviceMonitor', 'params', i, 'auth'],
              `the NAS scrape asks for auth ${name}, which the exporter config does not define (${[...defined].join(', ') || 'none'}): every scrape is answered 400 "Unknown auth '${name}'"${didYouMean(name, defined)}`,
            );
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
    id: 'dashboard-queries',
    description:
      "Every panel query of a provisioned dashboard is one the stack's Prometheus runs: its parser's types, argument counts and operator rules, and no optional feature its enableFeatures leave off; otherwise Grafana shows the panel as Prometheus's error and the panel stays empty (invariants A10). A query that does not parse at all is metrics-join's.",
    invariants: ['A10'],
    remediation: 'fix the query the finding names, as Prometheus documents PromQL (a range function takes a range vector: rate(x[5m]))',
    reads: { kinds: ['ConfigMap', 'Prometheus', 'Application'], charts: ['kube-prometheus-stack'], renders: true },
    exemptible: false,
    run(ctx) {
      const features = prometheusFeatures(prometheusViews(ctx)[0]?.spec ?? {});
      for (const e of promExpressions(ctx.repo)) {
        if (e.kind !== 'dashboard' || parsePromQL(e.expr).error) continue;
        const problems = promqlProblems(e.expr, features);
        if (problems.length)
          ctx.fail(
            { file: e.file, ...e.at(0) },
            `dashboard ${e.name}: Prometheus refuses the query (${problems.join('; ')}): Grafana shows the panel's error, and it stays empty`,
          );
      }
    },
  },
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
