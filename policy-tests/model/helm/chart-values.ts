/** Helm values of the chart sources in the repo, found through the Applications that use them, by the renderer's route (source-files.ts). */
import { isMap } from '../core/dig.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import { applications, type AppSource } from '../argocd/argocd.ts';
import { chartDirOf, chartFile, declaredDependencies } from './chart-dependencies.ts';
import { valueFilesOf } from '../argocd/source-files.ts';
import { inlineValues } from './inline-values.ts';
import { mergedValues } from './merged-values.ts';

export interface ChartValues {
  appName: string;
  file: string;
  values: Record<string, unknown>;
  source: DataFile;
}

/**
 * Where a source deploys `chart`: itself (`chart: <name>`, its values the chart's), or a chart at a path of this
 * repository that depends on it (a wrapper chart, chart-dependencies.ts), once per dependency on it (two aliases
 * deploy it twice): its values under the dependency's key, over the wrapper's own values.yaml, which Helm reads
 * first. None where the source deploys something else.
 */
function deployedAs(repo: Repo, source: AppSource, chart: string): { key?: string; defaults?: DataFile }[] {
  if (source.chart !== undefined) return source.chart === chart ? [{}] : [];
  const dir = chartDirOf(repo, source);
  if (dir === undefined) return [];
  const keys = new Set(declaredDependencies(repo, dir).flatMap((d) => (d.name === chart ? [d.key] : [])));
  return [...keys].map((key) => ({ key, defaults: chartValuesFile(repo, dir) }));
}

/** The values.yaml of a chart at a path of the repository (its defaults, which set its dependencies' values too). */
export function chartValuesFile(repo: Repo, dir: string): DataFile | undefined {
  return chartFile(repo, dir ? `${dir}/values.yaml` : 'values.yaml');
}

/** The part of `values` under `key`, a finding at a path of it landing where `values` holds that path. */
function under(values: DataFile, key: string): DataFile {
  const data = isMap(values.data) && isMap(values.data[key]) ? values.data[key] : {};
  return { ...values, data, positions: { at: (path, target) => values.positions.at([key, ...path], target) } };
}

/**
 * What each source of `chart` renders with, merged as Helm merges it, in Argo CD's order: the values files of this
 * repository, then the values the Application carries (helm.values or valuesObject, parameters); for a wrapper chart
 * that depends on it, what those give under the dependency's key, over the wrapper's values.yaml. One entry per
 * source (per dependency on the chart, for a wrapper); a finding on it lands in the layer that set the path (merged-values.ts). A file the gate cannot read is
 * left to the render tier to report.
 */
export function chartValues(repo: Repo, chart: string): ChartValues[] {
  const out: ChartValues[] = [];
  for (const app of applications(repo)) {
    for (const source of app.sources)
      for (const deployed of deployedAs(repo, source, chart)) {
        const layers = valueFilesOf(repo, app, source).flatMap((valueFile) => {
          if (!('rel' in valueFile)) return [];
          const data = repo.dataFiles.get(valueFile.rel) ?? (deployed.key === undefined ? undefined : chartFile(repo, valueFile.rel));
          return data ? [data] : [];
        });
        layers.push(...inlineValues(app, source, repo));
        if (layers.length === 0 && !deployed.defaults) continue;
        const merged = deployed.key === undefined ? mergedValues(layers, deployed.defaults) : under(mergedValues(layers, deployed.defaults), deployed.key);
        out.push({ appName: app.name, file: merged.file, values: (merged.data ?? {}) as Record<string, unknown>, source: merged });
      }
  }
  return out;
}
