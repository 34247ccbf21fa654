/**
 * Every PromQL expression the repository evaluates or shows: alert and
 * recording rules of PrometheusRules, and the queries of provisioned Grafana
 * dashboards, as written in this repository (a chart's own rules and
 * dashboards are not judged). Each knows where a character of it sits in its file.
 */
import { embeddedPlacer } from '../yaml/embedded-text.ts';
import { ownText, type Repo } from '../repository/repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { LinePos, Path } from '../core/positions.ts';
import { dashboards, type Dashboard, type Panel } from './dashboards.ts';
import { perRepo } from '../repository/per-repo.ts';
import { ruleEntries } from './prometheus-rules.ts';
import { scalarText } from '../core/text.ts';
import { obj, objects } from '../core/dig.ts';

export interface PromExpression {
  expr: string;
  /** `test`: an input series of a promtool rule test, which must look like what the exporters write. */
  kind: 'alert' | 'record' | 'dashboard' | 'test';
  /** The alert, the recorded series, or the panel title. */
  name: string;
  /** An alert's `for`, when set. */
  for?: string;
  file: string;
  /** Where a character of the expression sits in the file. */
  at(offset: number): LinePos;
  /** An alert's labels and annotations, each a template Prometheus expands with the firing series' labels. */
  templates?: readonly { field: string; text: string; at: (offset: number) => LinePos }[];
}

/**
 * A position inside an expression, in the file (model/yaml/embedded-text.ts). Found when first asked: most expressions
 * never need a position, and finding one may parse the file again (positions are lazy after a warm start).
 */
function scalarPositions(resource: Resource, text: string | undefined, path: Path): (offset: number, expr: string) => LinePos {
  let place: ((p: LinePos) => LinePos) | undefined;
  return (offset, expr) => {
    const before = expr.slice(0, offset).split('\n');
    return (place ??= embeddedPlacer(text, resource.positions.at(path, 'value')))({ line: before.length, col: before.at(-1)!.length + 1 });
  };
}

/** A label a template of an alert reads of its firing series: `$labels.x`, `.Labels.x`, `index $labels "x"`, in an action. */
const LABEL_READ = /(?:\$labels|\.Labels)\.([A-Za-z_][A-Za-z0-9_]*)|index\s+(?:\$labels|\.Labels)\s+"([^"]*)"/g;

export function labelsReadBy(text: string): { label: string; offset: number }[] {
  return [...text.matchAll(/\{\{[\s\S]*?\}\}/g)].flatMap((action) =>
    [...action[0].matchAll(LABEL_READ)].map((m) => ({ label: (m[1] ?? m[2])!, offset: action.index + m.index })),
  );
}

function ruleExpressions(repo: Repo): PromExpression[] {
  const out: PromExpression[] = [];
  const texts = new Map<string, string | undefined>();
  for (const { resource, rule, path } of ruleEntries(repo.resources)) {
    if (resource.rendered) continue;
    // The CRD's expr is an int or a string, and Prometheus reads a number written there as PromQL's number.
    if (typeof rule.expr !== 'string' && typeof rule.expr !== 'number') continue;
    if (!texts.has(resource.file)) texts.set(resource.file, ownText(repo, resource.file));
    const expr = String(rule.expr);
    const position = scalarPositions(resource, texts.get(resource.file), [...path, 'expr']);
    const templates = (['labels', 'annotations'] as const).flatMap((block) =>
      Object.entries(obj(rule[block])).flatMap(([key, value]) => {
        if (typeof value !== 'string') return [];
        const place = scalarPositions(resource, texts.get(resource.file), [...path, block, key]);
        return [{ field: `${block}.${key}`, text: value, at: (offset: number) => place(offset, value) }];
      }),
    );
    out.push({
      expr,
      kind: typeof rule.alert === 'string' ? 'alert' : 'record',
      name: scalarText(rule.alert ?? rule.record ?? ''),
      for: typeof rule.for === 'string' ? rule.for : undefined,
      file: resource.file,
      at: (offset) => position(offset, expr),
      ...(typeof rule.alert === 'string' ? { templates } : {}),
    });
  }
  return out;
}

function dashboardExpressions(dashboard: Dashboard): PromExpression[] {
  const out: PromExpression[] = [];
  const visit = (panels: Panel[], path: Path) =>
    panels.forEach((panel, i) => {
      (objects(panel.targets) as { expr?: unknown }[]).forEach((target, t) => {
        if (typeof target.expr !== 'string' || target.expr === '') return;
        // Placed on a finding only: placing parses the dashboard's JSON with positions (14 ms of a warm start-up).
        const where: Path = [...path, i, 'targets', t, 'expr'];
        out.push({
          expr: target.expr,
          kind: 'dashboard',
          name: `${dashboard.title}: ${panel.title ?? ''}`,
          file: dashboard.file,
          at: () => dashboard.at(where),
        });
      });
      if (panel.panels) visit(panel.panels, [...path, i, 'panels']);
    });
  // A chart's own dashboards read its own exporters' series; they are the chart's to keep, not judged here.
  if (!dashboard.error && !dashboard.rendered) visit(dashboard.panels, ['panels']);
  return out;
}

/** The input series of promtool rule test files (`tests[].input_series[].series`, a selector). */
function testSeries(repo: Repo): PromExpression[] {
  const out: PromExpression[] = [];
  for (const data of repo.dataFiles.values()) {
    const tests = (data.data as { tests?: { input_series?: { series?: unknown }[] }[] } | undefined)?.tests;
    if (!Array.isArray(tests)) continue;
    tests.forEach((test, t) =>
      (Array.isArray(test?.input_series) ? test.input_series : []).forEach((input, i) => {
        if (typeof input?.series !== 'string') return;
        let at: LinePos | undefined;
        const path = ['tests', t, 'input_series', i, 'series'];
        out.push({ expr: input.series, kind: 'test', name: 'input series', file: data.file, at: () => (at ??= data.positions.at(path, 'value')) });
      }),
    );
  }
  return out;
}

export const promExpressions = perRepo((repo: Repo): PromExpression[] => [
  ...ruleExpressions(repo),
  ...dashboards(repo).flatMap(dashboardExpressions),
  ...testSeries(repo),
]);
