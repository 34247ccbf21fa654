/**
 * What the Prometheus operator (v0.93, pkg/prometheus/resource_selector.go) refuses of a ServiceMonitor, a PodMonitor
 * or a Probe when it builds Prometheus's configuration: the first problem it meets, for which it skips the whole
 * object (an event and a metric say so; nothing turns red). Judged here: the label selector, the scrape timeout
 * against the interval, the relabel rules, the scrape class, file access a Prometheus denies, and a Probe's prober
 * URL and static labels, a TLS configuration (TLSConfig.Validate, SafeTLSConfig.Validate) and the keys its Secrets
 * and ConfigMaps must hold where the repository says which keys they hold. Not ported: the rest of the HTTP client's
 * settings (authorization, basic auth, OAuth2, a bearer token Secret, proxy) and the Secrets they name.
 */
import { dig, type Obj } from '../core/dig.ts';
import { labelSelectorError } from '../scheduling/label-syntax.ts';
import { durationMs } from '../core/time.ts';
import { relabelListError, type PrometheusFields } from './relabel.ts';

type Path = (string | number)[];

export type MonitorVerdict = { refused: { path: Path; message: string } } | { notJudged: { path: Path; message: string } } | undefined;

/** The HTTP client's fields whose checks (and the Secrets they read) are not ported. */
const HTTP_CLIENT_FIELDS = ['basicAuth', 'authorization', 'oauth2', 'bearerTokenSecret', 'proxyUrl', 'proxyFromEnvironment', 'proxyConnectHeader', 'noProxy'];

/** The keys a Secret or ConfigMap of the monitor's namespace holds, where the repository says; undefined where it cannot. */
export type KeysOf = (kind: 'Secret' | 'ConfigMap', name: string) => ReadonlySet<string> | undefined;

const isSet = (v: unknown): boolean => v !== undefined && v !== null && !(typeof v === 'object' && Object.keys(v).length === 0);
const textOf = (v: unknown): string => (typeof v === 'string' ? v : '');

/** SecretOrConfigMap's String: how the operator names a reference in its errors. */
function refText(ref: Obj): string {
  const secret = ref.secret as Obj | undefined;
  const configMap = ref.configMap as Obj | undefined;
  if (secret) return `<secret=${textOf(secret.name)},key=${textOf(secret.key)}>`;
  if (configMap) return `<configmap=${textOf(configMap.name)},key=${textOf(configMap.key)}>`;
  return '<empty>';
}

/** TLSConfig.Validate (a ServiceMonitor's, files allowed) or SafeTLSConfig.Validate (a PodMonitor's or a Probe's). */
function tlsProblem(tls: Obj, withFiles: boolean): string | undefined {
  for (const field of ['ca', 'cert'] as const) {
    const ref = tls[field] as Obj | undefined;
    if (ref && isSet(ref) && ref.secret && ref.configMap) return `${field} ${refText(ref)}: cannot specify both Secret and ConfigMap`;
  }
  if (typeof tls.maxVersion === 'string' && typeof tls.minVersion === 'string' && tls.maxVersion < tls.minVersion)
    return 'maxVersion must more than or equal to minVersion';
  if (!withFiles) {
    if (isSet(tls.cert) && !isSet(tls.keySecret)) return 'client cert specified without client key';
    if (isSet(tls.keySecret) && !isSet(tls.cert)) return 'client key specified without client cert';
    return undefined;
  }
  if (isSet(tls.ca) && tls.caFile) return "cannot specify both 'caFile' and 'ca'";
  if (isSet(tls.cert) && tls.certFile) return "cannot specify both 'certFile' and 'cert'";
  if (tls.keyFile && isSet(tls.keySecret)) return "cannot specify both 'keyFile' and 'keySecret'";
  const hasCert = isSet(tls.cert) || Boolean(tls.certFile);
  const hasKey = Boolean(tls.keyFile) || isSet(tls.keySecret);
  if (hasCert && !hasKey) return 'cannot specify client cert without client key';
  if (hasKey && !hasCert) return 'cannot specify client key without client cert';
  return undefined;
}

/**
 * The store's reads of a TLS configuration's Secrets and ConfigMaps (AddTLSConfig): each key must be there. A refusal
 * where the repository says the keys and the key is missing, not judged where it cannot say, else nothing.
 */
function tlsKeys(tls: Obj, at: Path, keysOf: KeysOf): MonitorVerdict {
  const refs: { kind: 'Secret' | 'ConfigMap'; ref: Obj; path: Path }[] = [];
  for (const field of ['ca', 'cert'] as const)
    for (const [kind, key] of [
      ['Secret', 'secret'],
      ['ConfigMap', 'configMap'],
    ] as const) {
      const ref = dig(tls, [field, key]) as Obj | undefined;
      if (ref) refs.push({ kind, ref, path: [...at, field, key] });
    }
  if (isSet(tls.keySecret)) refs.push({ kind: 'Secret', ref: tls.keySecret as Obj, path: [...at, 'keySecret'] });
  let unknown: MonitorVerdict;
  for (const { kind, ref, path } of refs) {
    const [name, key] = [textOf(ref.name), textOf(ref.key)];
    const keys = keysOf(kind, name);
    if (keys === undefined)
      unknown ??= { notJudged: { path, message: `whether ${kind} ${name} holds key ${key}, which the operator reads, is not known here` } };
    else if (!keys.has(key))
      return {
        refused: { path, message: `tlsConfig: key ${JSON.stringify(key)} in ${kind === 'Secret' ? 'secret' : 'configmap'} ${JSON.stringify(name)} not found` },
      };
  }
  return unknown;
}

/** Prometheus's model.ParseDuration, in ms: its units, `0`; NaN where it does not parse. */
const promDuration = (text: string): number => (text === '0' ? 0 : durationMs(text));

/** CompareScrapeTimeoutToScrapeInterval, the interval defaulted to the Prometheus's. */
function timeoutProblem(endpoint: Obj, prometheus: PrometheusFields): string | undefined {
  const timeout = typeof endpoint.scrapeTimeout === 'string' ? endpoint.scrapeTimeout : '';
  if (timeout === '') return undefined;
  const interval = typeof endpoint.interval === 'string' && endpoint.interval !== '' ? endpoint.interval : prometheus.scrapeInterval;
  if (Number.isNaN(promDuration(interval))) return `invalid scrapeInterval ${JSON.stringify(interval)}`;
  if (Number.isNaN(promDuration(timeout))) return `invalid scrapeTimeout: ${JSON.stringify(timeout)}`;
  return promDuration(timeout) > promDuration(interval)
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
  const client = HTTP_CLIENT_FIELDS.find((f) => endpoint[f] !== undefined && endpoint[f] !== null);
  const tls = (endpoint.tlsConfig ?? undefined) as Obj | undefined;
  const tlsBad = tls && tlsProblem(tls, kind === 'ServiceMonitor');
  if (tlsBad) return refuse(['tlsConfig'], `tlsConfig: ${tlsBad}`);
  const keys = tls ? tlsKeys(tls, [...at, 'tlsConfig'], env.keysOf) : undefined;
  if (keys && 'refused' in keys) return refuse(keys.refused.path.slice(at.length), keys.refused.message);
  const timeout = timeoutProblem(endpoint, prometheus);
  if (timeout) return refuse(['scrapeTimeout'], timeout);
  for (const field of ['relabelings', 'metricRelabelings'] as const) {
    const bad = relabelListError(endpoint[field], prometheus.version);
    if (bad) return refuse([field, ...bad.path], `${field === 'relabelings' ? 'relabelConfigs' : 'metricRelabelConfigs'}: ${bad.message}`);
  }
  return client ? { notJudged: { path: [...at, client], message: `the operator's checks of ${client} (and the Secrets it names) are not ported` } } : keys;
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
  const tls = (spec.tlsConfig ?? undefined) as Obj | undefined;
  const tlsBad = tls && tlsProblem(tls, false);
  if (tlsBad) return refuse(['tlsConfig'], `tlsConfig: ${tlsBad}`);
  const keys = tls ? tlsKeys(tls, ['spec', 'tlsConfig'], env.keysOf) : undefined;
  if (keys && 'refused' in keys) return keys;
  const url = dig(spec, ['prober', 'url']);
  const urlProblem = typeof url === 'string' ? proberUrlProblem(url) : undefined;
  if (urlProblem)
    return refuse(
      ['prober', 'url'],
      `${JSON.stringify(url)} url specified in proberSpec is invalid, it should be of the format \`hostname\` or \`hostname:port\`: ${urlProblem}`,
    );
  const client = HTTP_CLIENT_FIELDS.find((f) => spec[f] !== undefined && spec[f] !== null);
  return client ? { notJudged: { path: ['spec', client], message: `the operator's checks of ${client} (and the Secrets it names) are not ported` } } : keys;
}

/**
 * What the operator makes of a monitor of `kind` for a Prometheus with `prometheus`'s fields, the Secrets and
 * ConfigMaps of its namespace known by `keysOf`: refused, not judged, or fine.
 */
export function monitorVerdict(kind: string, spec: Obj, env: { prometheus: PrometheusFields; keysOf: KeysOf }): MonitorVerdict {
  const { prometheus } = env;
  const scrapeClass = typeof spec.scrapeClassName === 'string' && spec.scrapeClassName !== '' ? spec.scrapeClassName : undefined;
  if (kind === 'Probe') {
    if (scrapeClass && !prometheus.scrapeClasses.includes(scrapeClass))
      return {
        refused: {
          path: ['spec', 'scrapeClassName'],
          message: `scrapeClassName: scrapeClass ${JSON.stringify(scrapeClass)} not found in Prometheus scrapeClasses`,
        },
      };
    return probeVerdict(spec, env);
  }
  const selectorError = labelSelectorError(spec.selector ?? {});
  if (selectorError) return { refused: { path: ['spec', 'selector'], message: selectorError } };
  const field = kind === 'PodMonitor' ? 'podMetricsEndpoints' : 'endpoints';
  let notJudged: MonitorVerdict;
  for (const [i, endpoint] of ((spec[field] ?? []) as Obj[]).entries()) {
    const verdict = endpointVerdict(endpoint ?? {}, ['spec', field, i], kind, env);
    if (verdict && 'refused' in verdict) return verdict;
    notJudged ??= verdict;
  }
  if (scrapeClass && !prometheus.scrapeClasses.includes(scrapeClass))
    return {
      refused: {
        path: ['spec', 'scrapeClassName'],
        message: `scrapeClassName: scrapeClass ${JSON.stringify(scrapeClass)} not found in Prometheus scrapeClasses`,
      },
    };
  return notJudged;
}
