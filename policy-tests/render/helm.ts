/**
 * Helm sources: a chart from a chart repository (checked against the lock)
 * or at a path of this repository, rendered with `helm template` and the
 * flags Argo CD 3 passes, its values files read by the model's one route.
 */
import { parseErrorLine } from '../model/core/findings.ts';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { sourceApiVersions, sourceKubeVersion, sourceParameterFiles } from '../model/argocd/repo-server.ts';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { normalizeSourcePath, type AppSource, type ArgoApp } from '../model/argocd/argocd.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import { sourceFile, valueFilesOf } from '../model/argocd/source-files.ts';
import { inlineValues } from '../model/helm/inline-values.ts';
import { argoSetArgument } from '../model/helm/strvals.ts';
import { parseDataFile, type DataFile, type Repo } from '../model/repository/repo.ts';
import { cachedRun, cachedScope } from './cache.ts';
import { chartId, chartRefOf } from './charts.ts';
import { chartFiles, chartScopeFromFolder, folderEntries } from './chart-files.ts';
import { extractedChart, unpackingKey } from './chart-extract.ts';
import { mayReadApiVersions } from './chart-traits.ts';
import { buildsDependencies } from '../model/helm/chart-dependencies.ts';
import {
  buildDependencies,
  builtChart,
  builtChartPath,
  fetchedArchives,
  isMissingDependencyError,
  localDependencies,
  lockedArchive,
} from './helm-dependencies.ts';
import { hash, NotRendered, substitutedBuildEnv, type Context, type Invocation } from './context.ts';
import { assertNoEscapingLinks, assertRealInside, assertSize, confinedRel, RenderRefused } from './limits.ts';
import { toResources } from './output.ts';

/** The values files a source renders with (model/argocd/source-files.ts), each checked as Argo CD reads it: there, inside the repository, within the size limit, and parsed. */
function readValueFiles(ctx: Context, { app, source }: { app: ArgoApp; source: AppSource }, chartPath: string): { abs: string; data: DataFile }[] {
  const out: { abs: string; data: DataFile }[] = [];
  for (const valueFile of valueFilesOf(ctx.repo, app, source)) {
    // A file of the chart archive: Argo CD reads it from the extracted chart, as the gate does not; one the chart
    // lacks fails the source as one the repository lacks does (Helm's "no such file or directory").
    if ('inChart' in valueFile && valueFile.inChart !== undefined && !existsSync(join(chartPath, valueFile.inChart))) {
      if (source.helm?.ignoreMissingValueFiles) continue;
      throw new Error(
        `value file ${valueFile.entry} is neither a file of this repository (write $values/<path> with a source ref: values) nor one of the chart archive: Argo CD fails the sync unless helm.ignoreMissingValueFiles is set`,
      );
    }
    if ('notRendered' in valueFile) throw new NotRendered(valueFile.notRendered);
    if ('refused' in valueFile) throw new RenderRefused(valueFile.refused);
    if ('error' in valueFile) throw new Error(valueFile.error);
    const { entry, rel } = valueFile;
    const abs = join(ctx.repo.root, rel);
    if (!existsSync(abs)) {
      if (source.helm?.ignoreMissingValueFiles) continue;
      throw new Error(`value file ${entry} does not exist (${rel}); Argo CD fails the sync unless helm.ignoreMissingValueFiles is set`);
    }
    assertRealInside(abs, ctx.repo.root, `value file ${entry}`, ctx.realPathOf);
    assertSize(abs, ctx.limits.valuesBytes, `value file ${entry}`, 'HOMELAB_RENDER_MAX_VALUES_MIB');
    const data = ctx.repo.dataFiles.get(rel) ?? parseDataFile(rel, readFileSync(abs, 'utf8'));
    if (data.errors[0]) throw new Error(`value file ${rel} does not parse: ${parseErrorLine(data.file, data.errors[0])}`);
    out.push({ abs, data });
  }
  return out;
}

/**
 * The chart as the render found it: where it is unpacked, its cache key, whether its templates read the API
 * versions, and whether two prints of it with the same inputs are alike by its templates (chart-traits.ts).
 */
interface ChartAt {
  chartPath: string;
  chartKey: string;
  chartReadsApiVersions: boolean;
  chartRepeatable: boolean;
}

/** The `helm template` call Argo CD 3 makes for a source (util/helm/cmd.go, in its order). */
function helmInvocation(
  ctx: Context,
  { app, source }: { app: ArgoApp; source: AppSource },
  { chartPath, chartKey, chartReadsApiVersions, chartRepeatable }: ChartAt,
  values: { abs: string; data: DataFile }[],
): Invocation {
  const helm = source.helm ?? {};
  const args = ['template', chartPath, '--name-template', helm.releaseName ?? app.name];
  const namespace = helm.namespace ?? app.destinationNamespace;
  if (namespace) args.push('--namespace', namespace);
  const kube = sourceKubeVersion(source, ctx.kubernetesVersion);
  if ('error' in kube) throw new RenderRefused(kube.error);
  if (kube.version) args.push('--kube-version', kube.version);
  // Argo CD substitutes its build environment in each parameter's value (Envsubst), and in each file parameter's path
  // (sourceFile), and escapes each value's commas but a list's (cleanSetParameters: one parameter is one value).
  for (const p of helm.parameters ?? [])
    args.push(
      p.forceString ? '--set-string' : '--set',
      `${p.name}=${argoSetArgument(substitutedBuildEnv(String(p.value ?? ''), { app, source }, `helm parameter ${p.name}`))}`,
    );
  const fileParams = (helm.fileParameters ?? []).map((p) => {
    const file = sourceFile(ctx.repo, { app, source }, String(p.path), `file parameter ${p.name}`);
    if ('notRendered' in file) throw new NotRendered(file.notRendered);
    if ('refused' in file) throw new RenderRefused(file.refused);
    if ('error' in file) throw new Error(file.error);
    const abs = join(ctx.repo.root, file.rel);
    if (existsSync(abs)) {
      assertRealInside(abs, ctx.repo.root, `file parameter ${p.name}`, ctx.realPathOf);
      assertSize(abs, ctx.limits.valuesBytes, `file parameter ${p.name}`, 'HOMELAB_RENDER_MAX_VALUES_MIB');
    }
    args.push('--set-file', `${p.name}=${argoSetArgument(abs)}`);
    return existsSync(abs) ? readFileSync(abs, 'utf8') : '';
  });
  for (const v of values) args.push('--values', v.abs);
  let extra: string | undefined;
  if (helm.valuesObject !== undefined) extra = stringify(helm.valuesObject);
  else if (helm.values !== undefined) extra = helm.values;
  if (extra !== undefined) {
    const file = join(ctx.scratch, `${hash(extra).slice(0, 16)}-values.yaml`);
    writeFileSync(file, extra);
    args.push('--values', file);
  }
  for (const v of sourceApiVersions(source, ctx.apiVersions)) args.push('--api-versions', v);
  if (!helm.skipCrds) args.push('--include-crds');
  if (helm.skipSchemaValidation) args.push('--skip-schema-validation');
  if (helm.skipTests) args.push('--skip-tests');
  const keyArgs = args.slice(2).map((a) => (values.some((v) => v.abs === a) || a.startsWith(ctx.scratch) ? '<file>' : a));
  const withoutApiVersions = keyArgs.filter((a, i) => a !== '--api-versions' && keyArgs[i - 1] !== '--api-versions');
  const inputs = { values: values.map((v) => readFileSync(v.abs, 'utf8')), extra, fileParams };
  const sourceKey = { tools: ctx.tools.versions, chartKey, args: withoutApiVersions, ...inputs };
  // A chart that cannot see --api-versions (nor can a values string it renders with tpl) renders the same whatever the
  // cluster serves: its key leaves them out, so the next pass, and the next run after a CRD arrives, find it cached.
  const readsApiVersions = chartReadsApiVersions || mayReadApiVersions('', JSON.stringify(sourceKey));
  const key = readsApiVersions ? { ...sourceKey, args: keyArgs } : { ...sourceKey, apiVersions: 'not read by the chart' };
  // No template calls anything random, of the clock or `tpl`: the values cannot make one, so one print answers.
  return { bin: ctx.tools.helm, args, cwd: ctx.scratch, key, sourceKey, pure: chartRepeatable };
}

/** The folder Argo CD's repo-server renders an extracted chart from (util/helm/client.go normalizeChartName). */
function argoChartFolder(chart: string): string {
  const last = chart.slice(chart.lastIndexOf('/') + 1);
  return last === '' || last === '.' || last === '..' ? chart : last;
}

/** What `list` gives, or nothing where it cannot give it now (whoever needs it later asks again, and says why). */
function orNone<T>(list: () => T[]): T[] {
  try {
    return list();
  } catch {
    return [];
  }
}

/** Content hash of files under a folder of the repository (a chart at a path, a dependency it builds from). */
function folderKey(repo: Repo, dir: string): string {
  return hash(chartFiles(repo, dir).map((f) => [f, hash(readFileSync(join(repo.root, f)))]));
}

export async function renderHelm(ctx: Context, app: ArgoApp, source: AppSource, base: SourceRender): Promise<SourceRender> {
  let chartPath: string;
  let chartKey: string;
  let scope;
  let localChart: { dir: string; chartKey: string } | undefined;
  let buildFirst: (() => Promise<void>) | undefined;
  const ref = chartRefOf(source);
  if (ref) {
    const { path: archive, digest } = lockedArchive(ctx, ref);
    // Argo CD renders the chart extracted (util/helm/client.go ExtractChart), from the folder the Application's chart
    // names (normalizeChartName: its last path segment): one archive's extraction serves every source of the chart.
    const extracted = await extractedChart(ctx.env, { archive, digest }, { unpackedLimit: ctx.limits.unpackedBytes });
    const folder = argoChartFolder(ref.chart);
    chartPath = join(extracted, folder);
    chartKey = `${unpackingKey(digest, 'argocd')} ${folder}`;
    if (!existsSync(chartPath))
      throw new Error(
        `chart archive ${chartId(ref)} unpacks to ${readdirSync(extracted).sort().join('/, ') || 'nothing'}/, not ${folder}/: Argo CD renders the folder its chart name gives, and fails the source (path not found)`,
      );
    // The extracted chart is the source's folder to Argo CD: its repo-server merges the source parameter files it finds
    // there (GetAppSourceType, mergeSourceParameters), which the chart's author wrote, and the gate does not take them.
    const planted = sourceParameterFiles(new Set(readdirSync(chartPath)), '', app.name).filter((f) => statSync(join(chartPath, f)).isFile());
    if (planted.length)
      throw new RenderRefused(
        `chart archive ${chartId(ref)} holds ${planted.join(' and ')} beside its Chart.yaml, which Argo CD's repo-server merges into the source of Application ${app.name} as it renders the extracted chart: its author would set the source's options, which the gate does not take`,
      );
    scope = await cachedScope(ctx, chartPath, unpackingKey(digest, 'argocd'));
  } else {
    const dir = confinedRel(normalizeSourcePath(source.path ?? ''), 'chart path');
    chartPath = join(ctx.repo.root, dir);
    // Helm follows a chart's symlinks (.Files.Get reads through them): none may leave the chart.
    assertRealInside(chartPath, ctx.repo.root, `chart path ${dir}`, ctx.realPathOf);
    if (existsSync(chartPath)) assertNoEscapingLinks(chartPath, chartPath, `chart at ${dir}`);
    // A dependency built from a folder of the repository (file://) renders into the chart: its files are the key's too.
    const dependencies = localDependencies(ctx.repo, dir);
    // What the build would fetch from a chart repository, where the lock and the cache have it; where they do not, the
    // build says why, if Helm asks for it (a chart that vendors them under other names never builds).
    const fetched = orNone(() => fetchedArchives(ctx, dir));
    chartKey =
      dependencies.length || fetched.length
        ? hash([folderKey(ctx.repo, dir), ...dependencies.map((d) => folderKey(ctx.repo, d)), ...fetched.map((f) => f.digest)])
        : folderKey(ctx.repo, dir);
    localChart = { dir, chartKey };
    chartPath = (await builtChart(ctx, chartKey)) ?? chartPath;
    // Where Argo CD's checkout lacks a dependency, its template fails and it builds: the gate renders the built copy
    // at once, so that what a local build left in charts/, which git ignores, is never what is rendered; it builds
    // only when the render is not in the cache.
    if (buildsDependencies(ctx.repo, dir)) {
      const key = chartKey;
      chartPath = builtChartPath(ctx, dir, key);
      buildFirst = async () => void (await buildDependencies(ctx, dir, key));
    }
    // A dependency built from a folder renders into the chart as its subchart, as `helm dependency build` unpacks it
    // under charts/: its defaults are the subchart's (values under its key reach it), its templates the chart's. One
    // fetched lies there packed, as the build downloads it.
    const files = [
      ...folderEntries(ctx.repo, dir),
      ...dependencies.flatMap((d) => folderEntries(ctx.repo, d, `charts/${d.split('/').pop()}/`)),
      ...fetched.map((f): [string, string] => [`charts/${f.ref.chart}-${f.ref.version}.tgz`, f.path]),
    ];
    scope = await chartScopeFromFolder(files, ctx.limits.unpackedBytes);
  }
  const values = readValueFiles(ctx, { app, source }, chartPath);
  const at = (path: string) =>
    helmInvocation(
      ctx,
      { app, source },
      { chartPath: path, chartKey, chartReadsApiVersions: scope.readsApiVersions !== false, chartRepeatable: scope.repeatable === true },
      values,
    );
  let rendered;
  try {
    rendered = await cachedRun(ctx, at(chartPath), buildFirst);
  } catch (err) {
    // Argo CD's order: template, and on a missing dependency, build the dependencies and template again.
    if (!localChart || buildFirst || !isMissingDependencyError((err as Error).message)) throw err;
    rendered = await cachedRun(ctx, at(await buildDependencies(ctx, localChart.dir, localChart.chartKey)));
  }
  const { docs, problem, nondeterministic, key } = rendered;
  if (problem) throw new Error(problem);
  // What the chart receives, in Argo CD's order: the value files, then what the Application carries itself.
  const data = [...values.map((v) => v.data), ...inlineValues(app, source, ctx.repo)];
  return {
    ...base,
    status: 'rendered',
    values: data,
    chart: scope,
    nondeterministic,
    madeOf: [`print ${key}`, `chart ${chartKey}`],
    resources: toResources({ app, source, label: base.label, docs, values: data, firstIndex: 0 }),
  };
}
