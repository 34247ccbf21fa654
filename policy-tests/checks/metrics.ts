/**
 * Alerts that can fire (A17, A10): every series a rule or a dashboard reads is produced by a job this
 * repository scrapes, as the metrics catalog (monitoring/metrics-catalog/) records it.
 */
import { closest } from 'fastest-levenshtein';
import { metricsCatalog, MONITOR_KINDS, safeFullMatch, type MetricsCatalog, type ScrapeJob } from '../model/monitoring/metrics-catalog.ts';
import { topLevelAlternatives } from '../model/core/re2.ts';
import { labelsReadBy, promExpressions, type PromExpression } from '../model/monitoring/promql-expressions.ts';
import { perRepo } from '../model/repository/per-repo.ts';
import { parsePromQL, resultLabels, type Matcher, type Selector } from '../model/monitoring/promql.ts';
import {
  jobsFor,
  labelsOfProducers,
  namesRead,
  SCRAPE_SERIES,
  selectorLabels,
  scrapeSeriesProblems,
  seriesLabels,
  unscrapedBecause,
  unwrittenValues,
} from '../model/monitoring/metrics-reads.ts';
import { durationMs } from '../model/core/time.ts';
import { didYouMean, suggesting } from '../model/core/did-you-mean.ts';
import { type CheckContext, type PolicyCheck, type Area, staticArea } from '../model/checks/kit.ts';
import type { Repo } from '../model/repository/repo.ts';
import { clusterNamespaces } from '../model/cluster/providers.ts';

const READS = {
  kinds: ['PrometheusRule', 'ConfigMap', 'Service', ...MONITOR_KINDS, 'Application', 'Namespace'],
  files: ['monitoring/metrics-catalog/*', '*/tests/*'],
};
const describeSelector = (expr: string, s: Selector) => s.name ?? expr.slice(s.from).match(/^\{[^}]*\}/)?.[0] ?? 'a selector';
const jobList = (jobs: readonly ScrapeJob[]) => [...new Set(jobs.map((j) => `${j.job} (${j.source})`))].join(', ') || 'none';

interface Reader {
  e: PromExpression;
  s: Selector;
  /** Where the selector is written: found only for a finding (it may parse the file again). */
  place: () => { file: string; line: number; col: number };
}

function* selectorsOf(repo: Repo, ctx: CheckContext): Generator<Reader> {
  for (const { e, parsed } of metricsView(repo).expressions) {
    if (parsed.error) {
      ctx.fail({ file: e.file, ...e.at(parsed.error.from) }, `${e.kind} ${e.name}: ${parsed.error.message}`);
      continue;
    }
    for (const s of parsed.selectors) yield { e, s, place: () => ({ file: e.file, ...e.at(s.from) }) };
  }
}

/** What every metrics check reads: the catalog, the recorded series, and each expression parsed once. */
const metricsView = perRepo((repo: Repo) => ({
  catalog: metricsCatalog(repo),
  recorded: new Set(promExpressions(repo).flatMap((e) => (e.kind === 'record' ? [e.name] : []))),
  expressions: promExpressions(repo).map((e) => ({ e, parsed: parsePromQL(e.expr) })),
}));

/** What the joins read: the catalog, the recorded series, the exemptions used, and the namespaces the cluster has. */
type Joined = { catalog: MetricsCatalog; recorded: Set<string>; used: Set<number>; namespaces: ReadonlySet<string> };

/**
 * A `job=~"a|b"` matcher whose alternative matches no job the repository scrapes: the selector still reads the other
 * jobs, so nothing else says that `exportrar-.+` (meant as exportarr's) watches nothing, and the alert never fires for them.
 */
function deadJobAlternatives(
  ctx: CheckContext,
  { what, jobMatchers, jobs, place }: { what: string; jobMatchers: readonly Matcher[]; jobs: readonly ScrapeJob[]; place: Reader['place'] },
): void {
  for (const m of jobMatchers.filter((x) => x.op === '=~')) {
    const alternatives = topLevelAlternatives(m.value);
    if (alternatives.length < 2) continue;
    for (const alternative of alternatives) {
      const re = safeFullMatch(alternative);
      if (!re || jobs.some((j) => re.test(j.job))) continue;
      ctx.fail(
        place(),
        `${what} reads job=~"${m.value}", whose alternative "${alternative}" matches no job this repository scrapes (jobs considered: ${jobList(jobs)}): it watches nothing`,
      );
    }
  }
}

function joinOne(ctx: CheckContext, { catalog, recorded, used, namespaces }: Joined, { e, s, place }: Reader): void {
  const what = `${e.kind} ${e.name}`;
  // An exempt series comes from outside what this repository scrapes: its job is not judged either.
  const exempt = s.name ? catalog.exemptions.find((x) => x.pattern.test(s.name!)) : undefined;
  if (exempt) {
    used.add(exempt.index);
    return;
  }
  const candidates = jobsFor(s, catalog.jobs);
  const jobMatchers = s.matchers.filter((m) => m.label === 'job');
  if (jobMatchers.length && candidates.length === 0) {
    ctx.fail(
      place(),
      `${what} reads ${describeSelector(e.expr, s)} on job ${jobMatchers.map((m) => `${m.op}"${m.value}"`).join(', ')}, which nothing this repository scrapes produces (jobs considered: ${jobList(catalog.jobs)})${unscrapedBecause(catalog, { jobs: jobMatchers })}`,
    );
    return;
  }
  deadJobAlternatives(ctx, { what, jobMatchers, jobs: catalog.jobs, place });
  const scrape = scrapeSeriesProblems(s, candidates);
  if (scrape) return scrape.forEach((problem) => ctx.fail(place(), `${what} reads ${problem}`));
  const names = namesRead(s, candidates, recorded);
  if (!s.name && names.length === 0) {
    ctx.fail(place(), `${what} reads ${describeSelector(e.expr, s)}, which matches no metric of the jobs considered (${jobList(candidates)})`);
    return;
  }
  for (const name of names) {
    if (recorded.has(name)) continue;
    const exemption = catalog.exemptions.find((x) => x.pattern.test(name));
    if (exemption) {
      used.add(exemption.index);
      continue;
    }
    const producers = candidates.filter((j) => j.metrics.has(name));
    if (producers.length === 0) {
      const all = [...new Set(candidates.flatMap((j) => [...j.metrics.keys()]))];
      // Not the one "did you mean": a metric's usual slip is a missing suffix (_total), so the closest name is always shown.
      const why = unscrapedBecause(catalog, { name }) || (all.length ? `; closest: ${closest(name, all)}` : '');
      ctx.fail(place(), `${what} reads ${name}, which no scraped source produces (jobs considered: ${jobList(candidates)})${why}`);
      continue;
    }
    for (const { matcher: m, known, near, namespace } of unwrittenValues(s, name, { producers, namespaces }))
      ctx.fail(
        place(),
        `${what} reads ${name}{${m.label}${m.op}${JSON.stringify(m.value)}}, ${namespace ? `a namespace the cluster does not have (it has ${[...known].join(', ')})` : `a value its exporter never writes (it writes ${[...known].join(', ')})`}${suggesting(near)}: ${m.op === '=' ? 'the selector matches no series, and what reads it never sees one' : 'the matcher excludes nothing'}`,
      );
    const labels = labelsOfProducers(producers, name);
    for (const label of [...s.matchers.map((m) => m.label), ...s.groupedBy]) {
      if (label === '__name__' || labels.has(label)) continue;
      ctx.fail(
        place(),
        `${what} reads label ${label} of ${name}, which it does not have (labels: ${[...labels].sort().join(', ')}; from ${jobList(producers)})`,
      );
    }
  }
}

/**
 * `sum by (x) (a + b)`: a binary operator's result carries no label its operands lack, so a label the aggregation
 * above it groups by is one some selector under it has; otherwise every series falls into one group, silently.
 */
function joinAcross(ctx: CheckContext, joined: { catalog: MetricsCatalog; recorded: ReadonlySet<string> }, readers: readonly Reader[]): void {
  const groups = new Map<string, Reader[]>();
  for (const r of readers) {
    if (!r.s.groupedAcross) continue;
    const key = `${r.e.file}\0${r.e.name}\0${r.e.expr}\0${r.s.groupedAcross.at}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  for (const group of groups.values()) {
    const sets = group.map((r) => selectorLabels(joined.catalog, joined.recorded, r.s));
    if (sets.some((set) => set === undefined)) continue;
    const have = new Set(sets.flatMap((set) => [...set!]));
    const { e, s } = group[0]!;
    const missing = s.groupedAcross!.labels.filter((l) => !have.has(l));
    if (missing.length > 0)
      ctx.fail(
        { file: e.file, ...e.at(s.groupedAcross!.at) },
        `${e.kind} ${e.name} groups by ${missing.join(', ')}, which none of the series it combines has (${group.map((r) => describeSelector(e.expr, r.s)).join(', ')}; labels: ${[...have].sort().join(', ')}): every series falls into one group`,
      );
  }
}

/**
 * An alert's labels and annotations are expanded with the labels of the series that fires it (`$labels`), and a label
 * the returned series do not carry is expanded to nothing (Prometheus' templates run with `missingkey=zero`): "NAS
 * RAID  is degraded", or a pod's name an aggregation by namespace dropped. The labels are the expression's result's
 * (model/monitoring/promql.ts `resultLabels`), judged where the catalog says every series it reads and no function
 * makes labels.
 */
function templateLabels(ctx: CheckContext, { catalog, recorded, expressions }: ReturnType<typeof metricsView>): void {
  for (const { e, parsed } of expressions) {
    // An expression that reads no series returns the same at every evaluation: alert-reads-series says so.
    if (!e.templates?.length || parsed.error || parsed.selectors.length === 0) continue;
    const printed = e.templates.flatMap((t) => labelsReadBy(t.text).map((read) => ({ t, ...read })));
    if (printed.length === 0) continue;
    const result = resultLabels(e.expr, (s) => seriesLabels(catalog, recorded, s));
    const missing = result ? printed.filter(({ label }) => !result.has(label) && label !== '__name__') : [];
    if (missing.length === 0) continue;
    // The labels of the series read, apart from the result's: asked only to word a finding.
    const read = new Set(parsed.selectors.flatMap((s) => [...(seriesLabels(catalog, recorded, s) ?? [])]));
    const kept = `it keeps ${[...result!].sort().join(', ') || 'no label'}`;
    for (const { t, label, offset } of missing) {
      const why = read.has(label)
        ? `which its expression's result does not keep (an aggregation or a vector match drops it; ${kept})`
        : `which none of the series it reads has${didYouMean(label, read)} (${kept})`;
      ctx.fail({ file: e.file, ...t.at(offset) }, `alert ${e.name}'s ${t.field} prints label ${label}, ${why}: Prometheus writes nothing in its place`);
    }
  }
}

/** The scrape intervals of the jobs that produce what a selector reads. */
function producingJobs(catalog: MetricsCatalog, s: Selector, recorded: Set<string>): ScrapeJob[] {
  const candidates = jobsFor(s, catalog.jobs);
  if (s.name && SCRAPE_SERIES.has(s.name)) return candidates;
  const names = namesRead(s, candidates).filter((n) => !recorded.has(n));
  return candidates.filter((j) => names.some((n) => j.metrics.has(n)));
}

const seconds = (ms: number) => `${ms / 1000}s`;

/** A job is guarded when an alert reads `up` of it compared with 0, or the expression itself uses absent(). */
function guardedJobs(repo: Repo, jobs: readonly ScrapeJob[]): Set<string> {
  const guarded = new Set<string>();
  for (const { e, parsed } of metricsView(repo).expressions) {
    if (e.kind !== 'alert') continue;
    for (const c of parsed.comparisons) {
      if (c.selector.name !== 'up' || c.op !== '==' || c.value !== 0) continue;
      for (const j of jobsFor(c.selector, jobs)) guarded.add(j.job);
    }
  }
  return guarded;
}

export const metricsChecks: PolicyCheck[] = [
  {
    id: 'metrics-join',
    description:
      'Every series an alert, recording rule or dashboard reads, and every input series a promtool rule test feeds, is produced by a job this repository scrapes (each alternative of a job regex matching one), with the labels it filters and groups by, each value it matches one the exporter writes where its catalog entry lists them (labelValues; of an open set, a value one slip from a known one is refused) and the value of a namespace label a namespace the cluster has (an aggregation over the result of an operator by labels some series under it has), and every label the labels and annotations of an alert print ($labels.x) one the result of its expression carries, as the engine builds it (an aggregation keeps what it groups by, a vector match the labels its matching keeps; Prometheus prints nothing for another), per the metrics catalog; a recording rule read is defined (A17, A10).',
    invariants: ['A17', 'A10'],
    remediation:
      'read a metric and labels the catalog lists for a scraped job, deploy and scrape the exporter that produces it (with its catalog entry), or add a reasoned exemption to monitoring/metrics-catalog/exemptions.yaml',
    reads: READS,
    exemptible: false,
    run(ctx) {
      const { catalog, recorded } = metricsView(ctx.repo);
      const used = new Set<number>();
      const readers = [...selectorsOf(ctx.repo, ctx)];
      const namespaces = clusterNamespaces(ctx);
      for (const reader of readers) joinOne(ctx, { catalog, recorded, used, namespaces }, reader);
      joinAcross(ctx, { catalog, recorded }, readers);
      templateLabels(ctx, metricsView(ctx.repo));
      for (const x of catalog.exemptions) {
        if (!used.has(x.index) && catalog.exemptionsFile)
          ctx.fail({ data: catalog.exemptionsFile, path: [x.index, 'metric'] }, `exemption ${x.text} matches no metric any rule or dashboard reads; remove it`);
      }
    },
  },
  {
    id: 'metrics-windows',
    description:
      "rate, increase and irate windows span at least 4 scrape intervals of the jobs they read, and an alert's `for` at least 2 (intervals from the monitors) (A17).",
    invariants: ['A17'],
    remediation: 'widen the range to 4 scrape intervals (8 is safer), or lengthen `for` to 2 intervals',
    reads: READS,
    exemptible: false,
    run(ctx) {
      const { catalog, recorded, expressions } = metricsView(ctx.repo);
      for (const { e, parsed } of expressions) {
        if (parsed.error) continue; // metrics-join reports it
        const forMs = e.for === undefined ? NaN : durationMs(e.for);
        for (const s of parsed.selectors) {
          const jobs = producingJobs(catalog, s, recorded);
          const place = () => ({ file: e.file, ...e.at(s.from) });
          const slowest = jobs.reduce<ScrapeJob | undefined>((a, j) => (!a || j.intervalMs > a.intervalMs ? j : a), undefined);
          if (!slowest) continue;
          if (s.window && s.window.ms < 4 * slowest.intervalMs)
            ctx.fail(
              place(),
              `${e.kind} ${e.name}: ${s.window.fn}(${describeSelector(e.expr, s)}[${seconds(s.window.ms)}]) spans fewer than 4 scrape intervals of job ${slowest.job} (every ${seconds(slowest.intervalMs)}); use at least ${seconds(4 * slowest.intervalMs)}`,
            );
          if (!Number.isNaN(forMs) && forMs > 0 && forMs < 2 * slowest.intervalMs)
            ctx.fail(
              place(),
              `alert ${e.name}: for ${e.for} is shorter than 2 scrape intervals of job ${slowest.job} (every ${seconds(slowest.intervalMs)}); one missed scrape flaps it`,
            );
        }
      }
    },
  },
  {
    id: 'metrics-absence-guard',
    description:
      'An alert that fires on `series == 0` or `series != 1` also fires when the series is gone: its jobs have an `up == 0` alert, or the expression uses absent() (A17).',
    invariants: ['A17'],
    remediation: 'add the job to an `up{job=...} == 0` alert, or `or absent(<series>)` to the expression',
    reads: READS,
    exemptible: false,
    run(ctx) {
      const { catalog, recorded, expressions } = metricsView(ctx.repo);
      const guarded = guardedJobs(ctx.repo, catalog.jobs);
      for (const { e, parsed } of expressions) {
        if (e.kind !== 'alert') continue;
        if (parsed.error || parsed.selectors.some((s) => s.inAbsent)) continue;
        for (const c of parsed.comparisons) {
          if (c.selector.name === 'up' || !((c.op === '==' && c.value === 0) || (c.op === '!=' && c.value === 1))) continue;
          const unguarded = producingJobs(catalog, c.selector, recorded).filter((j) => !guarded.has(j.job));
          if (unguarded.length)
            ctx.fail(
              { file: e.file, ...e.at(c.selector.from) },
              `alert ${e.name} fires on ${describeSelector(e.expr, c.selector)} ${c.op} ${c.value}, but when ${[...new Set(unguarded.map((j) => j.job))].join(', ')} stops answering the series is gone and nothing fires: no \`up == 0\` alert covers it`,
            );
        }
      }
    },
  },
];

export const metricsArea: Area = staticArea('metrics', metricsChecks);
