/**
 * Checks on what the render tier made: values keys Helm silently ignores,
 * and renders that differ from one run to the next.
 */
import type { ChartScope, SourceRender } from '../model/rendered.ts';
import type { Path } from '../model/positions.ts';
import type { PolicyCheck } from './kit.ts';
import { isMap } from '../model/dig.ts';

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Keys of a values object that the chart neither declares in its default
 * values (its own, or a subchart's under the subchart's key) nor names in
 * any template. Anything goes under a key whose default is not a map or is
 * an empty map, under a key a template reads without declaring it, and
 * under a map a template takes whole (`toYaml .Values.securityContext`,
 * `with .Values.podLabels`): the chart passes that content on as it is.
 */
export function unusedValueKeys(values: unknown, chart: ChartScope): Path[] {
  const out: Path[] = [];
  const takenWhole = (scope: ChartScope, rel: readonly string[]) => new RegExp(`\\.Values\\.${rel.map(escape).join('\\.')}(?![\\w.])`).test(scope.templates);
  const visit = (node: unknown, path: (string | number)[], scope: ChartScope, declared: Record<string, unknown>[], rel: string[]): void => {
    if (!isMap(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const here = [...path, key];
      const atScopeRoot = rel.length === 0;
      // Globals reach every chart and subchart; no one chart declares them all.
      if (atScopeRoot && key === 'global') continue;
      const sub = atScopeRoot ? scope.subcharts.get(key) : undefined;
      if (sub) {
        const fromParent = declared.map((d) => d[key]).filter(isMap);
        visit(value, here, sub, [sub.defaults, ...fromParent], []);
        continue;
      }
      const defaults = declared.filter((d) => key in d).map((d) => d[key]);
      if (defaults.length > 0) {
        const maps = defaults.filter((d): d is Record<string, unknown> => isMap(d) && Object.keys(d).length > 0);
        if (maps.length === defaults.length && !takenWhole(scope, [...rel, key])) visit(value, here, scope, maps, [...rel, key]);
        continue;
      }
      if (new RegExp(`\\b${escape(key)}\\b`).test(scope.templates)) continue;
      out.push(here);
    }
  };
  visit(values, [], chart, [chart.defaults], []);
  return out;
}

const chartName = (r: SourceRender) => r.chart?.name ?? r.label;

export const renderChecks: PolicyCheck[] = [
  {
    id: 'helm-values-unused',
    description:
      'Every key of a values file is one the chart declares in its default values or reads in a template; Helm ignores any other key without a word (invariants P1).',
    invariants: ['P1'],
    remediation: "rename the key to the one the chart reads (see the chart's values.yaml), or remove it",
    reads: { renders: true },
    exemptible: false,
    run(ctx) {
      for (const render of ctx.renders) {
        if (render.status !== 'rendered' || !render.chart) continue;
        for (const file of render.values) {
          for (const path of unusedValueKeys(file.data, render.chart)) {
            ctx.fail(
              { data: file, path },
              `${path.join('.')}: the ${chartName(render)} chart (${render.label}) neither declares this key in its values nor reads it in any template, so Helm ignores it`,
            );
          }
        }
      }
    },
  },
  {
    id: 'render-deterministic',
    description:
      'Rendering an Application twice gives the same objects; Argo CD renders without cluster access, so a random value (randAlphaNum) is a new Secret and a restart on every sync (invariants P1).',
    invariants: ['P1'],
    remediation: "give the chart the value it would generate, usually an existing Secret from an ExternalSecret (the chart's existingSecret key)",
    reads: { kinds: ['*'], renders: true },
    exemptible: false,
    run(ctx) {
      for (const render of ctx.renders) {
        for (const diff of render.nondeterministic) {
          const resource = render.resources.find((r) => r.kind === diff.kind && r.name === diff.name);
          const message = `${diff.kind} ${diff.name} differs between two renders of the same inputs${diff.template ? ` (template ${diff.template})` : ''}: Argo CD would see drift on every sync`;
          if (resource) ctx.fail({ resource, path: ['metadata', 'name'] }, message);
          else
            ctx.fail(
              { resource: render.app.resource, path: [...render.source.at, render.source.chart !== undefined ? 'chart' : 'path'] },
              `${render.label}: ${message}`,
            );
        }
      }
    },
  },
];
