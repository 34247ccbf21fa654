/**
 * alloy-config-loads: each configuration the repository gives the log shippers (the alloy chart's
 * `alloy.configMap.content`, rendered through Helm's `tpl` into the ConfigMap the pods read) is one Alloy parses
 * (model/alloy/parser.ts, Alloy v1.18.1's scanner and parser) with only blocks at its top level (`sourceFromBody`
 * refuses an attribute there). Alloy refuses such a file at load: a pod does not start on it, and no pod log or
 * orchestrator event reaches the log store (A2). Its components and their arguments are said not judged.
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { renderedFile } from '../../model/helm/chart-output.ts';
import { parseAlloy } from '../../model/alloy/parser.ts';

const CHART = 'alloy';
const VERSION = 'v1.18.1';
const CONTENT = ['alloy', 'configMap', 'content'];
const CONSEQUENCE = 'Alloy refuses the file at load, so its pods do not start on it and no log reaches the log store';

/** The configuration a render of the chart holds for an app: the ConfigMap's `*.alloy` file, as Helm's `tpl` wrote it. */
function renderedConfig(ctx: CheckContext, app: string) {
  for (const render of ctx.renders.filter((r) => r.source.chart === CHART && r.status === 'rendered' && r.app.name === app))
    for (const resource of render.resources.filter((r) => r.kind === 'ConfigMap')) {
      const key = Object.keys((resource.object.data ?? {}) as object).find((k) => k.endsWith('.alloy'));
      const file = key === undefined ? undefined : renderedFile(resource, key);
      if (file) return { resource, file };
    }
  return undefined;
}

function judge(ctx: CheckContext, v: ChartValues): void {
  const content = dig(v.values, CONTENT);
  const rendered = renderedConfig(ctx, v.appName);
  const text = rendered?.file.text ?? (typeof content === 'string' ? content : undefined);
  if (text === undefined) return;
  // A line of the file lands on the values line that wrote it, where tpl changed nothing; else on the ConfigMap.
  const written = typeof content === 'string' && (!rendered || rendered.file.text.trimEnd() === content.trimEnd());
  const start = written ? v.source.positions.at(CONTENT, 'value') : undefined;
  const place = (line: number): FailurePlace =>
    start ? { file: start.file ?? v.source.file, line: start.line + line } : { resource: rendered!.resource, path: rendered!.file.path };
  const where = written ? 'alloy.configMap.content' : `the rendered ${rendered!.file.path.at(-1)}`;
  const { body, errors } = parseAlloy(text);
  // The first error, as Alloy prints it first; those after it mostly follow from it.
  const [first] = errors;
  if (first)
    ctx.fail(
      place(first.line),
      `Alloy ${VERSION} cannot parse ${where} at its line ${first.line}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more errors after it)` : ''}; ${CONSEQUENCE}`,
    );
  for (const s of body.filter((x) => x.kind === 'attribute'))
    ctx.fail(
      place(lineAt(text, s.offset)),
      `Alloy ${VERSION} refuses ${where}: unrecognized attribute ${s.name} (only blocks stand at the top level); ${CONSEQUENCE}`,
    );
  if (errors.length === 0)
    ctx.notJudged(
      written ? { data: v.source, path: CONTENT } : { resource: rendered!.resource, path: rendered!.file.path },
      `Alloy's configuration for ${v.appName}: its syntax is judged, its components (which exist at ${VERSION}, at the chart's stability level) and their arguments are not`,
    );
}

/** The line of an offset in a text, from 1. */
const lineAt = (text: string, offset: number): number => text.slice(0, offset).split('\n').length;

export const alloyConfigCheck: PolicyCheck = {
  id: 'alloy-config-loads',
  description: `Each Alloy configuration the log shippers run (the alloy chart's alloy.configMap.content, as Helm's tpl renders it) parses as Alloy ${VERSION} reads its syntax, with only blocks at its top level; otherwise Alloy refuses it at load and no log reaches the log store. Its components and their arguments are said not judged (A2).`,
  invariants: ['A2'],
  remediation:
    "write the configuration in Alloy's syntax (blocks with double-quoted labels, attributes inside them, commas between the items of a multi-line list or object), as `alloy fmt` would accept it",
  reads: { kinds: ['Application', 'ConfigMap'], charts: [CHART], renders: true },
  exemptible: false,
  run(ctx) {
    for (const v of chartValues(ctx.repo, CHART)) judge(ctx, v);
  },
};
