/** Grafana dashboards provisioned from ConfigMaps (label grafana_dashboard), parsed with positions. */
import { LineCounter, parseDocument } from 'yaml';
import { embeddedPlacer } from '../yaml/embedded-text.ts';
import { ownText, type Repo } from '../repository/repo.ts';
import { objects } from '../core/dig.ts';
import type { Positions, Resource } from '../core/manifest.ts';
import type { LinePos, Path } from '../core/positions.ts';
import { documentPositions } from '../core/manifest.ts';

export interface Panel {
  type?: string;
  title?: string;
  panels?: Panel[];
  targets?: { expr?: string; refId?: string }[];
}

export interface Dashboard {
  file: string;
  key: string;
  title: string;
  panels: Panel[];
  at(path: Path): LinePos;
  error?: { message: string; pos: LinePos };
  /** Shipped by a chart (kube-prometheus-stack's own dashboards), not written in this repository. */
  rendered: boolean;
}

/**
 * Each ConfigMap's dashboards, parsed once: the parsed object is shared by
 * every view of the repository the checks see, so the memo is keyed by it
 * (parsing a dashboard with positions is the costly part).
 */
const parsedDashboards = new WeakMap<object, { file: string; rendered: boolean; dashboards: Dashboard[] }>();

export function dashboards(repo: Repo): Dashboard[] {
  const out: Dashboard[] = [];
  for (const resource of repo.resources) {
    const labels = (resource.object.metadata as { labels?: Record<string, string> } | undefined)?.labels ?? {};
    if (resource.kind !== 'ConfigMap' || labels.grafana_dashboard === undefined) continue;
    let parsed = parsedDashboards.get(resource.object);
    // The same object under another file or origin (never expected: parsed objects are per file) is parsed again.
    if (parsed?.file !== resource.file || parsed.rendered !== (resource.rendered !== undefined)) {
      parsed = { file: resource.file, rendered: resource.rendered !== undefined, dashboards: dashboardsOf(repo, resource) };
      parsedDashboards.set(resource.object, parsed);
    }
    out.push(...parsed.dashboards);
  }
  return out;
}

function dashboardsOf(repo: Repo, resource: Resource): Dashboard[] {
  const out: Dashboard[] = [];
  {
    const text = ownText(repo, resource.file);
    for (const [key, value] of Object.entries((resource.object.data ?? {}) as Record<string, unknown>)) {
      if (typeof value !== 'string' || !key.endsWith('.json')) continue;
      // Where a path of the dashboard sits in the file: the JSON is parsed with positions only when a finding asks.
      let toOuter: ((p: LinePos) => LinePos) | undefined;
      let positions: Positions | undefined;
      const outer = (pos: LinePos) => (toOuter ??= embeddedPlacer(text, resource.positions.at(['data', key], 'value')))(pos);
      const at = (path: Path) => {
        if (!positions) {
          const lineCounter = new LineCounter();
          positions = documentPositions(parseDocument(value, { lineCounter }), lineCounter);
        }
        return outer(positions.at(path, 'key'));
      };
      let json: { title?: string; panels?: Panel[] } = {};
      let error: Dashboard['error'];
      try {
        json = JSON.parse(value) as typeof json;
      } catch (err) {
        error = { message: `dashboard JSON does not parse: ${(err as Error).message}`, pos: outer({ line: 1, col: 1 }) };
      }
      out.push({ file: resource.file, key, title: json.title ?? '', panels: json.panels ?? [], at, error, rendered: resource.rendered !== undefined });
    }
  }
  return out;
}

/** Rows with their panels: a row's own `panels` when collapsed, else the panels that follow it. */
export function rowsOf(dashboard: Dashboard): { title: string; index: number; panels: Panel[] }[] {
  const rows: { title: string; index: number; panels: Panel[] }[] = [];
  dashboard.panels.forEach((panel, index) => {
    if (panel.type === 'row') rows.push({ title: panel.title ?? '', index, panels: [...(panel.panels ?? [])] });
    else rows.at(-1)?.panels.push(panel);
  });
  return rows;
}

export function panelQueries(dashboard: Dashboard): { panel: string; expr: string }[] {
  const all = dashboard.panels.flatMap((p) => [p, ...(objects(p.panels) as Panel[])]);
  return all.flatMap((p) => (objects(p.targets) as { expr?: string }[]).filter((t) => t.expr).map((t) => ({ panel: p.title ?? '', expr: t.expr! })));
}
