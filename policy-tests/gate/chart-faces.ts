/**
 * What a chart source shows a reviewer of a chart bump, for the rendered
 * diff: the chart's version, its default values (leaf by leaf), the values
 * this repository sets, and the keys it sets that the chart neither declares
 * nor reads (checks/render.ts, unusedValues). Two sides of a bump compared
 * give the defaults that moved under the repository's feet and the keys
 * that stopped working.
 */
import type { SourceRender } from '../model/argocd/rendered.ts';
import { mergedValues } from '../model/argocd/merged-values.ts';
import { unusedValues } from '../checks/render.ts';

export interface ChartFace {
  chart: string;
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

/** The face of each rendered chart source, by Application (the first chart source of each). */
export function chartFaces(renders: readonly SourceRender[]): Map<string, ChartFace> {
  const out = new Map<string, ChartFace>();
  for (const r of renders) {
    if (r.status !== 'rendered' || !r.chart || r.source.chart === undefined || out.has(r.app.name)) continue;
    const values = r.values.length ? (mergedValues(r.values).data ?? {}) : {};
    out.set(r.app.name, {
      chart: r.source.chart,
      version: r.source.targetRevision,
      defaults: leaves(r.chart.defaults),
      set: Object.keys(leaves(values)),
      unread: unusedValues(values, r.chart).map((u) => u.path.join('.')),
    });
  }
  return out;
}
