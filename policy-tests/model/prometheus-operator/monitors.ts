/**
 * What the Prometheus operator (v0.93, pkg/prometheus/resource_selector.go) refuses of a ServiceMonitor, a PodMonitor
 * or a Probe when it builds Prometheus's configuration: the first problem it meets, for which it skips the whole
 * object (an event and a metric say so; nothing turns red). Judged here: the label selector, the scrape timeout
 * against the interval, the relabel rules, the scrape class, file access a Prometheus denies, and a Probe's prober
 * URL and static labels, and the HTTP client's settings with the Secret and ConfigMap keys they name
 * (http-client.ts).
 */
import { dig, list, type Obj } from '../core/dig.ts';
import { labelSelectorError } from '../scheduling/label-syntax.ts';
import { durationMs } from '../core/time.ts';
import { relabelListError, type PrometheusFields } from './relabel.ts';
import { clientProblem, clientReads, type KeysOf } from './http-client.ts';

type Path = (string | number)[];

export type MonitorVerdict = { refused: { path: Path; message: string } } | { notJudged: { path: Path; message: string } } | undefined;

/** CompareScrapeTimeoutToScrapeInterval, the interval defaulted to the Prometheus's. */
function timeoutProblem(endpoint: Obj, prometheus: PrometheusFields): string | undefined {
  const timeout = typeof endpoint.scrapeTimeout === 'string' ? endpoint.scrapeTimeout : '';
  if (timeout === '') return undefined;
  const interval = typeof endpoint.interval === 'string' && endpoint.interval !== '' ? endpoint.interval : prometheus.scrapeInterval;
  if (Number.isNaN(durationMs(interval))) return `invalid scrapeInterval ${JSON.stringify(interval)}`;
  if (Number.isNaN(durationMs(timeout))) return `invalid scrapeTimeout: ${JSON.stringify(timeout)}`;
  return durationMs(timeout) > durationMs(interval)
    ? `scrapeTimeout ${JSON.stringify(timeout)} greater than scrapeInterval ${JSON.stringify(interval)}`
    : undefined;
}

/** One endpoint of a ServiceMonitor or PodMonitor, in checkServiceMonitor's order. */
function endpointVerdict(endpoint: Obj, at: Path, kind: string, env: { prometheus: PrometheusFields; keysOf: KeysOf }): MonitorVerdict {
  const { prometheus } = env;
  const refuse = (path: Path, message: string): MonitorVerdict => ({ refused: { path: [...at, ...path], message: `${at.slice(-2).join('[')}]: ${message}` } });
  if (kind === 'ServiceMonitor' && prometheus.denyFileAccess) {
    if (endpoint.bearerTokenFile) return refuse(['bearerTokenFile'], 'it accesses file system via bearer token file which Prometheus specification prohibits');
    const tls = (endpoint.tlsConfig ?? {}) as Obj;
    if (tls.caFile || tls.certFile || tls.keyFile)
      return refuse(['tlsConfig'], 'it accesses file system via tls config which Prometheus specification prohibits');
  }
  const client = clientProblem(endpoint, kind === 'ServiceMonitor');
  if (client) return refuse([client.field], client.message);
  const keys = clientReads(endpoint, at, env.keysOf);
  if (keys && 'refused' in keys) return refuse(keys.refused.path.slice(at.length), keys.refused.message);
  const timeout = timeoutProblem(endpoint, prometheus);
  if (timeout) return refuse(['scrapeTimeout'], timeout);
  for (const field of ['relabelings', 'metricRelabelings'] as const) {
    const bad = relabelListError(endpoint[field], prometheus.version);
    if (bad) return refuse([field, ...bad.path], `${field === 'relabelings' ? 'relabelConfigs' : 'metricRelabelConfigs'}: ${bad.message}`);
  }
  return keys;
}

/** validateProberURL: `host` or `host:port`, with no scheme. */
function proberUrlProblem(url: string): string | undefined {
  const at = url.lastIndexOf(':');
  const [host, port] = at > -1 && !url.slice(at + 1).includes(']') ? [url.slice(0, at), url.slice(at + 1)] : [url, undefined];
  if (host === '' || /[/\s]/.test(host)) return `invalid host: ${JSON.stringify(url)}`;
  if (port !== undefined && !/^\d+$/.test(port)) return `invalid port: ${JSON.stringify(port)}`;
  return undefined;
}

function probeVerdict(spec: Obj, env: { prometheus: PrometheusFields; keysOf: KeysOf }): MonitorVerdict {
  const { prometheus } = env;
  const refuse = (path: Path, message: string): MonitorVerdict => ({ refused: { path: ['spec', ...path], message } });
  const metric = relabelListError(spec.metricRelabelings, prometheus.version);
  if (metric) return refuse(['metricRelabelings', ...metric.path], `metricRelabelConfigs: ${metric.message}`);
  const statics = (dig(spec, ['targets', 'staticConfig']) ?? undefined) as Obj | undefined;
  for (const name of Object.keys((statics?.labels ?? {}) as Obj))
    if (prometheus.version[0] < 3 ? !/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(name) : name === '')
      return refuse(['targets', 'staticConfig', 'labels', name], `targets.staticConfig.labels: invalid label ${JSON.stringify(name)}`);
  for (const [at, field] of [
    [['targets', 'staticConfig'], 'targets.staticConfig.relabelConfigs'],
    [['targets', 'ingress'], 'targets.ingress.relabelConfigs'],
  ] as const) {
    const bad = relabelListError(dig(spec, [...at, 'relabelingConfigs']), prometheus.version);
    if (bad) return refuse([...at, 'relabelingConfigs', ...bad.path], `${field}: ${bad.message}`);
  }
  const client = clientProblem(spec, false);
  if (client) return refuse([client.field], client.message);
  const keys = clientReads(spec, ['spec'], env.keysOf);
  if (keys && 'refused' in keys) return keys;
  // A Probe without a prober has Go's empty URL, which validateProberURL refuses as an invalid host.
  const url = dig(spec, ['prober', 'url']) ?? '';
  const urlProblem = typeof url === 'string' ? proberUrlProblem(url) : undefined;
  if (urlProblem)
    return refuse(
      dig(spec, ['prober']) === undefined ? [] : ['prober', 'url'],
      `${JSON.stringify(url)} url specified in proberSpec is invalid, it should be of the format \`hostname\` or \`hostname:port\`: ${urlProblem}`,
    );
  return keys;
}

/**
 * What the operator makes of a monitor of `kind` for a Prometheus with `prometheus`'s fields, the Secrets and
 * ConfigMaps of its namespace known by `keysOf`: refused, not judged, or fine.
 */
export function monitorVerdict(kind: string, spec: Obj, env: { prometheus: PrometheusFields; keysOf: KeysOf }): MonitorVerdict {
  // validateScrapeClass: a Probe's first check, a monitor's last.
  const scrapeClass = scrapeClassRefusal(spec, env.prometheus);
  if (kind === 'Probe') return scrapeClass ?? probeVerdict(spec, env);
  const selectorError = labelSelectorError(spec.selector ?? {});
  if (selectorError) return { refused: { path: ['spec', 'selector'], message: selectorError } };
  const field = kind === 'PodMonitor' ? 'podMetricsEndpoints' : 'endpoints';
  let notJudged: MonitorVerdict;
  for (const [i, endpoint] of (list(spec[field]) as Obj[]).entries()) {
    const verdict = endpointVerdict(endpoint ?? {}, ['spec', field, i], kind, env);
    if (verdict && 'refused' in verdict) return verdict;
    notJudged ??= verdict;
  }
  return scrapeClass ?? notJudged;
}

/** validateScrapeClass: a scrape class the Prometheus declares, where the monitor names one. */
function scrapeClassRefusal(spec: Obj, prometheus: PrometheusFields): MonitorVerdict {
  const name = typeof spec.scrapeClassName === 'string' ? spec.scrapeClassName : '';
  if (name === '' || prometheus.scrapeClasses.includes(name)) return undefined;
  return {
    refused: { path: ['spec', 'scrapeClassName'], message: `scrapeClassName: scrapeClass ${JSON.stringify(name)} not found in Prometheus scrapeClasses` },
  };
}
