/**
 * What a PromQL selector reads of the metrics catalog: the scrape jobs its `job` matchers allow, and the
 * metric names it reads (its name, or those its `__name__` matchers match), as Prometheus matches them.
 */
import { safeFullMatch, type MetricsCatalog, type ScrapeJob } from './metrics-catalog.ts';
import type { Matcher, Selector } from './promql.ts';
import { perPair } from '../core/per-object.ts';
import { didYouMean, nearestName } from '../core/did-you-mean.ts';

/** A label value against a matcher; a regex that does not compile matches (not judged). */
function matches(m: Matcher, value: string | undefined): boolean {
  const v = value ?? '';
  if (m.op === '=') return v === m.value;
  if (m.op === '!=') return v !== m.value;
  const re = safeFullMatch(m.value);
  if (!re) return true;
  return m.op === '=~' ? re.test(v) : !re.test(v);
}

/** The jobs a selector's `job` matchers allow. */
export function jobsFor(s: Pick<Selector, 'name' | 'matchers'>, jobs: readonly ScrapeJob[]): ScrapeJob[] {
  const jobMatchers = s.matchers.filter((m) => m.label === 'job');
  return jobs.filter((j) => jobMatchers.every((m) => matches(m, j.job)));
}

/**
 * The names of one job's metrics a nameless selector's name matchers match, by selector (one object per
 * expression text, model/monitoring/promql.ts) and the job's metrics (one Map per catalog entry and params,
 * model/monitoring/metrics-catalog.ts): every view of the repository asks the same, over thousands of names. Never mutated.
 */
const matchingNames = perPair<Pick<Selector, 'name' | 'matchers'>, string[]>();

function matchingIn(s: Pick<Selector, 'name' | 'matchers'>, nameMatchers: readonly Matcher[], metrics: ReadonlyMap<string, unknown>): string[] {
  return matchingNames(s, metrics, () => [...metrics.keys()].filter((n) => nameMatchers.every((m) => matches(m, n))));
}

/** The metric names a selector reads: its name, or those of the jobs' metrics and `also` its name matchers match, in that order. */
export function namesRead(s: Pick<Selector, 'name' | 'matchers'>, jobs: readonly ScrapeJob[], also: Iterable<string> = []): string[] {
  if (s.name) return [s.name];
  const nameMatchers = s.matchers.filter((m) => m.label === '__name__');
  if (nameMatchers.length === 0) return [];
  const names = new Set<string>();
  for (const j of jobs) for (const n of matchingIn(s, nameMatchers, j.metrics)) names.add(n);
  for (const n of also) if (nameMatchers.every((m) => matches(m, n))) names.add(n);
  return [...names];
}

/** Series Prometheus writes for every job it scrapes, whatever the exporter. */
export const SCRAPE_SERIES = new Set([
  'up',
  'scrape_duration_seconds',
  'scrape_samples_scraped',
  'scrape_samples_post_metric_relabeling',
  'scrape_series_added',
]);

/** Every label the jobs that produce a metric give it: their target labels and the catalog's. */
export const labelsOfProducers = (producers: readonly ScrapeJob[], name: string): Set<string> =>
  new Set(producers.flatMap((j) => [...j.targetLabels, ...(j.metrics.get(name) ?? [])]));

/**
 * Every label a selector's series may carry, a job's own series (`up`, `scrape_*`) with its jobs' target labels: what
 * an alert's result is built from (`resultLabels`). Undefined where the catalog cannot say.
 */
export function seriesLabels(catalog: MetricsCatalog, recorded: ReadonlySet<string>, s: Pick<Selector, 'name' | 'matchers'>): Set<string> | undefined {
  if (!s.name || !SCRAPE_SERIES.has(s.name)) return selectorLabels(catalog, recorded, s);
  const jobs = jobsFor(s, catalog.jobs);
  return jobs.length ? targetLabels(jobs) : undefined;
}

/** Every label a selector's series may carry, or undefined where the catalog cannot say (a recorded or exempt series, a job's own series, no metric found). */
export function selectorLabels(catalog: MetricsCatalog, recorded: ReadonlySet<string>, s: Pick<Selector, 'name' | 'matchers'>): Set<string> | undefined {
  const candidates = jobsFor(s, catalog.jobs);
  const names = namesRead(s, candidates, recorded);
  if (names.length === 0 || names.some((n) => recorded.has(n) || SCRAPE_SERIES.has(n) || catalog.exemptions.some((x) => x.pattern.test(n)))) return undefined;
  const labels = new Set<string>();
  for (const name of names) {
    const producers = candidates.filter((j) => j.metrics.has(name));
    if (producers.length === 0) return undefined;
    for (const l of labelsOfProducers(producers, name)) labels.add(l);
  }
  return labels;
}

/** The labels whose values are namespaces: a target's own, and one a series names (hubble's source_namespace). */
const NAMESPACE_LABEL = /^(namespace|exported_namespace|\w+_namespace)$/;

/**
 * Each matcher (`=`, `!=`) of a selector on a label value the exporter never writes, as its catalog entry lists them
 * (`labelValues`), or on a namespace label with a namespace the cluster does not have: `health_status="degraded"`
 * matches no series, and the alert that reads it never fires; `!=` excludes nothing. Of an open set (the runtime's
 * reasons), only a value one slip from a known one is said. A dashboard's variable (`$status`) and an empty value (a
 * series without the label: hubble's destination_namespace of traffic to the world) are not judged.
 */
export function unwrittenValues(
  s: Pick<Selector, 'matchers'>,
  name: string,
  { producers, namespaces }: { producers: readonly ScrapeJob[]; namespaces: ReadonlySet<string> },
): { matcher: Matcher; known: ReadonlySet<string>; near?: string; namespace: boolean }[] {
  return s.matchers.flatMap((m) => {
    if ((m.op !== '=' && m.op !== '!=') || m.value.includes('$') || m.value === '') return [];
    const lists = NAMESPACE_LABEL.test(m.label)
      ? [{ values: namespaces, open: false }]
      : producers.flatMap((j) => {
          const list = j.entry.labelValues.get(name)?.get(m.label);
          return list ? [list] : [];
        });
    const known = new Set(lists.flatMap((l) => [...l.values]));
    if (known.size === 0 || known.has(m.value)) return [];
    const near = nearestName(m.value, known);
    // Of an open set, a value near none of the known ones may be one the list does not hold.
    if (near === undefined && lists.some((l) => l.open)) return [];
    return [{ matcher: m, known, near, namespace: NAMESPACE_LABEL.test(m.label) }];
  });
}

/**
 * Why what a selector reads (a job it names by `=`, or a metric) is scraped by nothing, where the metrics catalog's
 * scrape of it waits for a monitor its chart rendered without (a value of the chart turns it off, or the API it asks
 * for): no series of it is ever stored. Empty where no such scrape explains it.
 */
export function unscrapedBecause(catalog: MetricsCatalog, read: { jobs?: readonly Matcher[]; name?: string }): string {
  const u = catalog.unscraped.find((x) => read.jobs?.some((m) => m.op === '=' && m.value === x.job) || (read.name !== undefined && x.metrics.has(read.name)));
  return u
    ? `: chart ${u.chart} renders no ${u.monitor}, the monitor the metrics catalog's scrape of job ${u.job} is made from, so nothing ever scrapes it`
    : '';
}

/**
 * What Prometheus writes of every scrape (`up`, `scrape_duration_seconds`, ...) carries the target's labels only: a
 * label a selector of it filters or groups by that no target of the jobs it reads has is empty on every series
 * (`up{ojb="snmp-nas"}` matches nothing, and the alert on it never fires). Undefined where the selector reads no such
 * series; else each label no target has, as a phrase.
 */
export function scrapeSeriesProblems(s: Selector, jobs: readonly ScrapeJob[]): string[] | undefined {
  if (!s.name || !SCRAPE_SERIES.has(s.name)) return undefined;
  if (jobs.length === 0) return [];
  const labels = targetLabels(jobs);
  return [...new Set([...s.matchers.map((m) => m.label), ...s.groupedBy])]
    .filter((label) => label !== '__name__' && !labels.has(label))
    .map(
      (label) =>
        `label ${label} of ${s.name}, which no target of the jobs it reads has${didYouMean(label, labels)} (labels: ${[...labels].sort().join(', ')}): every series has it empty`,
    );
}

/** The labels the targets of the jobs carry: what a series Prometheus writes of every scrape has. */
function targetLabels(jobs: readonly ScrapeJob[]): Set<string> {
  return new Set(jobs.flatMap((j) => j.targetLabels));
}
