/** Helm values of the chart sources in the repo, found through the Applications that use them. */
import { applications } from './argocd.ts';
import type { DataFile, Repo } from '../repository/repo.ts';

export interface ChartValues {
  appName: string;
  file: string;
  values: Record<string, unknown>;
  source: DataFile;
}

export function chartValues(repo: Repo, chart: string): ChartValues[] {
  const out: ChartValues[] = [];
  for (const app of applications(repo)) {
    for (const source of app.sources.filter((s) => s.chart === chart)) {
      for (const valueFile of source.helm?.valueFiles ?? []) {
        const file = valueFile.replace(/^\$[^/]+\//, '');
        const data = repo.dataFiles.get(file);
        if (data) out.push({ appName: app.name, file, values: (data.data ?? {}) as Record<string, unknown>, source: data });
      }
    }
  }
  return out;
}
