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
import { dig, isMap, list, obj } from '../core/dig.ts';
import { durationMs } from '../core/time.ts';
import { perRepo } from '../repository/per-repo.ts';
import { perKey, perPair } from '../core/per-object.ts';
import { intervalMs, monitorId, monitorJobs, MONITOR_TARGET_LABELS, namespaceIn, serviceViews, type ServiceView } from './scrape-jobs.ts';
import { declaredIn, isExtractor, sameMetrics, type CatalogMetrics, type ExtractorName } from './metrics-extract.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { prometheusMatch, type WholeMatch } from '../core/re2.ts';

export const CATALOG_DIR = 'monitoring/metrics-catalog/';
export const CATALOG_EXEMPTIONS = `${CATALOG_DIR}exemptions.yaml`;
/** source.repository of an entry read from this repository's own code. */
export const THIS_REPOSITORY = '.';
export const MONITOR_KINDS = ['ServiceMonitor', 'PodMonitor', 'Probe', 'ScrapeConfig'] as const;

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
  /**
   * The values an exporter writes for a label of a metric, where its source names them (`labelValues`, kept by hand
   * in the header): every value it can write, or (`open`, written `{known: [...]}`) the known ones of an open set.
   */
  labelValues: Map<string, Map<string, { values: Set<string>; open: boolean }>>;
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
  pattern: WholeMatch;
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
  /** The paths of each plain monitor the entries say its metrics come from; `any` where an entry names none, and for a chart's monitor. */
  coveredPaths: Map<string, Set<string> | 'any'>;
  /** The chart scrapes whose chart rendered without the monitor they name (its values turned it off): scraped by nothing. */
  unscraped: { job: string; chart: string; monitor: string; metrics: ReadonlyMap<string, unknown> }[];
  problems: CatalogProblem[];
}

/** A regex matched whole, as PromQL matches label values (Go's RE2, `.` matching a newline: prometheusRegex). */
export const fullMatch = (source: string): WholeMatch => prometheusMatch(source);

/** A PromQL matcher's regex, compiled once per source; undefined when it does not compile (not judged). */
const matchers = new Map<string, WholeMatch | undefined>();
export function safeFullMatch(source: string): WholeMatch | undefined {
  if (!matchers.has(source)) {
    let re: WholeMatch | undefined;
    try {
      re = fullMatch(source);
    } catch {
      re = undefined;
    }
    matchers.set(source, re);
  }
  return matchers.get(source);
}

function fill(name: string, params: Record<string, string>): string {
  return name.replace(/\{(\w+)\}/g, (whole, key: string) => params[key] ?? whole);
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
  shapeProblems(raw, (path, message) => problems.push({ data, path, message }));
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
    labelValues: new Map(
      Object.entries(obj(raw.labelValues)).map(([name, labels]) => [
        name,
        new Map(Object.entries(obj(labels)).map(([l, vs]) => [l, { values: new Set(list(isMap(vs) ? vs.known : vs).map(String)), open: isMap(vs) }])),
      ]),
    ),
  };
  return entry;
}

const ENTRY_KEYS = new Set(['exporter', 'version', 'pin', 'source', 'scrape', 'metrics', 'labelValues']);
const PIN_KEYS = new Set(['image', 'chart', 'version', 'file', 'contains', 'code', 'note']);
const PIN_FORMS = "an image; a chart and its version; a file and the text it contains; or this repository's code";
const SCRAPE_STRINGS = new Set(['monitor', 'chart', 'job', 'renders', 'path', 'interval']);
/** A metric name as Prometheus takes it, with the entry's placeholders ({app}) a scrape's params fill in. */
const METRIC_NAME = /^(?:[a-zA-Z_:]|\{\w+\})(?:[a-zA-Z0-9_:]|\{\w+\})*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';
const isValueList = (v: unknown): boolean => Array.isArray(v) && v.length > 0 && v.every(isText);

/**
 * What an entry holds that the check would otherwise read past: a label list that is not one (read as no labels),
 * a pin under a key nothing reads (never judged stale), a scrape's misspelt interval (the default read instead).
 * Each is said at its place, so a typo in the catalog is a finding, not a quieter check.
 */
function shapeProblems(raw: Record<string, unknown>, problem: (path: Path, message: string) => void): void {
  for (const key of Object.keys(raw)) if (!ENTRY_KEYS.has(key)) problem([key], `a catalog entry has no key ${key} (it holds ${[...ENTRY_KEYS].join(', ')})`);
  for (const [name, labels] of Object.entries(obj(raw.metrics))) {
    if (!METRIC_NAME.test(name)) problem(['metrics', name], `${JSON.stringify(name)} is not a metric name Prometheus takes`);
    if (!Array.isArray(labels)) problem(['metrics', name], `the labels of ${name} must be a list of label names ([] for none)`);
    else
      labels.forEach((label, i) => {
        if (typeof label !== 'string' || !LABEL_NAME.test(label)) problem(['metrics', name, i], `${JSON.stringify(label)} is not a label name (of ${name})`);
      });
  }
  // Each label's values are those of a metric and a label the entry lists.
  for (const [name, labels] of Object.entries(obj(raw.labelValues)))
    for (const [label, values] of Object.entries(obj(labels)))
      if (!list(obj(raw.metrics)[name]).includes(label) || !isValueList(isMap(values) && Object.keys(values).join() === 'known' ? values.known : values))
        problem(
          ['labelValues', name, label],
          `labelValues lists the values of a label the entry gives ${name} (each a string; {known: [...]} for an open set)`,
        );
  const pin = raw.pin;
  if (pin !== undefined && !isMap(pin)) problem(['pin'], `the pin must name ${PIN_FORMS}`);
  for (const [key, value] of Object.entries(obj(pin))) {
    if (!PIN_KEYS.has(key)) problem(['pin', key], `a pin has no key ${key}: it names ${PIN_FORMS}`);
    else if (!isText(value)) problem(['pin', key], `pin.${key} must be a string`);
  }
  const p = obj(pin);
  const forms = [p.image, p.chart, p.file, p.code].filter((v) => v !== undefined).length;
  if (
    Object.keys(p).length > 0 &&
    (forms !== 1 || (p.chart !== undefined) !== (p.version !== undefined) || (p.file !== undefined) !== (p.contains !== undefined))
  )
    problem(['pin'], `the pin must name one of ${PIN_FORMS}`);
  list(obj(raw.source).files).forEach((file, i) => isText(file) || problem(['source', 'files', i], 'each source file is a path in the source repository'));
  if (raw.scrape !== undefined && !Array.isArray(raw.scrape)) problem(['scrape'], 'scrape must be a list of the jobs that carry the metrics');
  list(raw.scrape).forEach((scrape, i) => {
    if (!isMap(scrape)) return problem(['scrape', i], 'a scrape names a monitor (Kind/namespace/name) or a chart with its job');
    for (const [key, value] of Object.entries(scrape)) {
      const at: Path = ['scrape', i, key];
      if (SCRAPE_STRINGS.has(key)) {
        if (!isText(value)) problem(at, `scrape ${key} must be a string`);
        else if (key === 'interval' && Number.isNaN(durationMs(value))) problem(at, `${JSON.stringify(value)} is not a duration Prometheus reads (30s, 1m)`);
      } else if (key === 'honorLabels') {
        if (typeof value !== 'boolean') problem(at, 'scrape honorLabels must be true or false');
      } else if (key === 'params') {
        if (!isMap(value) || !Object.values(value).every((v) => typeof v === 'string')) problem(at, 'scrape params must map each placeholder to its text');
      } else problem(at, `a scrape has no key ${key} (it holds ${[...SCRAPE_STRINGS, 'honorLabels', 'params'].join(', ')})`);
    }
  });
}

/** What an extractor finds in a text, by extractor and text: the same code is read again by every view of the repository (the mutation runs make hundreds). */
const extracted = perKey(
  64,
  (extract: ExtractorName, text: string): CatalogMetrics => declaredIn(extract, [text]),
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
  return sameMetrics(now, entry.metrics) ? undefined : `${code} declares ${Object.keys(now).sort().join(', ')}`;
}

/** A monitor an entry covers, with the path its metrics come from (`any` where the entry names none). */
function coverPath(covered: Pick<MetricsCatalog, 'coveredMonitors' | 'coveredPaths'>, monitor: string, path: unknown): void {
  covered.coveredMonitors.add(monitor);
  const paths = covered.coveredPaths.get(monitor) ?? new Set<string>();
  covered.coveredPaths.set(monitor, typeof path !== 'string' || paths === 'any' ? 'any' : paths.add(path));
}

/** The exemptions file: metric regexes and monitors, each with its reason; a malformed one is a problem. */
function exemptionsOf(exemptionsFile: DataFile | undefined, problems: CatalogProblem[]): { exemptions: Exemption[]; monitorExemptions: MonitorExemption[] } {
  const exemptions: Exemption[] = [];
  const monitorExemptions: MonitorExemption[] = [];
  list(exemptionsFile?.data)
    .map(obj)
    .forEach((e, index) => {
      const reasoned = typeof e.reason === 'string' && e.reason.trim() !== '';
      const pattern = reasoned && typeof e.metric === 'string' ? safeFullMatch(e.metric) : undefined;
      if (reasoned && typeof e.metric === 'string' && pattern === undefined)
        problems.push({
          data: exemptionsFile!,
          path: [index, 'metric'],
          message: `the metric regex ${JSON.stringify(e.metric)} is not one Go's regexp (RE2) compiles`,
        });
      else if (pattern && typeof e.metric === 'string') exemptions.push({ pattern, text: e.metric, reason: String(e.reason), index });
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
/** The charts some Application's render came out of (`chart falco 9.1.0`), by name. */
const renderedCharts = perRepo(
  (repo: Repo) => new Set(repo.resources.flatMap((r) => (r.rendered?.source.startsWith('chart ') ? [r.rendered.source.split(' ')[1]!] : []))),
);

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
  // One list per set of namespaces, kept: the monitors of a namespace share it, and with it its selector index.
  const servicesIn = new Map<string, ServiceView[]>();
  const servicesFor = (monitor: Resource): ServiceView[] => {
    const names = list(dig(monitor.object, ['spec', 'namespaceSelector', 'matchNames'])).map(String);
    const namespaces = names.length ? names : [namespaceOf(monitor) ?? ''];
    const key = namespaces.join('\0');
    let found = servicesIn.get(key);
    if (!found) servicesIn.set(key, (found = namespaces.flatMap((ns) => services.get(ns) ?? [])));
    return found;
  };

  const renderedMonitors = new Map(
    repo.resources.filter((r) => r.rendered && (MONITOR_KINDS as readonly string[]).includes(r.kind)).map((r) => [monitorId(r, namespaceOf), r]),
  );
  const unscraped: MetricsCatalog['unscraped'] = [];
  const jobs: ScrapeJob[] = [];
  const coveredMonitors = new Set<string>();
  const coveredPaths = new Map<string, Set<string> | 'any'>();
  const cover = (monitor: string, path: unknown) => coverPath({ coveredMonitors, coveredPaths }, monitor, path);
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
          cover(scrape.monitor, scrape.path);
          // `path` names the endpoint that serves these metrics: an endpoint of the monitor scraping another path gets none of them.
          for (const j of monitorJobs(monitor, servicesFor(monitor), namespaceOf).filter((j) => scrape.path === undefined || j.path === scrape.path))
            jobs.push({ ...j, metrics, source: scrape.monitor, entry });
        } else if (typeof scrape.chart === 'string' && typeof scrape.job === 'string') {
          const source = `chart ${scrape.chart}`;
          // The monitor the chart renders, so a plain copy of it (a duplicate-resource) is not also "undescribed".
          // A chart's monitor may scrape several exporters on one Service (the kubelet's): `path` picks one, the rest stand.
          if (typeof scrape.renders === 'string') cover(scrape.renders, undefined);
          const rendered = typeof scrape.renders === 'string' ? renderedMonitors.get(scrape.renders) : undefined;
          if (!rendered) {
            // Its chart rendered without it (a value turns it off): scraped by nothing. Not rendered: the entry stands, unverified.
            if (typeof scrape.renders === 'string' && renderedCharts(repo).has(scrape.chart))
              unscraped.push({ job: scrape.job, chart: scrape.chart, monitor: scrape.renders, metrics });
            else jobs.push({ job: scrape.job, intervalMs: intervalMs(scrape.interval), targetLabels: MONITOR_TARGET_LABELS, metrics, source, entry });
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
  return { entries, jobs, exemptions, monitorExemptions, exemptionsFile, coveredMonitors, coveredPaths, unscraped, problems };
});
