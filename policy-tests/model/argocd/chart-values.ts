/** Helm values of the chart sources in the repo, found through the Applications that use them, by the renderer's route (source-files.ts). */
import type { DataFile, Repo } from '../repository/repo.ts';
import { applications } from './argocd.ts';
import { valueFilesOf } from './source-files.ts';
import { inlineValues } from './inline-values.ts';

export interface ChartValues {
  appName: string;
  file: string;
  values: Record<string, unknown>;
  source: DataFile;
}

/**
 * What each source of `chart` renders with, in Argo CD's order: the values files of this repository, then the values
 * the Application carries (helm.values or valuesObject, parameters); a file the gate cannot read is left to the render
 * tier to report.
 */
export function chartValues(repo: Repo, chart: string): ChartValues[] {
  const out: ChartValues[] = [];
  for (const app of applications(repo)) {
    for (const source of app.sources.filter((s) => s.chart === chart)) {
      for (const valueFile of valueFilesOf(repo, app, source)) {
        if (!('rel' in valueFile)) continue;
        const data = repo.dataFiles.get(valueFile.rel);
        if (data) out.push({ appName: app.name, file: valueFile.rel, values: (data.data ?? {}) as Record<string, unknown>, source: data });
      }
      for (const data of inlineValues(app, source))
        out.push({ appName: app.name, file: data.file, values: (data.data ?? {}) as Record<string, unknown>, source: data });
    }
  }
  return out;
}
