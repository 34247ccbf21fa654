/**
 * Where the monitoring stack's data comes from: traces from the ingress,
 * events shipped once, Grafana's admin from the store, VolSync's metrics, and
 * the hypervisor's and the network controller's read-only sources.
 */
import { alloyConfig, onValues, type Fail } from './values.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { TEMPO_OTLP_GRPC, tempoGrpcLoopback } from '../../model/tempo/receivers.ts';
import { dig, list, obj, objects } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { containersOf, podSpecOf } from '../../model/core/workloads.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment, secretKeyOf } from '../../model/cluster/environment.ts';
import { eachChartValues } from '../../model/checks/kit.ts';
import type { Path } from '../../model/core/positions.ts';
import { writtenByExternalSecret } from '../../model/cluster/external-secrets.ts';
import { durationMs } from '../../model/core/time.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { goParseBool, scalarText } from '../../model/core/text.ts';
import { CLIENT_CREDENTIALS } from '../../model/prometheus-operator/http-client.ts';
import { PVE_CONFIG_AT, pveExporter, pveModuleAsked, pveTargets } from '../../model/monitoring/pve-exporter.ts';

const EVENTS_SOURCE = /loki\.source\.kubernetes_events\s+"/;

/** What a ServiceMonitor endpoint may present to an endpoint that asks who scrapes it: the client's credentials, or a token file. */
const CREDENTIALS = [...CLIENT_CREDENTIALS, 'bearerTokenFile'];

/**
 * The workload whose VolSync manager guards its metrics: its cmd/main.go serves them over HTTPS (--metrics-secure, default
 * true) behind controller-runtime's WithAuthenticationAndAuthorization filter when --metrics-require-rbac (default
 * true) holds too, so a scrape without a token is answered 401. Go's flag package reads `-x` and `--x`, a bare bool
 * flag as true and `=v` by strconv.ParseBool; the last word wins. undefined where none runs a manager that does.
 */
function volsyncMetricsGuarded(resources: readonly Resource[]): Resource | undefined {
  for (const w of resources.filter((r) => r.kind === 'Deployment')) {
    const pod = podSpecOf(w);
    const manager = pod && containersOf(pod).find((c) => list(c.container.args).some((a) => /^--?metrics-bind-address=/.test(scalarText(a))));
    if (!manager) continue;
    const flags = new Map<string, boolean | undefined>();
    for (const arg of list(manager.container.args).map((a) => scalarText(a))) {
      const m = /^--?(metrics-secure|metrics-require-rbac)(?:=(.*))?$/.exec(arg);
      if (m) flags.set(m[1]!, m[2] === undefined ? true : goParseBool(m[2]));
    }
    if (flags.get('metrics-secure') !== false && flags.get('metrics-require-rbac') !== false) return w;
    return undefined;
  }
  return undefined;
}

const PVE_FACTS = 'monitoring/pve-exporter/facts/pve-access.yaml';
const UNIFI_FACTS = 'monitoring/unpoller/facts/unifi-access.yaml';

/**
 * A monitor that scrapes VolSync's guarded metrics with no credential gets 401 at every scrape: the chart renders its
 * monitor with none, so its values must turn the guard off (metrics.disableAuth), as the repository's do.
 */
function volsyncScrapedWithoutToken(ctx: CheckContext, render: SourceRender): void {
  const rendered = ctx.resources.filter((r) => r.rendered?.app === render.app.name);
  const guarded = volsyncMetricsGuarded(rendered);
  if (!guarded) return;
  const monitors = ctx.resources.filter((r) => r.kind === 'ServiceMonitor' && (r.namespace === 'volsync-system' || r.rendered?.app === render.app.name));
  const values = chartValues(ctx.repo, 'volsync').find((v) => v.appName === render.app.name);
  for (const m of monitors)
    objects(dig(m.object, ['spec', 'endpoints'])).forEach((e, i) => {
      if (CREDENTIALS.some((c) => e[c] !== undefined)) return;
      const at =
        values && dig(values.values, ['metrics']) !== undefined
          ? { data: values.source, path: dig(values.values, ['metrics', 'disableAuth']) !== undefined ? ['metrics', 'disableAuth'] : ['metrics'] }
          : { resource: m, path: ['spec', 'endpoints', i] };
      ctx.fail(
        at,
        `VolSync's manager guards its metrics (--metrics-secure and --metrics-require-rbac hold in ${guarded.name}'s args), and ServiceMonitor ${m.name} scrapes them with no token: every scrape is answered 401, and the sync metrics are never stored`,
        "set metrics.disableAuth: true in the volsync values (the chart then passes --metrics-require-rbac=false), or give the monitor a token of an identity bound to the chart's metrics-reader ClusterRole",
      );
    });
}

export const sourceChecks: PolicyCheck[] = [
  {
    id: 'ingress-traces',
    description:
      "Every ingress proxy (the Traefik apps) pushes traces over OTLP to the trace store, at the gRPC port Tempo receives on, in plain gRPC (insecure: true) where Tempo's receiver has no TLS and over TLS where it has (Traefik's exporter uses TLS unless told insecure, and a handshake with a plain server fails), and that receiver listens beyond its own pod (the collector's default endpoint is localhost:4317) (A3).",
    invariants: ['A3'],
    remediation: 'set tracing.otlp.enabled and tracing.otlp.grpc (enabled, endpoint tempo.monitoring.svc:4317, insecure) in the proxy values',
    reads: { kinds: ['Application'], charts: ['traefik', 'tempo'] },
    exemptible: false,
    run(ctx) {
      const tempo = chartValues(ctx.repo, 'tempo');
      const port = tempo
        .map((v) => scalarText(dig(v.values, [...TEMPO_OTLP_GRPC, 'endpoint']) ?? ''))
        .find(Boolean)
        ?.split(':')
        .pop();
      // Tempo's OTLP gRPC server speaks TLS only where its receiver has a tls block (the collector's configgrpc).
      const tempoTls = tempo.some((v) => dig(v.values, [...TEMPO_OTLP_GRPC, 'tls']) !== undefined);
      for (const v of tempo) {
        const loopback = tempoGrpcLoopback(v.values);
        if (loopback)
          ctx.fail(
            { data: v.source, path: loopback.path },
            `Tempo's OTLP gRPC receiver listens on ${loopback.bind}, inside its own pod only: no proxy's trace reaches it (listen on 0.0.0.0:4317)`,
          );
      }
      eachChartValues(ctx, 'traefik', 'apps/platform/README.md', ({ values }, fail) => {
        const otlp = dig(values, ['tracing', 'otlp']);
        if (dig(otlp, ['enabled']) !== true || dig(otlp, ['grpc', 'enabled']) !== true) {
          fail(['tracing'], 'the proxy sends no traces over OTLP gRPC: the trace store receives nothing from it');
          return;
        }
        const endpoint = scalarText(dig(otlp, ['grpc', 'endpoint']) ?? '');
        if (!/^tempo\.monitoring(\.svc)?(\.cluster\.local)?:\d+$/.test(endpoint) || (port && endpoint.split(':').pop() !== port))
          fail(
            ['tracing', 'otlp', 'grpc', 'endpoint'],
            `traces go to "${endpoint}", not to Tempo's OTLP gRPC receiver (tempo.monitoring.svc:${port ?? '4317'})`,
          );
        // Traefik's exporter (observability/types/tracing.go) is insecure only with `insecure: true`; else gRPC over TLS.
        const insecure = dig(otlp, ['grpc', 'insecure']) === true;
        if (insecure === tempoTls)
          fail(
            ['tracing', 'otlp', 'grpc'],
            insecure
              ? "the proxy sends traces in plain gRPC (insecure: true), and Tempo's receiver speaks TLS: every export fails, and no trace reaches the store"
              : "the proxy sends traces over TLS (no insecure: true), and Tempo's receiver speaks plain gRPC: every export fails the handshake, and no trace reaches the store",
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
          fail(['controller', 'replicas'], `Kubernetes events are shipped by ${scalarText(replicas)} replicas, each pushing every event; run one`);
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
      "VolSync runs from a pinned chart and its sync metrics (ReplicationSource sync state) reach the store: with the chart rendered, a monitor with no token scrapes none of the metrics its manager guards (--metrics-secure and --metrics-require-rbac, both on unless metrics.disableAuth turns the second off), as every scrape is answered 401 (a chart rendered without its ServiceMonitor is metrics-join's, at each rule that reads them) (A8).",
    invariants: ['A8'],
    remediation: "keep the volsync Application, and its metrics.disableAuth: true (or give the chart's ServiceMonitor a token)",
    reads: { kinds: ['ServiceMonitor', 'Application', 'Deployment'], charts: ['volsync'], renders: true },
    exemptible: false,
    run(ctx) {
      if (chartValues(ctx.repo, 'volsync').length === 0) ctx.fail({ file: 'monitoring/README.md' }, 'no Application deploys the volsync chart');
      const render = ctx.renders.find((r) => r.source.chart === 'volsync');
      // Not rendered (no chart in the cache): the summary counts the source as not judged. A chart rendered without its
      // monitor is metrics-join's to say, at each rule that reads what the catalog's scrape of it would have stored.
      if (render?.status === 'rendered') volsyncScrapedWithoutToken(ctx, render);
    },
  },
  {
    id: 'pve-audit-token',
    description:
      'The hypervisor exporter scrapes three hosts every 60 s, one of them cluster-wide, each with a module its pve.yml has (`default` where the scrape names none; any other answers 400 and the scrape fails), with the API token of an audit-only user (PVEAuditor), never a password (A7).',
    invariants: ['A7'],
    remediation: `scrape three targets at 60s with exactly one cluster=1, and render pve.yml from an ExternalSecret with user/token_name/token_value of the user in ${PVE_FACTS}`,
    reads: { kinds: ['ServiceMonitor', 'ExternalSecret'], files: ['monitoring/pve-exporter/facts/*'] },
    exemptible: false,
    run(ctx) {
      const facts = (ctx.repo.dataFiles.get(PVE_FACTS)?.data ?? {}) as { user?: string; role?: string; token?: string };
      if (facts.role !== 'PVEAuditor')
        ctx.fail({ file: PVE_FACTS }, `the exporter's user must hold only PVEAuditor, facts say ${JSON.stringify(facts.role ?? null)}`);
      const { monitor, secret, modules } = pveExporter(ctx.resources);
      if (!monitor) {
        ctx.fail({ file: 'monitoring/README.md' }, 'no ServiceMonitor pve-exporter scrapes the hypervisors');
        return;
      }
      const endpoints = objects(dig(monitor.object, ['spec', 'endpoints'])) as { interval?: string; params?: Record<string, string[]> }[];
      const targets = new Set(pveTargets(monitor).map((t) => t.host));
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
      const at = PVE_CONFIG_AT;
      if (!secret || !modules) {
        if (secret) ctx.fail({ resource: secret, path: at }, 'pve.yml is missing or does not parse');
        else ctx.fail({ file: 'monitoring/README.md' }, 'no ExternalSecret pve-exporter renders the exporter config');
        return;
      }
      endpoints.forEach((e, i) => {
        const module = pveModuleAsked(e.params);
        if (!modules.has(module))
          ctx.fail(
            { resource: monitor, path: ['spec', 'endpoints', i, 'params', e.params?.module ? 'module' : 'target'] },
            `the scrape of ${scalarText(e.params?.target?.[0])} asks for module ${JSON.stringify(module)}, which pve.yml does not have (${[...modules.keys()].join(', ')}): the exporter answers 400 "Module not found in config", and the host's metrics stop`,
          );
      });
      for (const m of modules.values()) {
        if ('password' in m) ctx.fail({ resource: secret, path: at }, 'the exporter logs in with a password; use the audit user’s API token');
        if (m.user !== facts.user || m.token_name !== facts.token || !scalarText(m.token_value ?? '').includes('{{'))
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
    reads: { kinds: withKeyProviders('Deployment', 'ServiceMonitor'), files: ['monitoring/unpoller/facts/*'] },
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
      const endpoints = objects(dig(monitor.object, ['spec', 'endpoints'])) as { interval?: string }[];
      endpoints.forEach(
        (e, i) =>
          durationMs(e.interval) !== 30_000 &&
          ctx.fail({ resource: monitor, path: ['spec', 'endpoints', i, 'interval'] }, `the gateway is scraped every ${String(e.interval)}, must be 30s`),
      );
      // Its variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names, its env over them.
      const CONTAINER: Path = ['spec', 'template', 'spec', 'containers', 0];
      const container = obj(dig(deployment.object, CONTAINER));
      const { entries } = containerEnvironment(ctx, namespaceOrDestination(ctx.repo, deployment), container);
      const byName = new Map(entries.map((e) => [String(e.name), e]));
      const at = (name: string): Path => {
        const e = byName.get(name);
        return e ? [...CONTAINER, ...e.at] : [...CONTAINER, 'env'];
      };
      for (const name of ['UP_UNIFI_DEFAULT_USER', 'UP_UNIFI_DEFAULT_PASS']) {
        const e = byName.get(name);
        // An env entry's Secret, or the Secret an envFrom entry names.
        const ref = e && secretKeyOf(container, e)?.secret;
        if (!writtenByExternalSecret(ctx.repo, ref, deployment.namespace))
          ctx.fail({ resource: deployment, path: at(name) }, `${name} must come from a Secret written by an ExternalSecret`);
      }
      if (!byName.get('UP_LOKI_URL')?.value)
        ctx.fail({ resource: deployment, path: at('UP_LOKI_URL') }, 'the gateway system log is not pushed to Loki (UP_LOKI_URL)');
      const interval = byName.get('UP_LOKI_INTERVAL')?.value;
      if (durationMs(typeof interval === 'string' ? interval : undefined) !== 60_000)
        ctx.fail(
          { resource: deployment, path: at('UP_LOKI_INTERVAL') },
          `the system log is pushed every ${typeof interval === 'string' ? interval : '(default)'}, must be 1m`,
        );
    },
  },
];
