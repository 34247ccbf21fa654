/**
 * Kustomize's Helm inflation (`helmCharts`), as Argo CD's kustomize runs it under argocd-cm's
 * `kustomize.buildOptions: --enable-helm` (util/kustomize `parseKustomizeBuildOptions`: with kustomize 5.3 or later it
 * adds `--helm-kube-version` and a `--helm-api-versions` per API version, as it gives Helm sources). kustomize looks
 * for each chart in `<chartHome>/<name>-<version>/<name>` and pulls it there from its repository only where it is
 * missing: the gate puts the archive it has in its chart cache there, checked against `charts.lock.json` as every
 * chart is, in the copy of the kustomization it builds, and has kustomize run the gate's pinned Helm. Nothing is
 * fetched at build time. Without the option kustomize refuses the build, in Argo CD as here.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HelmChartEntry } from '../model/argocd/kustomize.ts';
import type { ChartScope } from '../model/argocd/rendered.ts';
import { cachedScope } from './cache.ts';
import { extractedChart, unpackingKey } from './chart-extract.ts';
import { chartCache } from './chart-cache.ts';
import { chartScopeFromFolder, folderEntries } from './chart-files.ts';
import { chartId, PULL_COMMAND } from './charts.ts';
import { NotRendered, type Context } from './context.ts';
import { assertSize } from './limits.ts';

/** A chart to put in place before the build: its cached archive, its digest, and the folder kustomize reads. */
export interface InflatedChart {
  archive: string;
  digest: string;
  chartDir: string;
}

/**
 * The charts a build inflates from a chart repository, each verified in the cache: a chart the repository vendors
 * at its folder is kustomize's to read (its files are in the build's key already), one with no repository or version
 * is read from the repository too.
 */
export function inflatedCharts(ctx: Context, entries: readonly HelmChartEntry[]): InflatedChart[] {
  const cache = chartCache(ctx.env);
  return entries.flatMap((entry) => {
    if (!entry.repo || !entry.version || existsSync(join(ctx.repo.root, entry.chartDir))) return [];
    const ref = { repoURL: entry.repo, chart: entry.name, version: entry.version };
    const archive = cache.path(ref);
    if (!existsSync(archive)) throw new NotRendered(`${entry.file} inflates ${chartId(ref)}, which is not in the chart cache: run ${PULL_COMMAND}`);
    assertSize(archive, ctx.limits.archiveBytes, `chart archive ${chartId(ref)}`, 'HOMELAB_RENDER_MAX_CHART_MIB');
    const verified = cache.verify(ref, ctx.lock);
    if ('why' in verified) throw verified.notCached ? new NotRendered(verified.why) : new Error(verified.why);
    return [{ archive, digest: verified.digest, chartDir: entry.chartDir }];
  });
}

/** A chart's archive expanded as `helm pull --untar` expands it, which kustomize runs for a chart it does not find (chart-extract.ts). */
const expandedChart = (ctx: Context, chart: InflatedChart): Promise<string> =>
  extractedChart(ctx.env, chart, { unpackedLimit: ctx.limits.unpackedBytes, how: 'helm-pull' });

/**
 * A chart from the cache read as Helm loads it from the folder kustomize finds it in (its archive expanded, the
 * folder of its name); undefined where that cannot be read: the build's own placement says why (placeCharts).
 */
async function inflatedScope(ctx: Context, chart: InflatedChart, name: string): Promise<ChartScope | undefined> {
  try {
    const folder = join(await expandedChart(ctx, chart), name);
    return existsSync(folder) ? await cachedScope(ctx, folder, unpackingKey(chart.digest, 'helm-pull')) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether every chart the build inflates prints alike from the same inputs (chart-traits.ts), so the build does: one
 * from the chart cache by its stored interface, one the repository vendors at its folder read there. A chart
 * kustomize would look for elsewhere (no repository or version, not vendored) counts as no.
 */
export async function chartsRepeatable(ctx: Context, entries: readonly HelmChartEntry[], placed: readonly InflatedChart[]): Promise<boolean> {
  for (const entry of entries) {
    const fromCache = placed.find((c) => c.chartDir === entry.chartDir);
    const vendored = !fromCache && existsSync(join(ctx.repo.root, entry.chartDir));
    const scope = fromCache
      ? await inflatedScope(ctx, fromCache, entry.name)
      : vendored
        ? await chartScopeFromFolder(folderEntries(ctx.repo, entry.chartDir), ctx.limits.unpackedBytes)
        : undefined;
    if (scope?.repeatable !== true) return false;
  }
  return true;
}

/** The charts a build puts in place, as its render key holds them: where, which archive, and the rules it is expanded by. */
export const inflationKey = (charts: readonly InflatedChart[]): string[][] => charts.map((c) => [c.chartDir, unpackingKey(c.digest, 'helm-pull')]);

/**
 * Puts each chart where kustomize looks for it, below the copy the gate builds, as kustomize's own `helm pull --untar
 * --untardir <chartHome>/<name>-<version>` would (Helm's Expand: the folder its Chart.yaml names, a link or a hard link
 * an empty file, nothing read through one): copied from its expansion in the chart cache, made once per digest.
 */
export async function placeCharts(ctx: Context, copy: string, charts: readonly InflatedChart[]): Promise<void> {
  for (const chart of charts) cpSync(await expandedChart(ctx, chart), join(copy, chart.chartDir, '..'), { recursive: true });
}

/**
 * What Argo CD adds to a build with --enable-helm: the pinned Helm, and the Kubernetes version and API versions the
 * source renders for (`kustomize.kubeVersion`, `kustomize.apiVersions`, else the cluster's; the version already parsed
 * as the repo-server parses it, by `renderKustomize`).
 */
export function helmBuildArgs(ctx: Context, buildOptions: readonly string[], target: { kubeVersion?: string; apiVersions: readonly string[] }): string[] {
  if (!buildOptions.includes('--enable-helm')) return [];
  return [
    '--helm-command',
    ctx.tools.helm,
    ...(target.kubeVersion ? ['--helm-kube-version', target.kubeVersion] : []),
    ...target.apiVersions.flatMap((v) => ['--helm-api-versions', v]),
  ];
}
