/**
 * The metrics catalog (monitoring/metrics-catalog/): what each scraped
 * exporter exposes at its pinned version, and the scrape jobs that carry it.
 * A job's name, interval and target labels come from the monitor resource
 * the entry names (relabelling that sets `job` honoured), or, for monitors a
 * chart makes, from the entry's own declaration.
 */
import type { Repo, DataFile } from '../repository/repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { dig } from '../core/dig.ts';
import { durationMs } from '../core/durations.ts';
import { perRepo } from '../repository/per-repo.ts';
import { perKey, perPair } from '../core/per-object.ts';
import { applicationsByName } from '../argocd/argocd.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { extractAll, isExtractor } from './metrics-extract.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scalarText } from '../core/text.ts';

export const CATALOG_DIR = 'monitoring/metrics-catalog/';
export const CATALOG_EXEMPTIONS = `${CATALOG_DIR}exemptions.yaml`;
/** source.repository of an entry read from this repository's own code. */
export const THIS_REPOSITORY = '.';
/** kube-prometheus-stack's scrape interval when neither the monitor nor the values set one. */
export const DEFAULT_SCRAPE_INTERVAL = '30s';
export const MONITOR_KINDS = ['ServiceMonitor', 'PodMonitor', 'Probe', 'ScrapeConfig'] as const;
/** Labels the Prometheus operator gives every target of a ServiceMonitor or PodMonitor. */
const MONITOR_TARGET_LABELS = ['job', 'instance', 'namespace', 'service', 'pod', 'container', 'endpoint'];
const PROBE_TARGET_LABELS = ['job', 'instance'];

export interface Pin {
  image?: string;
  chart?: string;
  version?: string;
  file?: string;
  contains?: string;
  /** This repository's own code: the entry is stale when its metrics differ from what the code declares. */
  code?: string;
}

export interface CatalogEntry {
  file: string;
  data: DataFile;
  exporter: string;
  version: string;
  pin: Pin;
  source: { repository?: string; ref?: string; files?: string[]; extract?: string };
  metrics: Record<string, string[]>;
  /** For an entry read from this repository's code (pin.code): how the code now differs from it, if it does. */
  codeDrift?: string;
}

export interface ScrapeJob {
  job: string;
  intervalMs: number;
  /** Labels every series of the job carries besides the metric's own. */
  targetLabels: string[];
  /** Metric name to labels, with the entry's placeholders ({app}, {prefix}) filled in. */
  metrics: Map<string, string[]>;
  /** Where the job comes from: `ServiceMonitor/media/exportarr-sonarr` or `chart volsync`. */
  source: string;
  entry: CatalogEntry;
}

export interface CatalogProblem {
  data: DataFile;
  path: Path;
  message: string;
}

export interface Exemption {
  pattern: RegExp;
  text: string;
  reason: string;
  index: number;
}

/** A monitor no rule or dashboard reads, and why it needs no entry. */
export interface MonitorExemption {
  monitor: string;
  reason: string;
  index: number;
}

export interface MetricsCatalog {
  entries: CatalogEntry[];
  jobs: ScrapeJob[];
  exemptions: Exemption[];
  monitorExemptions: MonitorExemption[];
  exemptionsFile?: DataFile;
  /** Monitor resources (plain, in this repository) that some entry names. */
  coveredMonitors: Set<string>;
  problems: CatalogProblem[];
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Where a resource lands: its own namespace, or (rendered without one) its Application's destination, as Argo CD applies it. */
export type NamespaceOf = (r: Resource) => string | undefined;
const ownNamespace: NamespaceOf = (r) => r.namespace;

export const namespaceIn = perRepo((repo: Repo): NamespaceOf => {
  const apps = applicationsByName(repo);
  return (r) => r.namespace ?? (r.rendered ? apps.get(r.rendered.app)?.destinationNamespace : undefined);
});

export const monitorId = (r: Resource, namespaceOf: NamespaceOf = ownNamespace) => `${r.kind}/${namespaceOf(r) ?? ''}/${r.name}`;

/** A regex matched whole, as PromQL matches label values. */
export const fullMatch = (source: string): RegExp => new RegExp(`^(?:${source})$`);

/** A PromQL matcher's regex, compiled once per source; undefined when it does not compile (not judged). */
const matchers = new Map<string, RegExp | undefined>();
export function safeFullMatch(source: string): RegExp | undefined {
  if (!matchers.has(source)) {
    let re: RegExp | undefined;
    try {
      re = fullMatch(source);
    } catch {
      re = undefined;
    }
    matchers.set(source, re);
  }
  return matchers.get(source);
}

/** A scrape interval in ms; unset or malformed falls back to the default (a malformed one is the schema's to report). */
function intervalMs(value: unknown): number {
  const ms = durationMs(value ?? DEFAULT_SCRAPE_INTERVAL);
  return Number.isNaN(ms) ? durationMs(DEFAULT_SCRAPE_INTERVAL) : ms;
}

function fill(name: string, params: Record<string, string>): string {
  return name.replace(/\{(\w+)\}/g, (whole, key: string) => params[key] ?? whole);
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
    const path = typeof endpoint.path === 'string' ? endpoint.path : '/metrics';
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
 * joined by the separator, matched whole by the regex (default `(.*)`), and the replacement (default `$1`) with
 * its `$n` and `${n}` filled from the match; no match leaves the label as it was. Only `job` is known here,
 * so another source label reads as empty. Undefined when no rule writes `job`.
 */
export function relabelJob(rules: readonly Record<string, unknown>[], job: string): string | undefined {
  let current: string | undefined;
  for (const rule of rules) {
    if (rule.targetLabel !== 'job' || (rule.action !== undefined && scalarText(rule.action).toLowerCase() !== 'replace')) continue;
    const sources = list(rule.sourceLabels).map(String);
    const value = sources.map((l) => (l === 'job' ? (current ?? job) : '')).join(typeof rule.separator === 'string' ? rule.separator : ';');
    let match: RegExpExecArray | null;
    try {
      match = new RegExp(`^(?:${typeof rule.regex === 'string' ? rule.regex : '(.*)'})$`).exec(value);
    } catch {
      continue; // a regex JavaScript cannot compile: the rule is not followed
    }
    if (!match) continue;
    const replacement = typeof rule.replacement === 'string' ? rule.replacement : '$1';
    current = replacement.replace(/\$(?:\{(\d+)\}|(\d+))/g, (_, a: string | undefined, b: string | undefined) => match[Number(a ?? b)] ?? '');
  }
  return current;
}

/** Without relabelling, per selected Service: its jobLabel value or its name (ServiceMonitor); `<namespace>/<name>` (PodMonitor). */
function defaultJobs(monitor: Resource, spec: Obj, services: readonly ServiceView[], namespaceOf: NamespaceOf): string[] {
  if (monitor.kind === 'PodMonitor') return [`${namespaceOf(monitor) ?? ''}/${monitor.name}`];
  const namespaces = list(dig(spec, ['namespaceSelector', 'matchNames'])).map(String);
  const matched = services.filter((s) => {
    const inNamespace = namespaces.length ? namespaces.includes(s.namespace ?? '') : s.namespace === namespaceOf(monitor);
    return inNamespace && selectorMatches(obj(spec.selector), s.labels);
  });
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

/** An entry as its file says, by parsed file: a file unchanged since the last view is the same DataFile object (model/repository/repo.ts). */
const entries = new WeakMap<DataFile, { entry?: CatalogEntry; problems: CatalogProblem[] }>();

function toEntry(root: string, data: DataFile, problems: CatalogProblem[]): CatalogEntry | undefined {
  let known = entries.get(data);
  if (!known) {
    const own: CatalogProblem[] = [];
    known = { entry: entryOf(data, own), problems: own };
    entries.set(data, known);
  }
  problems.push(...known.problems);
  // The code an entry is read from lies outside the file: judged on every view.
  return known.entry && { ...known.entry, codeDrift: codeDrift(root, known.entry) };
}

function entryOf(data: DataFile, problems: CatalogProblem[]): CatalogEntry | undefined {
  const raw = obj(data.data);
  const need = (key: string) => {
    if (typeof raw[key] !== 'string' || raw[key] === '') problems.push({ data, path: [key], message: `catalog entry has no ${key}` });
  };
  need('exporter');
  need('version');
  const source = obj(raw.source);
  if (typeof source.repository !== 'string' || typeof source.ref !== 'string' || list(source.files).length === 0) {
    problems.push({ data, path: ['source'], message: 'catalog entry must name its source: repository, ref and the files read' });
  }
  if (Object.keys(obj(raw.pin)).length === 0)
    problems.push({ data, path: ['exporter'], message: 'catalog entry has no pin: say where the repository pins this version (image, chart or file)' });
  if (Object.keys(obj(raw.metrics)).length === 0) problems.push({ data, path: ['metrics'], message: 'catalog entry lists no metrics' });
  if (typeof raw.exporter !== 'string' || typeof raw.version !== 'string') return undefined;
  const metrics = Object.fromEntries(Object.entries(obj(raw.metrics)).map(([name, labels]) => [name, list(labels).map(String)]));
  const entry: CatalogEntry = {
    file: data.file,
    data,
    exporter: raw.exporter,
    version: raw.version,
    pin: obj(raw.pin) as Pin,
    source: source as CatalogEntry['source'],
    metrics,
  };
  return entry;
}

/** What an extractor finds in a text, by extractor and text: the same code is read again by every view of the repository (the mutation runs make hundreds). */
const extracted = perKey(
  64,
  (extract: string, text: string): ReturnType<typeof extractAll> => extractAll(extract as Parameters<typeof extractAll>[0], [text]),
  (extract, text) => `${extract}\0${text}`,
);

/** The repository's own code an entry is read from lies outside the manifest roots the Repo holds: it is read here, once per load. */
function codeDrift(root: string, entry: CatalogEntry): string | undefined {
  const { code } = entry.pin;
  if (!code || !entry.source.extract || !isExtractor(entry.source.extract)) return undefined;
  let text: string;
  try {
    text = readFileSync(join(root, code), 'utf8');
  } catch {
    return `${code} is gone`;
  }
  const now = extracted(entry.source.extract, text);
  const recorded = Object.fromEntries(
    Object.entries(entry.metrics)
      .map(([k, v]) => [k, [...v].sort()] as const)
      .sort(([a], [b]) => a.localeCompare(b)),
  );
  return JSON.stringify(now) === JSON.stringify(recorded) ? undefined : `${code} declares ${Object.keys(now).join(', ')}`;
}

/** The exemptions file: metric regexes and monitors, each with its reason; a malformed one is a problem. */
function exemptionsOf(exemptionsFile: DataFile | undefined, problems: CatalogProblem[]): { exemptions: Exemption[]; monitorExemptions: MonitorExemption[] } {
  const exemptions: Exemption[] = [];
  const monitorExemptions: MonitorExemption[] = [];
  list(exemptionsFile?.data)
    .map(obj)
    .forEach((e, index) => {
      const reasoned = typeof e.reason === 'string' && e.reason.trim() !== '';
      if (reasoned && typeof e.metric === 'string') exemptions.push({ pattern: fullMatch(e.metric), text: e.metric, reason: String(e.reason), index });
      else if (reasoned && typeof e.monitor === 'string') monitorExemptions.push({ monitor: e.monitor, reason: String(e.reason), index });
      else
        problems.push({
          data: exemptionsFile!,
          path: [index],
          message: 'an exemption needs a metric (name or regex) or a monitor (Kind/namespace/name), and a reason',
        });
    });
  return { exemptions, monitorExemptions };
}

/**
 * An entry's metric names with a scrape's params filled in, by the entry's metrics (one object per unchanged
 * file, entryOf) and the params: every view of the repository makes the same ones. Never mutated.
 */
const filled = perPair<CatalogEntry['metrics'], { metrics: Map<string, string[]>; unfilled?: string }>();

function filledMetrics(metricsOfEntry: CatalogEntry['metrics'], params: Record<string, string>): { metrics: Map<string, string[]>; unfilled?: string } {
  return filled(metricsOfEntry, JSON.stringify(params), () => {
    const metrics = new Map(Object.entries(metricsOfEntry).map(([name, labels]) => [fill(name, params), labels]));
    return { metrics, unfilled: [...metrics.keys()].find((name) => /\{\w+\}/.test(name)) };
  });
}

export const metricsCatalog = perRepo((repo: Repo): MetricsCatalog => {
  const problems: CatalogProblem[] = [];
  const entries: CatalogEntry[] = [];
  let exemptionsFile: DataFile | undefined;
  for (const [file, data] of repo.dataFiles) {
    if (!file.startsWith(CATALOG_DIR)) continue;
    if (file === CATALOG_EXEMPTIONS) exemptionsFile = data;
    else {
      const entry = toEntry(repo.root, data, problems);
      if (entry) entries.push(entry);
    }
  }
  const { exemptions, monitorExemptions } = exemptionsOf(exemptionsFile, problems);
  const namespaceOf = namespaceIn(repo);
  const monitors = new Map(
    repo.resources.filter((r) => !r.rendered && (MONITOR_KINDS as readonly string[]).includes(r.kind)).map((r) => [monitorId(r, namespaceOf), r]),
  );
  // Services by namespace: a monitor is matched against the Services of its namespaces only, not every Service.
  const services = Map.groupBy(
    serviceViews(
      repo.resources.filter((r) => r.kind === 'Service'),
      namespaceOf,
    ),
    (s) => s.namespace ?? '',
  );
  const servicesFor = (monitor: Resource): ServiceView[] => {
    const names = list(dig(monitor.object, ['spec', 'namespaceSelector', 'matchNames'])).map(String);
    return (names.length ? names : [namespaceOf(monitor) ?? '']).flatMap((ns) => services.get(ns) ?? []);
  };

  const renderedMonitors = new Map(
    repo.resources.filter((r) => r.rendered && (MONITOR_KINDS as readonly string[]).includes(r.kind)).map((r) => [monitorId(r, namespaceOf), r]),
  );
  const jobs: ScrapeJob[] = [];
  const coveredMonitors = new Set<string>();
  for (const entry of entries) {
    list(obj(entry.data.data).scrape)
      .map(obj)
      .forEach((scrape, i) => {
        const params = Object.fromEntries(Object.entries(obj(scrape.params)).map(([k, v]) => [k, String(v)]));
        const { metrics, unfilled } = filledMetrics(entry.metrics, params);
        if (unfilled) problems.push({ data: entry.data, path: ['scrape', i], message: `metric ${unfilled} has a placeholder this scrape gives no params for` });
        if (typeof scrape.monitor === 'string') {
          const monitor = monitors.get(scrape.monitor);
          // A monitor that is gone is its own check's finding (media-exporters, closure); here it only scrapes nothing.
          if (!monitor) return;
          coveredMonitors.add(scrape.monitor);
          for (const j of monitorJobs(monitor, servicesFor(monitor), namespaceOf)) jobs.push({ ...j, metrics, source: scrape.monitor, entry });
        } else if (typeof scrape.chart === 'string' && typeof scrape.job === 'string') {
          const source = `chart ${scrape.chart}`;
          // The monitor the chart renders, so a plain copy of it (a duplicate-resource) is not also "undescribed".
          if (typeof scrape.renders === 'string') coveredMonitors.add(scrape.renders);
          const rendered = typeof scrape.renders === 'string' ? renderedMonitors.get(scrape.renders) : undefined;
          if (!rendered) {
            // Not rendered (chart not in the cache): the entry's declaration stands, unverified.
            jobs.push({ job: scrape.job, intervalMs: intervalMs(scrape.interval), targetLabels: MONITOR_TARGET_LABELS, metrics, source, entry });
            return;
          }
          // Rendered: the job is what the operator will make of the chart's monitor, whatever the entry says.
          // `path` picks one endpoint of a monitor that scrapes several exporters (the kubelet's /metrics/cadvisor).
          const derived = monitorJobs(rendered, servicesFor(rendered), namespaceOf).filter((j) => scrape.path === undefined || j.path === scrape.path);
          if (!derived.some((j) => j.job === scrape.job)) {
            problems.push({
              data: entry.data,
              path: ['scrape', i, 'job'],
              message: `the chart renders ${String(scrape.renders)} with job ${[...new Set(derived.map((j) => j.job))].join(', ')}, not ${scrape.job}: a selector on job="${scrape.job}" matches nothing`,
            });
          }
          for (const j of derived) jobs.push({ ...j, metrics, source, entry });
        } else {
          problems.push({ data: entry.data, path: ['scrape', i], message: 'a scrape names a monitor (Kind/namespace/name) or a chart with its job' });
        }
      });
  }
  return { entries, jobs, exemptions, monitorExemptions, exemptionsFile, coveredMonitors, problems };
});
