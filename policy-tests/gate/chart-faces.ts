/**
 * What a chart source shows a reviewer of a chart bump, for the rendered
 * diff: the chart's version, its default values (leaf by leaf), the values
 * this repository sets, and the keys it sets that the chart neither declares
 * nor reads (model/helm/unused-values.ts). Two sides of a bump compared
 * give the defaults that moved under the repository's feet and the keys
 * that stopped working.
 */
import type { SourceRender } from '../model/argocd/rendered.ts';
import { coalesce, mergedValues } from '../model/helm/merged-values.ts';
import { chartDirOf, fetchedDependencies } from '../model/helm/chart-dependencies.ts';
import { upgradesOneMinor } from '../model/argocd/app-declarations.ts';
import type { Repo } from '../model/repository/repo.ts';
import { isMap } from '../model/core/dig.ts';
import { unusedValues } from '../model/helm/unused-values.ts';

export interface ChartFace {
  /** The Application that renders it. */
  app: string;
  chart: string;
  /** Where a wrapper chart of the repository depends on it (its folder), rather than the Application naming it. */
  dependencyOf?: string;
  /** The alias the wrapper gives it, where it gives one: a wrapper may depend on one chart twice, under two aliases. */
  alias?: string;
  /**
   * Why a wrapper's dependency upgrades one minor at a time: its Application's upgrades-one-minor-at-a-time, which
   * speaks for the chart it wraps. (An Application's own chart is read from the Application, which the diff holds.)
   */
  oneMinor?: string;
  version: string;
  /** Each default leaf, by dotted path, as JSON. */
  defaults: Record<string, string>;
  /** Each leaf this repository sets (value files and the Application's own values), by dotted path. */
  set: string[];
  /** What it sets that the chart neither declares nor reads. */
  unread: string[];
}

/** Every leaf of a values tree, by dotted path, as JSON (an empty map or list is a leaf). */
export function leaves(node: unknown, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (v: unknown, path: string) => {
    const entries = v !== null && typeof v === 'object' ? Object.entries(v) : [];
    if (entries.length === 0 || Array.isArray(v)) {
      if (path) out[path] = JSON.stringify(v);
      return;
    }
    for (const [k, x] of entries) walk(x, path ? `${path}.${k}` : k);
  };
  walk(node, prefix);
  return out;
}

/**
 * The face of each rendered chart source (the first chart source of each Application), and of each dependency a
 * wrapper chart of the repository fetches from a chart repository (its values under the dependency's key), keyed by
 * Application and chart.
 */
export function chartFaces(renders: readonly SourceRender[], repo: Repo): Map<string, ChartFace> {
  const out = new Map<string, ChartFace>();
  const add = (face: ChartFace) => {
    const key = `${face.app}|${face.dependencyOf ?? ''}|${face.alias ?? face.chart}`;
    if (!out.has(key)) out.set(key, face);
  };
  const firstChart = new Set<string>();
  for (const r of renders) {
    if (r.status !== 'rendered' || !r.chart) continue;
    const values = r.values.length ? (mergedValues(r.values).data ?? {}) : {};
    if (r.source.chart !== undefined) {
      if (firstChart.has(r.app.name)) continue;
      firstChart.add(r.app.name);
      add({ app: r.app.name, ...face(r.source.chart, r.source.targetRevision, r.chart, values) });
      continue;
    }
    const dir = chartDirOf(repo, r.source);
    if (dir === undefined) continue;
    for (const d of fetchedDependencies(repo, dir)) {
      const scope = r.chart.subcharts.get(d.key);
      if (!('ref' in d) || !scope) continue;
      // What the repository sets of it: the wrapper's values.yaml under the key (the wrapper's defaults), then the rest.
      const part = (v: unknown): Record<string, unknown> => {
        const at = isMap(v) ? v[d.key] : undefined;
        return isMap(at) ? at : {};
      };
      const under = coalesce(part(r.chart.defaults), part(values));
      const oneMinor = upgradesOneMinor(r.app.resource.object);
      const alias = d.key === d.name ? {} : { alias: d.key };
      add({ app: r.app.name, dependencyOf: dir, ...alias, ...(oneMinor ? { oneMinor } : {}), ...face(d.name, d.ref.version, scope, under) });
    }
  }
  return out;
}

function face(chart: string, version: string, scope: NonNullable<SourceRender['chart']>, values: unknown): Omit<ChartFace, 'app' | 'dependencyOf' | 'alias'> {
  return {
    chart,
    version,
    defaults: leaves(scope.defaults),
    set: Object.keys(leaves(values)),
    unread: unusedValues(values, scope).map((u) => u.path.join('.')),
  };
}
