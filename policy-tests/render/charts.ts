/**
 * Pinned charts: which charts the Applications name, where the pulled
 * archives sit in the cache outside git, and the committed lock file that
 * records each archive's digest on first pull, so a chart that changes under
 * the same version is refused.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applications, normalizeSourcePath, sourceType, type AppSource } from '../model/argocd/argocd.ts';
import { checkoutView, kustomizeInputs, type HelmChartEntry } from '../model/argocd/kustomize.ts';
import type { Repo } from '../model/repository/repo.ts';
import { cacheRoot } from './tools.ts';
import { assertChartRef } from './limits.ts';
import type { RemoteEntry } from './remote-bases.ts';
import { chartDirOf, fetchedDependencies } from '../model/helm/chart-dependencies.ts';

import { CHART_LOCK_FILE } from '../model/repository/repo.ts';

export { CHART_LOCK_FILE };
export const PULL_COMMAND = 'npm run charts:pull';

export interface ChartRef {
  repoURL: string;
  chart: string;
  version: string;
}

export const chartId = (c: ChartRef) => `${c.chart} ${c.version} from ${c.repoURL}`;

/** Argo CD 3 names an OCI chart repository either with `oci://` or as a bare registry path. */
export function isOciRepo(repoURL: string): boolean {
  return repoURL.startsWith('oci://') || !/^[a-z]+:\/\//i.test(repoURL);
}

export function chartRefOf(source: AppSource): ChartRef | undefined {
  return source.chart === undefined ? undefined : { repoURL: source.repoURL, chart: source.chart, version: source.targetRevision };
}

/**
 * The charts a kustomize source's kustomizations inflate from a chart repository, at a version (`helmCharts`), each
 * with its entry; not one the repository vendors where kustomize looks for it, which it never pulls.
 */
export function kustomizeCharts(repo: Repo, source: AppSource): { ref: ChartRef; entry: HelmChartEntry }[] {
  if (source.path === undefined || sourceType(repo, source) !== 'kustomize') return [];
  const view = checkoutView(repo);
  const vendored = (dir: string) => [...view.files].some((f) => f.startsWith(`${dir}/`));
  return kustomizeInputs(view, normalizeSourcePath(source.path)).helmCharts.flatMap((entry) =>
    entry.repo && entry.version && !vendored(entry.chartDir) ? [{ ref: { repoURL: entry.repo, chart: entry.name, version: entry.version }, entry }] : [],
  );
}

/**
 * The charts a chart at a path of this repository fetches when Argo CD builds its dependencies (chart-dependencies.ts),
 * each at the version the build downloads; not one its `charts/` vendors, nor one no version pins.
 */
export function dependencyCharts(repo: Repo, source: AppSource): { ref: ChartRef; file: string; index: number }[] {
  const dir = chartDirOf(repo, source);
  if (dir === undefined) return [];
  return fetchedDependencies(repo, dir).flatMap(({ file, index, ...d }) => ('ref' in d ? [{ ref: d.ref, file, index }] : []));
}

/**
 * How each pinned chart is unpacked to be rendered, by its id: as Argo CD extracts an Application's chart (`argocd`),
 * as `helm pull --untar` expands a kustomization's (`helm-pull`); a chart pinned both ways, both.
 */
export function pinnedUnpackings(repo: Repo): Map<string, Set<'argocd' | 'helm-pull'>> {
  const ways = new Map<string, Set<'argocd' | 'helm-pull'>>();
  const add = (ref: ChartRef, how: 'argocd' | 'helm-pull') => ways.set(chartId(ref), (ways.get(chartId(ref)) ?? new Set()).add(how));
  for (const app of applications(repo)) {
    for (const source of app.sources) {
      const ref = chartRefOf(source);
      if (ref) add(ref, 'argocd');
      for (const { ref: inflated } of kustomizeCharts(repo, source)) add(inflated, 'helm-pull');
    }
  }
  return ways;
}

/** Every distinct chart the Applications pin, theirs, their kustomizations' and their charts' dependencies, in a stable order. */
export function pinnedCharts(repo: Repo): ChartRef[] {
  const byId = new Map<string, ChartRef>();
  for (const app of applications(repo)) {
    for (const source of app.sources) {
      const ref = chartRefOf(source);
      if (ref) byId.set(chartId(ref), ref);
      for (const { ref: inflated } of kustomizeCharts(repo, source)) byId.set(chartId(inflated), inflated);
      // Used as the archive itself: `helm dependency build` puts it in charts/ packed, so it has no unpacking.
      for (const { ref: dependency } of dependencyCharts(repo, source)) byId.set(chartId(dependency), dependency);
    }
  }
  return [...byId.values()].sort((a, b) => chartId(a).localeCompare(chartId(b)));
}

/** The cached archive of a chart: one folder per repository, named so a person can read it. */
export function cachedChartPath(ref: ChartRef, env: NodeJS.ProcessEnv = process.env): string {
  // The name and version come from a pull request: they name a file, so no path may hide in them.
  assertChartRef(ref.chart, ref.version);
  const repoDir = ref.repoURL.replace(/^[a-z]+:\/\//i, '').replace(/[^A-Za-z0-9._-]+/g, '_');
  return join(chartCacheDir(env), repoDir, `${ref.chart.replace(/\//g, '__')}-${ref.version}.tgz`);
}

/** Where pulled charts sit: HOMELAB_CHART_CACHE, or `charts/` in the cache. */
export function chartCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.HOMELAB_CHART_CACHE || join(cacheRoot(env), 'charts');
}

export interface LockEntry extends ChartRef {
  /** `sha256:<hex>` of the archive, as in a chart repository's index.yaml (and an OCI layer digest). */
  digest: string;
}

/**
 * A pinned chart whose published digest could not be read where the lock was
 * written: named, with why, until a person with network runs
 * `charts:pull --update-lock`. It is no digest: nothing renders from it, and
 * `--frozen` refuses it with the command that records one.
 */
export interface PendingEntry extends ChartRef {
  reason: string;
}

export interface ChartLock {
  charts: LockEntry[];
  /** Charts pinned before their digest was recorded; absent when there are none. */
  pending?: PendingEntry[];
  /** Remote kustomize bases (render/remote-bases.ts): each https URL with the sha256 of what it served. */
  remotes?: RemoteEntry[];
}

export function readLock(root: string): ChartLock {
  const path = join(root, CHART_LOCK_FILE);
  if (!existsSync(path)) return { charts: [] };
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${CHART_LOCK_FILE}: not valid JSON (${(err as Error).message.split('\n')[0]})`);
  }
  const { charts, pending = [], remotes = [] } = data as { charts?: unknown; pending?: unknown; remotes?: unknown };
  const all = (list: unknown, keys: string[]) =>
    Array.isArray(list) && list.every((c: Record<string, unknown>) => keys.every((k) => typeof c?.[k] === 'string'));
  if (!all(charts, ['repoURL', 'chart', 'version', 'digest']) || !all(pending, ['repoURL', 'chart', 'version', 'reason']) || !all(remotes, ['url', 'digest']))
    throw new Error(
      `${CHART_LOCK_FILE}: expected {"charts": [{"repoURL", "chart", "version", "digest"}], "pending": [{"repoURL", "chart", "version", "reason"}], "remotes": [{"url", "digest"}]}`,
    );
  return {
    charts: charts as LockEntry[],
    ...((pending as PendingEntry[]).length ? { pending: pending as PendingEntry[] } : {}),
    ...((remotes as RemoteEntry[]).length ? { remotes: remotes as RemoteEntry[] } : {}),
  };
}

export function formatLock(lock: ChartLock): string {
  const byId = <T extends ChartRef>(list: readonly T[]) => [...list].sort((a, b) => chartId(a).localeCompare(chartId(b)));
  const charts = byId(lock.charts).map(({ repoURL, chart, version, digest }) => ({ repoURL, chart, version, digest }));
  const pending = byId(lock.pending ?? []).map(({ repoURL, chart, version, reason }) => ({ repoURL, chart, version, reason }));
  const remotes = [...(lock.remotes ?? [])].sort((a, b) => a.url.localeCompare(b.url)).map(({ url, digest }) => ({ url, digest }));
  return `${JSON.stringify({ charts, ...(pending.length ? { pending } : {}), ...(remotes.length ? { remotes } : {}) }, null, 2)}\n`;
}

const sameChart = (a: ChartRef, b: ChartRef) => a.repoURL === b.repoURL && a.chart === b.chart && a.version === b.version;

export function lockEntryFor(lock: ChartLock, ref: ChartRef): LockEntry | undefined {
  return lock.charts.find((c) => sameChart(c, ref));
}

export function remoteEntryFor(lock: ChartLock, url: string): RemoteEntry | undefined {
  return lock.remotes?.find((r) => r.url === url);
}

export function pendingEntryFor(lock: ChartLock, ref: ChartRef): PendingEntry | undefined {
  return lock.pending?.find((c) => sameChart(c, ref));
}

export function digestOf(bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** The digest of a chart's cached archive, or undefined when it is not cached. */
export function cachedDigest(ref: ChartRef, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const path = cachedChartPath(ref, env);
  return existsSync(path) ? digestOf(readFileSync(path)) : undefined;
}
