/**
 * Alerts that can fire (A17, A10): every series a rule or a dashboard reads is produced by a job this
 * repository scrapes, as the metrics catalog (monitoring/metrics-catalog/) records it.
 */
import { closest } from 'fastest-levenshtein';
import { metricsCatalog, MONITOR_KINDS, type MetricsCatalog, type ScrapeJob } from '../model/monitoring/metrics-catalog.ts';
import { monitorId, namespaceIn } from '../model/monitoring/scrape-jobs.ts';
import { promExpressions, type PromExpression } from '../model/monitoring/promql-expressions.ts';
import { perRepo } from '../model/repository/per-repo.ts';
import { parsePromQL, type Selector } from '../model/monitoring/promql.ts';
import { jobsFor, namesRead } from '../model/monitoring/metrics-reads.ts';
import { durationMs } from '../model/core/durations.ts';
import { applications } from '../model/argocd/argocd.ts';
import { workloadContainers } from '../model/core/workloads.ts';
import { type CheckContext, type PolicyCheck, type Area, staticArea } from '../model/checks/kit.ts';
import type { Repo } from '../model/repository/repo.ts';
import { scalarText } from '../model/core/text.ts';
import type { Resource } from '../model/core/manifest.ts';

/** Series Prometheus writes for every job it scrapes, whatever the exporter. */
const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped', 'scrape_samples_post_metric_relabeling', 'scrape_series_added']);
const READS = { kinds: ['PrometheusRule', 'ConfigMap', 'Service', ...MONITOR_KINDS, 'Application'], files: ['monitoring/metrics-catalog/*', '*/tests/*'] };
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

type Joined = { catalog: MetricsCatalog; recorded: Set<string>; used: Set<number> };
function joinOne(ctx: CheckContext, { catalog, recorded, used }: Joined, { e, s, place }: Reader): void {
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
      `${what} reads ${describeSelector(e.expr, s)} on job ${jobMatchers.map((m) => `${m.op}"${m.value}"`).join(', ')}, which nothing this repository scrapes produces (jobs considered: ${jobList(catalog.jobs)})`,
    );
    return;
  }
  if (s.name && SCRAPE_SERIES.has(s.name)) return;
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
      // Not the one "did you mean" (model/core/did-you-mean.ts): a metric's usual slip is a missing suffix
      // (_total, _seconds_bucket), more edits than a typo's cut-off allows, so the closest name is always shown.
      const hint = all.length ? `; closest: ${closest(name, all)}` : '';
      ctx.fail(place(), `${what} reads ${name}, which no scraped source produces (jobs considered: ${jobList(candidates)})${hint}`);
      continue;
    }
    const labels = new Set(producers.flatMap((j) => [...j.targetLabels, ...(j.metrics.get(name) ?? [])]));
    for (const label of [...s.matchers.map((m) => m.label), ...s.groupedBy]) {
      if (label === '__name__' || labels.has(label)) continue;
      ctx.fail(
        place(),
        `${what} reads label ${label} of ${name}, which it does not have (labels: ${[...labels].sort().join(', ')}; from ${jobList(producers)})`,
      );
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

/** Whether a chart's rendered workloads run an image tagged with the exporter version (`v` or not). */
function runsVersion(resources: readonly Resource[], version: string): boolean {
  const bare = version.replace(/^v/, '');
  for (const { c } of workloadContainers(resources)) {
    const tag = scalarText(c.container.image ?? '')
      .split('@')[0]!
      .split(/:(?=[^/]+$)/)[1];
    if (tag !== undefined && tag.replace(/^v/, '') === bare) return true;
  }
  return false;
}

export const metricsChecks: PolicyCheck[] = [
  {
    id: 'metrics-join',
    description:
      'Every series an alert, recording rule or dashboard reads, and every input series a promtool rule test feeds, is produced by a job this repository scrapes, with the labels it filters and groups by, per the metrics catalog; a recording rule read is defined (A17, A10).',
    invariants: ['A17', 'A10'],
    remediation:
      'read a metric and labels the catalog lists for a scraped job, deploy and scrape the exporter that produces it (with its catalog entry), or add a reasoned exemption to monitoring/metrics-catalog/exemptions.yaml',
    reads: READS,
    exemptible: false,
    run(ctx) {
      const { catalog, recorded } = metricsView(ctx.repo);
      const used = new Set<number>();
      for (const reader of selectorsOf(ctx.repo, ctx)) joinOne(ctx, { catalog, recorded, used }, reader);
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
  {
    id: 'metrics-catalog-current',
    description:
      "Each metrics-catalog entry names its exporter, version and source, and matches the version the repository pins (a Renovate bump makes it stale); every monitor has an entry or a reasoned exemption (plain monitors always, a chart's when it renders) (A17).",
    invariants: ['A17'],
    remediation:
      'refresh the entry: npm run metrics:catalog -- --refresh <exporter> --version <pinned>; add an entry for a new monitor (monitoring/README.md, "The metrics catalog")',
    reads: {
      kinds: ['*'],
      everyKind: 'the exporters and monitors the catalog pins are found among every rendered resource',
      files: ['monitoring/metrics-catalog/*'],
      renders: true,
    },
    exemptible: false,
    run(ctx) {
      const catalog = metricsCatalog(ctx.repo);
      for (const p of catalog.problems) ctx.fail({ data: p.data, path: p.path }, p.message);
      for (const entry of catalog.entries) {
        const stale = (where: string) =>
          ctx.fail(
            { data: entry.data, path: ['version'] },
            `catalog entry ${entry.exporter} ${entry.version} is stale: ${where}; refresh it with npm run metrics:catalog -- --refresh ${entry.exporter}`,
          );
        const { image, chart, version, file, contains } = entry.pin;
        if (image) {
          for (const { resource, c } of workloadContainers(ctx.repo.resources.filter((r) => !r.rendered))) {
            const ref = scalarText(c.container.image ?? '');
            const [repository, tag] = ref.split('@')[0]!.split(/:(?=[^/]+$)/);
            if (repository === image && tag !== entry.version) stale(`${resource.file} runs ${image}:${tag}`);
          }
        }
        if (chart) {
          for (const app of applications(ctx.repo)) {
            for (const s of app.sources) {
              if (s.chart !== chart || s.targetRevision === version) continue;
              // A chart bump that runs the exporter version the entry was read from changes no metric: the entry stands.
              const rendered = ctx.renders.find((r) => r.app.name === app.name && r.source.chart === chart && r.status === 'rendered');
              const runs = rendered && runsVersion(rendered.resources, entry.version);
              if (runs) continue;
              if (!rendered)
                ctx.notJudged(
                  { data: entry.data, path: ['pin', 'version'] },
                  `Application ${app.name} deploys chart ${chart} ${s.targetRevision}, the entry was read for ${version}: whether the exporter changed is judged once the chart renders`,
                );
              else
                stale(
                  `Application ${app.name} deploys chart ${chart} ${s.targetRevision}, which runs no image at ${entry.version}, the version the entry was read for`,
                );
            }
          }
        }
        if (entry.codeDrift) stale(entry.codeDrift);
        if (file && contains !== undefined) {
          const text = ctx.repo.parsed.find((p) => p.file === file)?.text;
          if (text !== undefined && !text.includes(contains)) stale(`${file} no longer pins ${contains}`);
        }
      }
      // Plain monitors always; a chart's monitors when the chart rendered (not rendered: not judged, and counted by the gate).
      const exempt = new Map(catalog.monitorExemptions.map((x) => [x.monitor, x]));
      const namespaceOf = namespaceIn(ctx.repo);
      const monitors = ctx.repo.resources.filter((r) => (MONITOR_KINDS as readonly string[]).includes(r.kind));
      for (const r of monitors) {
        const id = monitorId(r, namespaceOf);
        if (catalog.coveredMonitors.has(id) || exempt.has(id)) continue;
        const how = r.rendered ? `chart scrape with renders: ${id}` : `scrape: monitor: ${id}`;
        ctx.fail(
          { resource: r, path: ['metadata', 'name'] },
          `${id} scrapes something no metrics-catalog entry describes; add one (its ${how}) or an exemption with its reason`,
        );
      }
      // A stale monitor exemption can only be told apart from an unrendered chart's monitor when everything rendered.
      if (catalog.exemptionsFile && ctx.renders.every((r) => r.status === 'rendered')) {
        const present = new Set(monitors.map((r) => monitorId(r, namespaceOf)));
        for (const x of catalog.monitorExemptions) {
          if (!present.has(x.monitor))
            ctx.fail(
              { data: catalog.exemptionsFile, path: [x.index, 'monitor'] },
              `exemption for ${x.monitor} matches no monitor of the rendered repository; remove it`,
            );
        }
      }
    },
  },
];

export const metricsArea: Area = staticArea('metrics', metricsChecks);
