/** Helm values of the chart sources in the repo, found through the Applications that use them, by the renderer's route (source-files.ts). */
import type { DataFile, Repo } from '../repository/repo.ts';
import { applications } from './argocd.ts';
import { valueFilesOf } from './source-files.ts';
import { inlineValues } from './inline-values.ts';
import { mergedValues } from './merged-values.ts';

export interface ChartValues {
  appName: string;
  file: string;
  values: Record<string, unknown>;
  source: DataFile;
}

/**
 * What each source of `chart` renders with, merged as Helm merges it, in Argo CD's order: the values files of this
 * repository, then the values the Application carries (helm.values or valuesObject, parameters). One entry per
 * source; a finding on it lands in the layer that set the path (merged-values.ts). A file the gate cannot read is
 * left to the render tier to report.
 */
export function chartValues(repo: Repo, chart: string): ChartValues[] {
  const out: ChartValues[] = [];
  for (const app of applications(repo)) {
    for (const source of app.sources.filter((s) => s.chart === chart)) {
      const layers = valueFilesOf(repo, app, source).flatMap((valueFile) => {
        const data = 'rel' in valueFile ? repo.dataFiles.get(valueFile.rel) : undefined;
        return data ? [data] : [];
      });
      layers.push(...inlineValues(app, source));
      if (layers.length === 0) continue;
      const merged = mergedValues(layers);
      out.push({ appName: app.name, file: merged.file, values: (merged.data ?? {}) as Record<string, unknown>, source: merged });
    }
  }
  return out;
}
