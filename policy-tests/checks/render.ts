/**
 * Checks on what the render tier made: values keys Helm silently ignores,
 * and renders that differ from one run to the next; and, offline, the lock
 * every render is held to.
 */
import { parseErrorLine } from '../model/core/findings.ts';
import { suggesting } from '../model/core/did-you-mean.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import { unusedValues } from '../model/helm/unused-values.ts';
import type { Path } from '../model/core/positions.ts';
import { type CheckContext, type PolicyCheck, type Area, staticArea } from '../model/checks/kit.ts';
import { isMap } from '../model/core/dig.ts';
import { applications, isExactChartVersion, normalizeSourcePath } from '../model/argocd/argocd.ts';
import { chartValuesFile } from '../model/helm/chart-values.ts';
import { chartDirOf, chartFile } from '../model/helm/chart-dependencies.ts';
import { CHART_LOCK_FILE } from '../model/repository/repo.ts';
import { chartId, chartRefOf, dependencyCharts, kustomizeCharts, PULL_COMMAND, type ChartRef } from '../render/charts.ts';
import { checkoutView } from '../model/argocd/kustomize.ts';
import { pinnedRemotes } from '../render/remote-bases.ts';
import type { DataFile } from '../model/repository/repo.ts';

const chartName = (r: SourceRender) => r.chart?.name ?? r.label;

const isChartRef = (v: unknown, extra: string): v is ChartRef & Record<string, string> =>
  isMap(v) && ['repoURL', 'chart', 'version', extra].every((k) => typeof v[k] === 'string' && v[k] !== '');

/**
 * The lock against the Applications, without any chart: each pinned chart version has an entry with its
 * digest (or is named as pending, with why), and each entry pins something. Offline, so a bump that forgot
 * its digest fails on the laptop, not only in CI's online tier.
 */
function checkChartLock(ctx: CheckContext): void {
  const lockFile = ctx.repo.dataFiles.get(CHART_LOCK_FILE);
  const data = isMap(lockFile?.data) ? lockFile.data : {};
  const list = (key: string) => (Array.isArray(data[key]) ? (data[key] as unknown[]) : []);
  if (lockFile && (lockFile.errors.length > 0 || !Array.isArray(data.charts)))
    ctx.fail(
      { file: CHART_LOCK_FILE },
      `${CHART_LOCK_FILE} is not a lock: ${lockFile.errors[0] ? parseErrorLine(CHART_LOCK_FILE, lockFile.errors[0]) : 'expected {"charts": [...]}'}`,
    );
  const entries = list('charts').map((e, i) => ({ e, at: ['charts', i] as Path, ok: isChartRef(e, 'digest') && /^sha256:[0-9a-f]{64}$/.test(e.digest ?? '') }));
  const pending = list('pending').map((e, i) => ({ e, at: ['pending', i] as Path, ok: isChartRef(e, 'reason') }));
  for (const { at, ok } of [...entries, ...pending])
    if (!ok && lockFile)
      ctx.fail({ data: lockFile, path: at }, `a lock entry needs repoURL, chart, version and a sha256:<64 hex> digest (or, pending, a reason)`);
  const pinned = new Set<string>();
  const same =
    (ref: ChartRef) =>
    ({ e, ok }: { e: unknown; ok: boolean }) =>
      ok && chartId(e as ChartRef) === chartId(ref);
  const view = checkoutView(ctx.repo);
  // One walk of the sources: an Application's own chart, and the charts its kustomizations inflate (helmCharts),
  // are pinned and locked the same way. A range is no version to lock (argocd-chart-pinned says so).
  for (const app of applications(ctx.repo))
    for (const source of app.sources) {
      const ref = chartRefOf(source);
      if (ref && isExactChartVersion(ref.version)) {
        pinned.add(chartId(ref));
        const at = { resource: app.resource, path: [...source.at, 'targetRevision'] };
        const waiting = pending.find(same(ref));
        if (waiting && !entries.some(same(ref)))
          ctx.notJudged(
            at,
            `chart ${chartId(ref)} has no digest in ${CHART_LOCK_FILE} yet (${String((waiting.e as Record<string, unknown>).reason)}): a person with network runs ${PULL_COMMAND} -- --update-lock and commits it`,
          );
        else if (!waiting && !entries.some(same(ref)))
          ctx.fail(
            at,
            `chart ${chartId(ref)} has no digest in ${CHART_LOCK_FILE}: nothing holds the archive CI pulls to the one reviewed (charts:pull --frozen refuses it)`,
          );
      }
      for (const { ref: fetched, file, index } of dependencyCharts(ctx.repo, source)) {
        pinned.add(chartId(fetched));
        if (entries.some(same(fetched)) || pending.some(same(fetched))) continue;
        const data = chartFile(ctx.repo, file);
        ctx.fail(
          data ? { data, path: ['dependencies', index, 'version'] } : { file },
          `chart ${chartId(fetched)}, which Argo CD's helm dependency build fetches for the chart at ${normalizeSourcePath(source.path ?? '')}, has no digest in ${CHART_LOCK_FILE}: nothing holds the archive CI pulls to the one reviewed (charts:pull --frozen refuses it)`,
        );
      }
      for (const { ref: inflated, entry } of kustomizeCharts(ctx.repo, source)) {
        if (!isExactChartVersion(inflated.version)) continue;
        pinned.add(chartId(inflated));
        if (entries.some(same(inflated)) || pending.some(same(inflated))) continue;
        const file = view.dataFiles.get(entry.file);
        const at = file ? { data: file, path: ['helmCharts', entry.index, 'version'] } : { file: entry.file };
        ctx.fail(
          at,
          `chart ${chartId(inflated)}, which ${entry.file} inflates, has no digest in ${CHART_LOCK_FILE}: nothing holds the archive CI pulls to the one reviewed (charts:pull --frozen refuses it)`,
        );
      }
    }
  for (const { e, at, ok } of [...entries, ...pending])
    if (ok && lockFile && !pinned.has(chartId(e as ChartRef)))
      ctx.fail({ data: lockFile, path: at }, `${CHART_LOCK_FILE} records chart ${chartId(e as ChartRef)}, which no Application pins: drop the stale entry`);
  checkRemoteLock(ctx, lockFile, list('remotes'));
}

/** The same for remote kustomize bases: each URL a kustomization names has its sha256, and each entry is named. */
function checkRemoteLock(ctx: CheckContext, lockFile: DataFile | undefined, entries: unknown[]): void {
  const locked = new Set<string>();
  entries.forEach((raw, i) => {
    const e = isMap(raw) ? raw : {};
    if (typeof e.url !== 'string' || typeof e.digest !== 'string' || !/^sha256:[0-9a-f]{64}$/.test(e.digest)) {
      if (lockFile) ctx.fail({ data: lockFile, path: ['remotes', i] }, 'a remote entry needs a url and a sha256:<64 hex> digest');
    } else locked.add(e.url);
  });
  const named = pinnedRemotes(ctx.repo);
  for (const { url, file } of named) {
    if (locked.has(url)) continue;
    const data = ctx.repo.dataFiles.get(file);
    const index = isMap(data?.data) && Array.isArray(data.data.resources) ? data.data.resources.indexOf(url) : -1;
    const message = `the remote base ${url} has no digest in ${CHART_LOCK_FILE} (remotes): nothing holds what Argo CD fetches to what was reviewed`;
    if (data && index >= 0) ctx.fail({ data, path: ['resources', index] }, message);
    else ctx.fail({ file }, message);
  }
  const wanted = new Set(named.map((n) => n.url));
  entries.forEach((raw, i) => {
    const url = isMap(raw) ? raw.url : undefined;
    if (lockFile && typeof url === 'string' && !wanted.has(url))
      ctx.fail(
        { data: lockFile, path: ['remotes', i] },
        `${CHART_LOCK_FILE} records the remote base ${url}, which no kustomization names: drop the stale entry`,
      );
  });
}

export const renderChecks: PolicyCheck[] = [
  {
    id: 'chart-lock',
    description: `Every chart version an Application pins, a kustomization it builds inflates (helmCharts), or its chart's build fetches (a wrapper chart's dependencies), has the digest its chart repository publishes in ${CHART_LOCK_FILE} (or is listed there as pending, with why, and counted as not judged), and every entry pins a chart some Application names: a bump without its digest never lands, and a stale entry never stays (invariants P2).`,
    invariants: ['P2'],
    remediation: `run ${PULL_COMMAND} with network (it records the archive's digest; compare it with the chart repository's index.yaml) and commit ${CHART_LOCK_FILE}; drop entries no Application pins`,
    // The kustomizations too, and a wrapper chart's dependencies: what they fetch is locked the same way.
    reads: {
      kinds: ['Application'],
      files: [
        CHART_LOCK_FILE,
        '*/kustomization.yaml',
        '*/kustomization.yml',
        '*/Kustomization',
        '*/Chart.yaml',
        '*/Chart.lock',
        '*/requirements.yaml',
        '*/requirements.lock',
      ],
    },
    exemptible: false,
    run: checkChartLock,
  },
  {
    id: 'helm-values-unused',
    description:
      "Every key of a values file (and of a chart's own values.yaml under a dependency's key) is one the chart declares in its default values or reads in a template (a key of an element of a list a template walks with range, one the walk reads); Helm ignores any other key without a word. Under a map a template takes whole, a key one keystroke from a key the chart declares beside it (four letters or more), which the values do not set, is that key misspelt: the template that reads the declared key never finds it (invariants P1).",
    invariants: ['P1'],
    remediation: "rename the key to the one the chart reads (see the chart's values.yaml), or remove it",
    reads: { renders: true },
    exemptible: false,
    run(ctx) {
      for (const render of ctx.renders) {
        if (render.status !== 'rendered' || !render.chart) continue;
        for (const file of render.values) {
          for (const { path, near, whole } of unusedValues(file.data, render.chart)) {
            ctx.fail(
              { data: file, path },
              whole
                ? `${path.join('.')}: the ${chartName(render)} chart (${render.label}) takes the map it is in whole, and declares ${near} beside it, which these values do not set: a template that reads ${near} never finds this key, and the chart's default stands`
                : `${path.join('.')}: the ${chartName(render)} chart (${render.label}) neither declares this key in its values nor reads it in any template, so Helm ignores it${suggesting(near)}`,
            );
          }
        }
        // A chart of the repository sets its dependencies' values in its own values.yaml, under their keys: only the
        // dependency declares them there (the chart's defaults, which are that file, would vouch for every key).
        const dir = render.source.chart === undefined ? chartDirOf(ctx.repo, render.source) : undefined;
        const own = dir === undefined ? undefined : chartValuesFile(ctx.repo, dir);
        if (!own || !isMap(own.data)) continue;
        const subcharts = render.chart.subcharts;
        const theirs = Object.fromEntries(Object.entries(own.data).filter(([key]) => subcharts.has(key)));
        for (const { path, near } of unusedValues(theirs, { ...render.chart, defaults: {} })) {
          const sub = subcharts.get(String(path[0]))!;
          ctx.fail(
            { data: own, path },
            `${path.join('.')}: the ${sub.name} chart, a dependency of ${chartName(render)} (${render.label}), neither declares this key in its values nor reads it in any template, so Helm ignores it${suggesting(near)}`,
          );
        }
      }
    },
  },
  {
    id: 'render-deterministic',
    description:
      'Rendering an Application twice gives the same objects; Argo CD renders without cluster access, so a random value (randAlphaNum) is a new Secret and a restart on every sync (invariants P1).',
    invariants: ['P1'],
    remediation: "give the chart the value it would generate, usually an existing Secret from an ExternalSecret (the chart's existingSecret key)",
    reads: { kinds: ['*'], everyKind: 'a render is compared resource by resource, whatever the kind', renders: true },
    exemptible: false,
    run(ctx) {
      for (const render of ctx.renders) {
        for (const diff of render.nondeterministic) {
          const resource = render.resources.find((r) => r.kind === diff.kind && r.name === diff.name);
          const message = `${diff.kind} ${diff.name} differs between two renders of the same inputs${diff.template ? ` (template ${diff.template})` : ''}: Argo CD would see drift on every sync`;
          if (resource) ctx.fail({ resource, path: ['metadata', 'name'] }, message);
          else
            ctx.fail(
              { resource: render.app.resource, path: [...render.source.at, render.source.chart !== undefined ? 'chart' : 'path'] },
              `${render.label}: ${message}`,
            );
        }
      }
    },
  },
];

export const renderArea: Area = staticArea('render', renderChecks);
