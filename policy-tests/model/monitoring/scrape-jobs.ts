/**
 * The scrape jobs a monitor resource makes, as the Prometheus operator makes
 * them: the job name (relabelling that sets `job` honoured), the interval,
 * the target labels and the metrics path of each endpoint, from the Services
 * it selects.
 */
import { applicationsByName } from '../argocd/argocd.ts';
import { dig, list, obj, type Obj } from '../core/dig.ts';
import { durationMs } from '../core/time.ts';
import { selectorIndex } from '../core/label-selector.ts';
import type { Resource } from '../core/manifest.ts';
import { scalarText } from '../core/text.ts';
import { goExpand, prometheusRegex } from '../core/re2.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

/** kube-prometheus-stack's scrape interval when neither the monitor nor the values set one. */
export const DEFAULT_SCRAPE_INTERVAL = '30s';
/** Labels the Prometheus operator gives every target of a ServiceMonitor or PodMonitor. */
export const MONITOR_TARGET_LABELS = ['job', 'instance', 'namespace', 'service', 'pod', 'container', 'endpoint'];
const PROBE_TARGET_LABELS = ['job', 'instance'];

/** Where a resource lands: its own namespace, or (rendered without one) its Application's destination, as Argo CD applies it. */
export type NamespaceOf = (r: Resource) => string | undefined;
const ownNamespace: NamespaceOf = (r) => r.namespace;

export const namespaceIn = perRepo((repo: Repo): NamespaceOf => {
  const apps = applicationsByName(repo);
  return (r) => r.namespace ?? (r.rendered ? apps.get(r.rendered.app)?.destinationNamespace : undefined);
});

export const monitorId = (r: Resource, namespaceOf: NamespaceOf = ownNamespace) => `${r.kind}/${namespaceOf(r) ?? ''}/${r.name}`;

/** A scrape interval in ms; unset or malformed falls back to the default (a malformed one is the schema's to report). */
export function intervalMs(value: unknown): number {
  const ms = durationMs(value ?? DEFAULT_SCRAPE_INTERVAL);
  return Number.isNaN(ms) ? durationMs(DEFAULT_SCRAPE_INTERVAL) : ms;
}

/** A Service a monitor may select: one in this repository, or one the cluster keeps without a manifest. */
export interface ServiceView {
  name: string;
  namespace: string | undefined;
  labels: Record<string, unknown>;
}

/**
 * Services that exist in every cluster like this one though no manifest here
 * declares them, so a monitor selecting them gets the job the operator gives
 * it: the API server's own Service, and the kubelet Service the Prometheus
 * operator keeps (kube-prometheus-stack runs it with
 * --kubelet-service=kube-system/<release>-kubelet; the labels are the operator's).
 */
export const SERVICES_OUTSIDE_GIT: readonly ServiceView[] = [
  { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
  {
    name: 'kube-prometheus-stack-kubelet',
    namespace: 'kube-system',
    labels: { 'k8s-app': 'kubelet', 'app.kubernetes.io/name': 'kubelet', 'app.kubernetes.io/managed-by': 'prometheus-operator' },
  },
];

export const serviceViews = (services: readonly Resource[], namespaceOf: NamespaceOf = ownNamespace): ServiceView[] => [
  ...services.map((s) => ({ name: s.name, namespace: namespaceOf(s), labels: obj(dig(s.object, ['metadata', 'labels'])) })),
  ...SERVICES_OUTSIDE_GIT,
];

export interface MonitorJob {
  job: string;
  intervalMs: number;
  targetLabels: string[];
  /** The endpoint's metrics path (a ServiceMonitor or PodMonitor endpoint; a Probe has none). */
  path?: string;
}

/** The job names, intervals and extra target labels of one monitor resource. */
export function monitorJobs(monitor: Resource, services: readonly ServiceView[], namespaceOf: NamespaceOf = ownNamespace): MonitorJob[] {
  const spec = obj(monitor.object.spec);
  const interval = intervalMs;
  const relabelTargets = (relabelings: unknown) =>
    list(relabelings)
      .map(obj)
      .filter((r) => typeof r.targetLabel === 'string');
  const relabelledJob = (relabelings: unknown, job = '') => relabelJob(relabelTargets(relabelings), job);
  const extraLabels = (relabelings: unknown) => relabelTargets(relabelings).map((r) => String(r.targetLabel));
  if (monitor.kind === 'Probe') {
    const staticLabels = Object.keys(obj(dig(spec, ['targets', 'staticConfig', 'labels'])));
    const job =
      relabelledJob(dig(spec, ['targets', 'staticConfig', 'relabelingConfigs'])) ??
      (typeof spec.jobName === 'string' ? spec.jobName : `probe/${namespaceOf(monitor) ?? ''}/${monitor.name}`);
    return [
      {
        job,
        intervalMs: interval(spec.interval),
        targetLabels: [...PROBE_TARGET_LABELS, ...staticLabels, ...extraLabels(dig(spec, ['targets', 'staticConfig', 'relabelingConfigs']))],
      },
    ];
  }
  const endpoints = list(monitor.kind === 'PodMonitor' ? spec.podMetricsEndpoints : spec.endpoints).map(obj);
  return endpoints.flatMap((endpoint) => {
    // The operator writes metrics_path only for a non-empty path; Prometheus scrapes /metrics otherwise.
    const path = typeof endpoint.path === 'string' && endpoint.path !== '' ? endpoint.path : '/metrics';
    // Relabelling starts from the job the operator gives each target, so `replacement: "<ns>/$1"` over `job` keeps it.
    const jobs = [...new Set(defaultJobs(monitor, spec, services, namespaceOf).map((job) => relabelledJob(endpoint.relabelings, job) ?? job))];
    return jobs.map((job) => ({
      job,
      intervalMs: interval(endpoint.interval),
      targetLabels: [...MONITOR_TARGET_LABELS, ...extraLabels(endpoint.relabelings)],
      path,
    }));
  });
}

/**
 * The job after the relabel rules that write it, as Prometheus applies a `replace` rule: the source labels
 * joined by the separator, matched whole by the regex (default `(.*)`) as Prometheus compiles it (Go's RE2, `.`
 * matching a newline), and the replacement (default `$1`) expanded as Go's regexp.Expand expands it (`$1x` is the
 * group named `1x`, none, so empty); no match leaves the label as it was. Only `job` is known here,
 * so another source label reads as empty. Undefined when no rule writes `job`.
 */
export function relabelJob(rules: readonly Record<string, unknown>[], job: string): string | undefined {
  let current: string | undefined;
  for (const rule of rules) {
    if (rule.targetLabel !== 'job' || (rule.action !== undefined && scalarText(rule.action).toLowerCase() !== 'replace')) continue;
    const sources = list(rule.sourceLabels).map(String);
    const value = sources.map((l) => (l === 'job' ? (current ?? job) : '')).join(typeof rule.separator === 'string' ? rule.separator : ';');
    let match: ReturnType<ReturnType<typeof prometheusRegex>['matcher']>;
    try {
      match = prometheusRegex(typeof rule.regex === 'string' ? rule.regex : '(.*)').matcher(value);
    } catch {
      continue; // a regex Go cannot compile: Prometheus refuses the config, and the rule is not followed here
    }
    if (!match.matches()) continue;
    const replacement = typeof rule.replacement === 'string' ? rule.replacement : '$1';
    const found = match;
    current = goExpand(replacement, (name) => {
      // A name of at most nine digits, without a leading zero, is a group's number; any other a group's name.
      const index = /^(?:0|[1-9]\d{0,8})$/.test(name) ? Number(name) : undefined;
      try {
        return (index === undefined ? found.group(name) : index <= found.groupCount() ? found.group(index) : undefined) ?? '';
      } catch {
        return '';
      }
    });
  }
  return current;
}

/** The Services a selector matches, indexed once per list of them (selectorIndex). */
const serviceIndexes = new WeakMap<readonly ServiceView[], (selector: Obj | undefined) => ServiceView[]>();

/** Without relabelling, per selected Service: its jobLabel value or its name (ServiceMonitor); `<namespace>/<name>` (PodMonitor). */
function defaultJobs(monitor: Resource, spec: Obj, services: readonly ServiceView[], namespaceOf: NamespaceOf): string[] {
  if (monitor.kind === 'PodMonitor') return [`${namespaceOf(monitor) ?? ''}/${monitor.name}`];
  const namespaces = list(dig(spec, ['namespaceSelector', 'matchNames'])).map(String);
  let matching = serviceIndexes.get(services);
  if (!matching) serviceIndexes.set(services, (matching = selectorIndex(services, (s) => s.labels)));
  const matched = matching(obj(spec.selector)).filter((s) =>
    namespaces.length ? namespaces.includes(s.namespace ?? '') : s.namespace === namespaceOf(monitor),
  );
  if (matched.length === 0) return [monitor.name];
  return [
    ...new Set(
      matched.map((m) => {
        const jobLabel = typeof spec.jobLabel === 'string' ? m.labels[spec.jobLabel] : undefined;
        return typeof jobLabel === 'string' ? jobLabel : m.name;
      }),
    ),
  ];
}
