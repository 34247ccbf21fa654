/**
 * A chart at a path of the repository whose dependencies are not in its `charts/` folder, built as Argo CD builds it:
 * the repo-server runs `helm template`, and on Helm's missing-dependency error (util/helm `IsMissingDependencyErr`)
 * runs `helm dependency build` in the chart's folder and templates again (reposerver `runHelmBuild`). The gate never
 * writes into the checkout, so it builds in a copy under the run's scratch folder, laid out as the repository is, so
 * that a `file://` dependency's relative path still names the same folder. A `file://` dependency is part of the
 * render's key; one outside the repository is refused. One the build fetches from a chart repository is handed to
 * the real Helm from the chart cache, held to the lock (offline-chart-repo.ts), and its digest is part of the key;
 * one no lock can pin (an OCI registry, a range with no Chart.lock) makes the source not rendered, saying why.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, sep } from 'node:path';
import { confinedPath } from '../model/argocd/source-files.ts';
import { checkoutTree, type Repo } from '../model/repository/repo.ts';
import { chartCache } from './chart-cache.ts';
import { declaredDependencies, fetchedDependencies } from '../model/helm/chart-dependencies.ts';
import { chartId, digestOf, PULL_COMMAND, type ChartRef } from './charts.ts';
import { hash, NotRendered, runTool, type Context } from './context.ts';
import { assertNoEscapingLinks, assertRealInside, assertSize, RenderRefused } from './limits.ts';
import { withOfflineChartRepos } from './offline-chart-repo.ts';

/** Helm's missing-dependency errors, as Argo CD recognises them. */
export const isMissingDependencyError = (message: string): boolean =>
  message.includes('found in requirements.yaml, but missing in charts') || message.includes('found in Chart.yaml, but missing in charts/ directory');

/**
 * A pinned chart's archive in the cache, where it is the bytes the lock records: its path and digest. Otherwise why
 * not, thrown as Argo CD's render would see it: not rendered where it is not pulled yet, an error where it is
 * other bytes, refused past the archive size limit (measured before it is read whole).
 */
export function lockedArchive(ctx: Context, ref: ChartRef, what = ''): { path: string; digest: string } {
  const cache = chartCache(ctx.env);
  const path = cache.path(ref);
  if (!existsSync(path)) throw new NotRendered(`${what}not in the chart cache: run ${PULL_COMMAND}`);
  assertSize(path, ctx.limits.archiveBytes, `chart archive ${chartId(ref)}`, 'HOMELAB_RENDER_MAX_CHART_MIB');
  const verified = cache.verify(ref, ctx.lock);
  if ('why' in verified) throw verified.notCached ? new NotRendered(verified.why) : new Error(verified.why);
  return verified;
}

/**
 * The archives the build of the chart at `dir` fetches, each held to the lock (none where its `charts/` vendors
 * every dependency): what the render key and the chart's traits take in. Throws, as lockedArchive does, where one
 * cannot be had, and not rendered where one cannot be pinned.
 */
export function fetchedArchives(ctx: Context, dir: string): { ref: ChartRef; fromLock: boolean; path: string; digest: string }[] {
  return fetchedDependencies(ctx.repo, dir).map((d) => {
    if ('unpinned' in d)
      throw new NotRendered(`the chart at ${dir || '.'} fetches its dependency ${d.name} from ${d.unpinned}; the gate renders only what a lock pins`);
    return { ref: d.ref, fromLock: d.fromLock, ...lockedArchive(ctx, d.ref, `the chart at ${dir || '.'} fetches its dependency ${chartId(d.ref)}, `) };
  });
}

/**
 * The `file://` folders a chart at `dir` builds its dependencies from (relative to the chart's folder, as Helm joins
 * them): each inside the repository, their files part of the render's key. Empty where it declares none.
 */
export function localDependencies(repo: Repo, dir: string): string[] {
  return declaredDependencies(repo, dir).flatMap((dep) => {
    if (!dep.repository.startsWith('file://')) return [];
    const path = dep.repository.slice('file://'.length);
    const folder = confinedPath(path.startsWith('/') ? path : posix.join(dir, path), 'dependency');
    // The repository's root would copy the whole checkout for one chart: Helm would package all of it.
    if (!('refused' in folder) && folder.rel === '')
      throw new RenderRefused(
        `the chart at ${dir || '.'} builds its dependency ${dep.name} from the repository's root (${dep.repository}): name the dependency's own folder`,
      );
    if ('refused' in folder)
      throw new RenderRefused(
        `the chart at ${dir || '.'} builds its dependency ${dep.name} from ${dep.repository}, outside the repository; the gate reads nothing there, so what it yields would reach the cluster unjudged`,
      );
    return [folder.rel];
  });
}

/** The built copy's chart folder, where this run has built it already: later passes template it directly. */
export function builtChart(ctx: Context, chartKey: string): Promise<string> | undefined {
  return ctx.builtCharts.get(chartKey);
}

/**
 * Builds the chart at `dir` in a scratch copy, as `helm dependency build` builds it in Argo CD's checkout, and returns
 * the copy's chart folder, once per run: a `file://` dependency from the repository, one from a chart repository from
 * the lock's archive in the cache.
 */
export function buildDependencies(ctx: Context, dir: string, chartKey: string): Promise<string> {
  let out = ctx.builtCharts.get(chartKey);
  if (!out) {
    out = build(ctx, dir, chartKey);
    ctx.builtCharts.set(chartKey, out);
    // A failed build is not kept: the next pass tries again, and says why.
    out.catch(() => ctx.builtCharts.delete(chartKey));
  }
  return out;
}

/** Where this run builds the chart at `dir` (buildDependencies), known before it is built: a render served from the cache needs no build. */
export function builtChartPath(ctx: Context, dir: string, chartKey: string): string {
  return join(ctx.scratch, 'dependencies', hash(chartKey).slice(0, 16), dir);
}

async function build(ctx: Context, dir: string, chartKey: string): Promise<string> {
  const fetched = fetchedArchives(ctx, dir);
  const root = join(ctx.scratch, 'dependencies', hash(chartKey).slice(0, 16));
  for (const rel of [dir, ...localDependencies(ctx.repo, dir)]) {
    const from = join(ctx.repo.root, rel);
    assertRealInside(from, ctx.repo.root, `chart folder ${rel}`, ctx.realPathOf);
    if (!existsSync(from)) continue; // Helm names the missing folder.
    assertNoEscapingLinks(from, from, `chart at ${rel}`);
    mkdirSync(join(root, rel), { recursive: true });
    // Only the checkout's files, as git lists them (Argo CD's clone): a local build's ignored charts/ never reaches Helm.
    const tracked = new Set(checkoutTree(ctx.repo));
    cpSync(from, join(root, rel), {
      recursive: true,
      verbatimSymlinks: true,
      filter: (src) => {
        const file = relative(ctx.repo.root, src).split(sep).join('/');
        return !existsSync(src) || !statSync(src).isFile() || tracked.has(file);
      },
    });
  }
  const chartPath = builtChartPath(ctx, dir, chartKey);
  // The bytes read once and held to the digest again: what Helm is served is what was checked.
  const served = fetched.map(({ ref, fromLock, path, digest }) => ({
    ...ref,
    named: /^https:\/\//i.test(ref.repoURL) || !fromLock,
    digest,
    bytes: readFileSync(path),
  }));
  for (const chart of served)
    if (digestOf(chart.bytes) !== chart.digest) throw new Error(`chart archive ${chartId(chart)} changed while it was read: run the gate again`);
  const helmHome = join(ctx.scratch, 'dependencies', `${hash(chartKey).slice(0, 16)}-repositories`);
  await withOfflineChartRepos(helmHome, served, (flags) =>
    runTool(ctx, { bin: ctx.tools.helm, args: ['dependency', 'build', chartPath, ...flags], cwd: ctx.scratch, key: null, sourceKey: null }),
  );
  return chartPath;
}
