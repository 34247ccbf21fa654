/**
 * The render tier: every Application rendered the way Argo CD 3 renders it,
 * before anything is checked. Directory sources stay with the loader; Helm
 * sources (a chart from a chart repository over HTTP or OCI, or a chart at a
 * path of this repository) go through `helm template` with Argo CD's flags
 * (helm.ts); kustomize sources through kustomize (kustomize.ts). Renders are
 * cached by their inputs (cache.ts), so an unchanged Application costs
 * nothing. A chart that is not in the cache is reported as not rendered,
 * never as valid. This module is the pass loop: the API versions grow with
 * the CRDs renders bring, until they settle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { runtimeApiVersions } from '../model/argocd/app-declarations.ts';
import { applications, filesOfSource, isThisRepo, sourceType, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import { jsonnetEnabled } from '../model/argocd/jsonnet.ts';
import { argocdSettings } from '../model/controller/resource-filter.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import type { Resource } from '../model/core/manifest.ts';
import type { Repo } from '../model/repository/repo.ts';
import { readSettled, writeSettled } from './cache.ts';
import { readLock } from './charts.ts';
import { hash, NotRendered, sourceLabel, type Context, type ToolSource } from './context.ts';
import { renderHelm } from './helm.ts';
import { renderJsonnet } from './jsonnet.ts';
import { renderKustomize } from './kustomize.ts';
import { realPaths, renderLimits, type RenderLimits } from './limits.ts';
import { cacheRoot, renderTools, type RenderTools } from './tools.ts';

export interface RenderOptions {
  /** `group/version` and `group/version/Kind` of every built-in API the cluster serves. */
  builtinApiVersions: readonly string[];
  env?: NodeJS.ProcessEnv;
  /** Render the tool once more on a cache miss and compare (on by default). */
  checkDeterminism?: boolean;
  /** Render only these Applications' sources (bootstrap installs the CNI before Argo CD exists); every one by default. */
  apps?: readonly string[];
  /**
   * Render with these API versions alone, no CRD nor declared API added, in one pass: the rendered diff renders a
   * chart that can read the API versions once more with the built-in ones only, to see whether its output depends on them.
   */
  onlyApiVersions?: readonly string[];
  /** Helm's --kube-version for every chart that does not set its own: the gate's --kubernetes-version; the facts' by default. */
  kubernetesVersion?: string;
}

export interface RenderResult {
  renders: SourceRender[];
  /** Every API version passed to Helm: built-in, plus every CRD in the repository or any render. */
  apiVersions: string[];
  tools?: string;
}

/** The API versions of CRDs: both `group/version` and `group/version/Kind`, as Argo CD passes them. */
export function crdApiVersions(resources: Iterable<Resource>): string[] {
  const out = new Set<string>();
  for (const r of resources) {
    if (r.kind !== 'CustomResourceDefinition') continue;
    const spec = (r.object.spec ?? {}) as { group?: unknown; names?: { kind?: unknown }; versions?: { name?: unknown; served?: unknown }[] };
    if (typeof spec.group !== 'string' || typeof spec.names?.kind !== 'string') continue;
    for (const v of spec.versions ?? []) {
      if (typeof v.name !== 'string' || v.served === false) continue;
      out.add(`${spec.group}/${v.name}`);
      out.add(`${spec.group}/${v.name}/${spec.names.kind}`);
    }
  }
  return [...out];
}

/** `group/version` and `group/version/Kind` of every custom kind the plain manifests use. */
export function usedApiVersions(resources: Iterable<Resource>): string[] {
  const out = new Set<string>();
  for (const r of resources) {
    if (!r.apiVersion.includes('/') || r.rendered) continue;
    out.add(r.apiVersion);
    out.add(`${r.apiVersion}/${r.kind}`);
  }
  return [...out];
}

async function renderSource(ctx: Context, { app, source, type }: RenderTarget): Promise<SourceRender> {
  const base: SourceRender = {
    app,
    source,
    label: sourceLabel(source, type),
    status: 'failed',
    resources: [],
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  };
  try {
    if (type === 'kustomize') return await renderKustomize(ctx, app, source, base);
    return type === 'jsonnet' ? await renderJsonnet(ctx, app, source, base) : await renderHelm(ctx, app, source, base);
  } catch (err) {
    return { ...base, status: err instanceof NotRendered ? 'not-rendered' : 'failed', message: (err as Error).message };
  }
}

/** Runs `tasks` with at most `limit` in flight. */
async function pool<T>(tasks: (() => Promise<T>)[], limit: number): Promise<T[]> {
  const out: T[] = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      out[i] = await tasks[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return out;
}

/** A source that needs a tool, with its type, worked out once (each pass of the loop renders it again). */
interface RenderTarget {
  app: ArgoApp;
  source: AppSource;
  type: ToolSource;
}

const needsTool = (type: string): type is ToolSource => type === 'chart' || type === 'helm-path' || type === 'kustomize';

/**
 * The sources that need a tool: charts, charts at a path, kustomizations, and directory sources whose walk reads a
 * `.jsonnet` file, where argocd-cm lets Argo CD evaluate jsonnet (their YAML files stay with the loader).
 */
export function renderableSources(repo: Repo): RenderTarget[] {
  const jsonnet = jsonnetEnabled(argocdSettings([], repo)?.data);
  return applications(repo).flatMap((app) =>
    app.sources.flatMap((source): RenderTarget[] => {
      const type = sourceType(repo, source);
      if (needsTool(type)) return [{ app, source, type }];
      const evaluates = jsonnet && type === 'directory' && isThisRepo(repo, source) && filesOfSource(repo, source).some((f) => f.endsWith('.jsonnet'));
      return evaluates ? [{ app, source, type: 'jsonnet' }] : [];
    }),
  );
}

/** Each of `targets` as not rendered (or failed) with `message`, rendering nothing. */
function unrenderedAs(targets: readonly RenderTarget[], status: 'not-rendered' | 'failed', message: string): SourceRender[] {
  return targets.map(({ app, source, type }) => ({
    app,
    source,
    label: sourceLabel(source, type),
    status,
    message,
    resources: [],
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  }));
}

/** Every source that needs a tool, as not rendered with `message`: what --no-render reports instead of rendering. */
export function unrenderedSources(repo: Repo, message: string): SourceRender[] {
  return unrenderedAs(renderableSources(repo), 'not-rendered', message);
}

/** What every pass of one run shares; a pass adds its API versions, whether it defers the determinism check, and each source its own owed set. */
type PassShared = Omit<Context, 'apiVersions' | 'deferDeterminism' | 'owed' | 'realPathOf'>;

/**
 * The pass loop: every source rendered with `start`, then again while the CRDs the renders bring grow the API
 * versions (at most three passes; `grownFrom` undefined: one). Every pass defers the determinism check, since only
 * the last one's output is kept and it is not known to be the last until it is done; the pass that settled then
 * pays the second print it owes for each source no earlier pass printed alike (render/cache.ts), and only then
 * caches it.
 */
async function renderUntilSettled(
  shared: PassShared,
  targets: readonly RenderTarget[],
  start: string[],
  grownFrom: ((renders: readonly SourceRender[]) => string[]) | undefined,
): Promise<{ renders: SourceRender[]; apiVersions: string[] }> {
  const renderPass = async (apiVersions: readonly string[], deferDeterminism: boolean, which: readonly number[]) => {
    const realPathOf = realPaths();
    // Each source with its own owed set, so the settling pass knows whose second print it owes.
    const owedBy = which.map(() => new Set<string>());
    const out = await pool(
      which.map((i, n) => () => renderSource({ ...shared, apiVersions, deferDeterminism, owed: owedBy[n]!, realPathOf }, targets[i]!)),
      Math.max(2, availableParallelism()),
    );
    return { out, owing: which.filter((_, n) => owedBy[n]!.size > 0) };
  };
  const every = targets.map((_, i) => i);
  let apiVersions = start;
  let pass = await renderPass(apiVersions, true, every);
  for (let n = 1; n < 3 && grownFrom; n++) {
    const grown = grownFrom(pass.out);
    if (grown.join('\n') === apiVersions.join('\n')) break;
    apiVersions = grown;
    pass = await renderPass(apiVersions, true, every);
  }
  const renders = pass.out;
  if (pass.owing.length) {
    const settled = await renderPass(apiVersions, false, pass.owing);
    pass.owing.forEach((i, n) => (renders[i] = settled.out[n]!));
  }
  return { renders, apiVersions };
}

/** Renders every Application source that needs a tool. The API versions grow with the CRDs renders produce, until they settle. */
export async function renderRepo(repo: Repo, options: RenderOptions): Promise<RenderResult> {
  const targets = renderableSources(repo).filter(({ app }) => !options.apps || options.apps.includes(app.name));
  if (targets.length === 0) return { renders: [], apiVersions: [] };
  const env = options.env ?? process.env;
  let tools: RenderTools;
  try {
    tools = await renderTools(env);
  } catch (err) {
    const message = `render tools unavailable: ${(err as Error).message}`;
    return { renders: unrenderedAs(targets, 'not-rendered', message), apiVersions: [] };
  }
  const lock = readLock(repo.root);
  let limits: RenderLimits;
  try {
    limits = renderLimits(env);
  } catch (err) {
    return { renders: unrenderedAs(targets, 'failed', (err as Error).message), apiVersions: [] };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'homelab-render-'));
  try {
    // The cluster serves what the repository's own manifests use (a plain ServiceMonitor means the
    // ServiceMonitor API exists, whichever app installs it), and the CRDs any render brings.
    // And what operators register at run time, as their Applications declare it (provides-crds-at-runtime).
    const plain = new Set(
      options.onlyApiVersions ?? [
        ...options.builtinApiVersions,
        ...crdApiVersions(repo.resources),
        ...usedApiVersions(repo.resources),
        ...runtimeApiVersions(repo),
      ],
    );
    // Start from the set the last run settled at (the fixpoint still checks it), so a warm run renders once. Kept per
    // repository (its facts' repoURL), not per folder: a diff's base is a new worktree each run, the same repository.
    const settledFile = join(cacheRoot(env), 'renders', `settled-${hash(repo.facts?.repoURL || repo.root).slice(0, 16)}.json`);
    const settledStart = [...new Set([...plain, ...(options.onlyApiVersions ? [] : readSettled(settledFile))])].sort();
    const shared: PassShared = {
      repo,
      tools,
      lock,
      env,
      checkDeterminism: options.checkDeterminism ?? true,
      scratch,
      limits,
      earlier: new Map(),
      chunks: new Map(),
      builtCharts: new Map(),
      kubernetesVersion: options.kubernetesVersion ?? repo.facts?.kubernetesVersion,
    };
    const grownFrom = options.onlyApiVersions
      ? undefined
      : (renders: readonly SourceRender[]) => [...new Set([...plain, ...crdApiVersions(renders.flatMap((r) => r.resources))])].sort();
    const { renders, apiVersions } = await renderUntilSettled(shared, targets, settledStart, grownFrom);
    // A partial render settles on part of the set: only a whole one may be remembered.
    if (!options.apps)
      writeSettled(
        settledFile,
        apiVersions.filter((v) => !plain.has(v)),
      );
    // One index per Application across its sources, so every rendered resource has a unique id.
    const nextIndex = new Map<string, number>();
    for (const r of renders) {
      const start = nextIndex.get(r.app.name) ?? 0;
      r.resources.forEach((res, i) => (res.rendered!.id = `${r.app.name}#${start + i}`));
      nextIndex.set(r.app.name, start + r.resources.length);
    }
    return { renders, apiVersions, tools: tools.versions };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
