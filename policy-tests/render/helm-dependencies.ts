/**
 * A chart at a path of the repository whose dependencies are not in its `charts/` folder, built as Argo CD builds it:
 * the repo-server runs `helm template`, and on Helm's missing-dependency error (util/helm `IsMissingDependencyErr`)
 * runs `helm dependency build` in the chart's folder and templates again (reposerver `runHelmBuild`). The gate never
 * writes into the checkout, so it builds in a copy under the run's scratch folder, laid out as the repository is, so
 * that a `file://` dependency's relative path still names the same folder. A `file://` dependency is part of the
 * render's key; one outside the repository is refused, and one from a chart repository or a registry, which the build
 * would fetch, makes the source not rendered (the gate renders offline).
 */
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { parse } from 'yaml';
import { confinedPath } from '../model/argocd/source-files.ts';
import type { Repo } from '../model/repository/repo.ts';
import { hash, NotRendered, runTool, type Context } from './context.ts';
import { assertNoEscapingLinks, assertRealInside, RenderRefused } from './limits.ts';

/** Helm's missing-dependency errors, as Argo CD recognises them. */
export const isMissingDependencyError = (message: string): boolean =>
  message.includes('found in requirements.yaml, but missing in charts') || message.includes('found in Chart.yaml, but missing in charts/ directory');

interface Dependency {
  name: string;
  repository: string;
}

/** The dependencies a chart's Chart.yaml (or an apiVersion v1 chart's requirements.yaml) declares. */
function declaredDependencies(repo: Repo, dir: string): Dependency[] {
  const read = (file: string): unknown => {
    const abs = join(repo.root, dir, file);
    if (!existsSync(abs)) return undefined;
    try {
      return parse(readFileSync(abs, 'utf8'));
    } catch {
      return undefined; // Helm says what is wrong with it when it templates.
    }
  };
  const list = (doc: unknown): Dependency[] => {
    const deps = (doc as { dependencies?: unknown } | undefined)?.dependencies;
    if (!Array.isArray(deps)) return [];
    return deps.flatMap((d: { name?: unknown; repository?: unknown }) =>
      typeof d?.name === 'string' ? [{ name: d.name, repository: typeof d.repository === 'string' ? d.repository : '' }] : [],
    );
  };
  return [...list(read('Chart.yaml')), ...list(read('requirements.yaml'))];
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
 * the copy's chart folder, once per run. Only `file://` dependencies can be built offline; any other makes the source
 * not rendered.
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

async function build(ctx: Context, dir: string, chartKey: string): Promise<string> {
  const remote = declaredDependencies(ctx.repo, dir).filter((d) => !d.repository.startsWith('file://'));
  if (remote.length)
    throw new NotRendered(
      `the chart at ${dir || '.'} misses ${remote.map((d) => `${d.name} (${d.repository || 'no repository'})`).join(', ')} in charts/, which Argo CD's helm dependency build fetches; the gate renders offline: vendor it into ${dir}/charts/`,
    );
  const root = join(ctx.scratch, 'dependencies', hash(chartKey).slice(0, 16));
  for (const rel of [dir, ...localDependencies(ctx.repo, dir)]) {
    const from = join(ctx.repo.root, rel);
    assertRealInside(from, ctx.repo.root, `chart folder ${rel}`, ctx.realPathOf);
    if (!existsSync(from)) continue; // Helm names the missing folder.
    assertNoEscapingLinks(from, from, `chart at ${rel}`);
    mkdirSync(join(root, rel), { recursive: true });
    cpSync(from, join(root, rel), { recursive: true, verbatimSymlinks: true });
  }
  const chartPath = join(root, dir);
  await runTool(ctx, { bin: ctx.tools.helm, args: ['dependency', 'build', chartPath], cwd: ctx.scratch, key: null, sourceKey: null });
  return chartPath;
}
