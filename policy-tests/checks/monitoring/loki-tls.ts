/**
 * monitoring-loki-config: a Loki whose server takes TLS (its rendered config.yaml's `server.http_tls_config` names a
 * certificate) reads each file that block names at start (dskit's server: the certificate, its key, the client CA),
 * and stops at start on one its container does not hold; and its HTTP listener then answers only TLS, so a kubelet
 * probe of that port in plain HTTP gets Go's 400 and fails, as one in HTTPS to a plain listener fails its handshake.
 * The API server and Argo CD take both, and no log is stored.
 */
import { dig, obj, objects } from '../../model/core/dig.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { containerPort, type ContainerRef } from '../../model/core/workloads.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { renderedByChart } from '../../model/helm/chart-output.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { LOKI_CHART, lokiContainers } from '../../model/loki/config.ts';

const TLS_FILES = ['cert_file', 'key_file', 'client_ca_file'];
const PROBES = ['startupProbe', 'livenessProbe', 'readinessProbe'];
/** dskit's server default for http_listen_port. */
const DEFAULT_HTTP_PORT = 3100;

/** Judges the Loki containers of `app` against the server block of their config.yaml. */
export function judgeLokiTls(ctx: CheckContext, app: string, server: unknown): void {
  const files = TLS_FILES.map((key) => [key, dig(server, ['http_tls_config', key])] as const).filter(([, f]) => typeof f === 'string' && f.trim() !== '');
  const tls = files.some(([key]) => key === 'cert_file');
  const listen = dig(server, ['http_listen_port']);
  const port = typeof listen === 'number' ? listen : DEFAULT_HTTP_PORT;
  const containers = lokiContainers(ctx.resources, app);
  judgeScrapes(
    ctx,
    { app, port, tls },
    containers.map(({ c }) => c),
  );
  for (const { resource, pod, c } of containers) {
    if (tls) for (const [key, file] of files) missingFile(ctx, { resource, spec: pod.spec, container: c.container, at: c.at }, key, String(file));
    for (const probe of PROBES) {
      const get = dig(c.container, [probe, 'httpGet']);
      if (get === undefined) continue;
      if (containerPort(c, dig(get, ['port'])) !== port) continue;
      const https = scalarText(dig(get, ['scheme']) ?? 'HTTP').toUpperCase() === 'HTTPS';
      if (https !== tls)
        ctx.fail(
          { resource, path: [...c.at, probe, 'httpGet'] },
          tls
            ? `container ${c.name}'s ${probe} asks Loki's HTTP port ${port} in plain HTTP, and its server takes TLS only (http_tls_config names a certificate): Go's TLS server answers 400, and the probe always fails`
            : `container ${c.name}'s ${probe} speaks HTTPS to Loki's HTTP port ${port}, which serves plain HTTP (no http_tls_config certificate): every handshake fails, and the probe always fails`,
          tls ? 'give the probe scheme: HTTPS' : 'leave the probe its scheme HTTP',
        );
    }
  }
}

function missingFile(
  ctx: CheckContext,
  o: { resource: Resource; spec: unknown; container: Record<string, unknown>; at: (string | number)[] },
  key: string,
  file: string,
): void {
  // -config.expand-env: a ${VAR} in the path is the environment's, not read here.
  if (file.includes('${')) return;
  const source = mountedFile(ctx, { spec: o.spec, namespace: namespaceOrDestination(ctx.repo, o.resource) }, o.container, file);
  const problem = source.on === 'image' ? `no volume of the container provides ${file}` : 'problem' in source ? source.problem : undefined;
  if (problem)
    ctx.fail(
      { resource: o.resource, path: [...o.at, 'volumeMounts'] },
      `Loki's server.http_tls_config.${key} is ${file}, and ${problem}: Loki cannot read it at start and stops, and no log is stored`,
      'mount the Secret that holds the certificate and its key where http_tls_config names them',
    );
}

/**
 * The chart's ServiceMonitor scrapes Loki's HTTP port in the scheme its endpoint says (`scheme`, http unless set): in
 * plain HTTP a TLS server answers 400, and in HTTPS a plain one fails the handshake; either way `up` is 0 for Loki.
 */
function judgeScrapes(ctx: CheckContext, o: { app: string; port: number; tls: boolean }, containers: readonly ContainerRef[]): void {
  const own = ctx.resources.filter((r) => r.rendered?.app === o.app && renderedByChart(r, LOKI_CHART));
  for (const monitor of own.filter((r) => r.kind === 'ServiceMonitor')) {
    const selector = dig(monitor.object, ['spec', 'selector']);
    const services = own.filter((s) => s.kind === 'Service' && selectorMatches(obj(selector), obj(dig(s.object, ['metadata', 'labels']))));
    objects(dig(monitor.object, ['spec', 'endpoints'])).forEach((endpoint, i) => {
      const reaches = services.some((s) =>
        objects(dig(s.object, ['spec', 'ports'])).some(
          (p) => p.name === endpoint.port && containers.some((c) => containerPort(c, p.targetPort ?? p.port) === o.port),
        ),
      );
      if (!reaches || (scalarText(endpoint.scheme ?? 'http').toLowerCase() === 'https') === o.tls) return;
      ctx.fail(
        { resource: monitor, path: ['spec', 'endpoints', i] },
        o.tls
          ? `ServiceMonitor ${monitor.name} scrapes Loki's HTTP port ${o.port} in plain HTTP, and its server takes TLS only (http_tls_config names a certificate): every scrape is answered 400, and up is 0 for Loki`
          : `ServiceMonitor ${monitor.name} scrapes Loki's HTTP port ${o.port} in HTTPS, which serves plain HTTP: every scrape fails its handshake, and up is 0 for Loki`,
        o.tls
          ? 'give the endpoint scheme: https and the tlsConfig that trusts the certificate (monitoring.serviceMonitor in the values)'
          : 'leave the endpoint its scheme http',
      );
    });
  }
}
