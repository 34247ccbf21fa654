/**
 * alloy-config-loads: each configuration the repository gives the log shippers (the alloy chart's
 * `alloy.configMap.content`, rendered through Helm's `tpl` into the ConfigMap the pods read) is one Alloy loads: it
 * parses (model/alloy/parser.ts, Alloy v1.18.1's scanner and parser), only blocks stand at its top level, and each
 * block is a config block, a service's, a declared or imported component, or a component Alloy registers at the
 * version it runs, at or above the stability level the chart gives it, with a label, once
 * (model/alloy/components.ts, against the reference the repository keeps). Alloy refuses anything else at load: a
 * pod does not start on it, and no pod log or orchestrator event reaches the log store (A2). Each component's body
 * then decodes into its arguments as Alloy's decoder reads it (model/alloy/arguments.ts: attributes and blocks its
 * struct has, required ones present, nested blocks alike), and each reference resolves as Alloy's loader wires it
 * (model/alloy/references.ts: to a component, config block or service of the file, or to the standard library; a field
 * its exports have; no cycle). Each argument's value is worked out as the vm evaluates it (model/alloy/evaluate.ts:
 * operators, the standard library, a component's export by the type the reference gives it, a value read at run time
 * by its type) and held to the argument's type as the decoder converts it (model/alloy/values.ts: text, numbers,
 * bools, durations, lists, objects into a struct's fields, an export into an argument of its Go type); each argument
 * type's own Validate is run as ported (model/alloy/validators.ts). A value the gate does not work out, a type's code
 * it has not ported, and what each component does when it starts, are said not judged.
 */
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig, list } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { containersOf, imageParts, podSpecOf } from '../../model/core/workloads.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { pinnedVersionMiss, renderedFile } from '../../model/helm/chart-output.ts';
import { parseAlloy } from '../../model/alloy/parser.ts';
import { argumentProblems } from '../../model/alloy/arguments.ts';
import { exportScope, referenceProblems } from '../../model/alloy/references.ts';
import { alloyHost } from '../../model/alloy/host.ts';
import type { Unjudged } from '../../model/alloy/values.ts';
import { ALLOY_REFERENCE, alloyBlockProblems, alloyComponents, STABILITY_LEVELS, type AlloyComponents, type Stability } from '../../model/alloy/components.ts';

const CHART = 'alloy';
const CONTENT = ['alloy', 'configMap', 'content'];
const CONSEQUENCE = 'Alloy refuses the file at load, so its pods do not start on it and no log reaches the log store';
const REFRESH = "npm run alloy:reference -- --from <clone of grafana/alloy> --ref <the chart's appVersion> --chart-version <the chart version>";

/**
 * The configuration a render of the chart holds for an app (the ConfigMap's `*.alloy` file, as `tpl` wrote it), the
 * alloy container's image, arguments and container, and the workload that runs it.
 */
function rendered(ctx: CheckContext, app: string) {
  const resources = ctx.renders.filter((r) => r.source.chart === CHART && r.status === 'rendered' && r.app.name === app).flatMap((r) => r.resources);
  for (const resource of resources.filter((r) => r.kind === 'ConfigMap')) {
    const key = Object.keys((resource.object.data ?? {}) as object).find((k) => k.endsWith('.alloy'));
    const file = key === undefined ? undefined : renderedFile(resource, key);
    if (!file) continue;
    const workload = resources.find((r) => podSpecOf(r) && containersOf(podSpecOf(r)!).some((c) => c.name === 'alloy'));
    const alloy = workload && containersOf(podSpecOf(workload)!).find((c) => c.name === 'alloy');
    const image = alloy ? imageParts(scalarText(alloy.container.image ?? '')) : undefined;
    return { resource, file, tag: image?.tag?.replace(/^v/, ''), args: list(alloy?.container.args).map((a) => scalarText(a)), alloy, workload };
  }
  return undefined;
}

/**
 * Where an app's Alloy configuration stands: its text (the render's, else the values'), the place of each of its lines
 * (the values line that wrote it, where tpl changed nothing; else the rendered ConfigMap), the whole's place and name,
 * and the render it was read from.
 */
export function alloyConfiguration(ctx: CheckContext, v: ChartValues) {
  const content = dig(v.values, CONTENT);
  const render = rendered(ctx, v.appName);
  const text = render?.file.text ?? (typeof content === 'string' ? content : undefined);
  if (text === undefined) return undefined;
  const written = typeof content === 'string' && (!render || render.file.text.trimEnd() === content.trimEnd());
  const start = written ? v.source.positions.at(CONTENT, 'value') : undefined;
  const place = (line: number): FailurePlace =>
    start ? { file: start.file ?? v.source.file, line: start.line + line } : { resource: render!.resource as Resource, path: render!.file.path };
  const whole: FailurePlace = written ? { data: v.source, path: CONTENT } : { resource: render!.resource, path: render!.file.path };
  // What the agent reads of its host, where the render gives its pod (offline: nothing, a value read there known by its type).
  const host = render?.alloy && render.workload ? alloyHost(ctx, render.workload, render.alloy.container) : undefined;
  return { text, place, whole, where: written ? 'alloy.configMap.content' : `the rendered ${render!.file.path.at(-1)}`, render, host };
}

/** What Alloy's command line sets of what it loads: the minimum stability level, and community components. */
function flags(args: readonly string[]): { minStability: Stability; community: boolean } {
  const level = args.findLast((a) => a.startsWith('--stability.level='))?.slice('--stability.level='.length);
  const community = args.findLast((a) => /^--feature\.community-components\.enabled(=|$)/.test(a));
  return {
    minStability: STABILITY_LEVELS.includes(level as Stability) ? (level as Stability) : 'generally-available',
    community: community !== undefined && !community.endsWith('=false'),
  };
}

/** Why the components of a configuration are not judged against the reference (none, unreadable, another version), or undefined. */
function componentsMiss(ctx: CheckContext, v: ChartValues, tag: string | undefined, reference: AlloyComponents | undefined): string | undefined {
  if (!reference) return `no ${ALLOY_REFERENCE}: its components are not judged (${REFRESH})`;
  if (tag !== undefined)
    return tag === reference.version ? undefined : `the chart runs Alloy ${tag}, the reference was read for ${reference.version}: refresh it (${REFRESH})`;
  return pinnedVersionMiss(ctx.repo, { app: v.appName, chart: CHART, chartVersion: reference.chartVersion, refresh: REFRESH });
}

function judge(ctx: CheckContext, v: ChartValues): void {
  const configuration = alloyConfiguration(ctx, v);
  if (!configuration) return;
  const { text, place, whole, where, render, host } = configuration;
  const { body, errors } = parseAlloy(text);
  // The first error, as Alloy prints it first; those after it mostly follow from it.
  const [first] = errors;
  if (first)
    return ctx.fail(
      place(first.line),
      `Alloy cannot parse ${where} at its line ${first.line}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more errors after it)` : ''}; ${CONSEQUENCE}`,
    );
  for (const s of body.filter((x) => x.kind === 'attribute'))
    ctx.fail(place(s.line), `Alloy refuses ${where}: unrecognized attribute ${s.name} (only blocks stand at the top level); ${CONSEQUENCE}`);
  const reference = alloyComponents(ctx.repo);
  if (reference && !reference.ok)
    return ctx.fail({ data: reference.data, path: [] }, `${ALLOY_REFERENCE} cannot be read (${reference.problem}): Alloy's components are not judged`);
  const miss = componentsMiss(ctx, v, render?.tag, reference);
  if (miss) return ctx.notJudged(whole, `Alloy's configuration for ${v.appName}: ${miss}`);
  const args = render?.args ?? [
    `--stability.level=${scalarText(dig(v.values, ['alloy', 'stabilityLevel']) ?? 'generally-available')}`,
    ...list(dig(v.values, ['alloy', 'extraArgs'])).map((a) => scalarText(a)),
  ];
  const loads = flags(args);
  const refused = alloyBlockProblems(body, reference!, loads);
  for (const p of refused) ctx.fail(place(p.line), `Alloy ${reference!.version} refuses ${where}: ${p.message}; ${CONSEQUENCE}`);
  const scope = { ...exportScope(body, reference!), ...(host ? { host } : {}) };
  const unjudged: Unjudged[] = [];
  for (const b of body) {
    const schema = b.kind === 'block' && !refused.some((p) => p.line === b.line) ? reference!.components[b.name.join('.')]?.arguments : undefined;
    if (b.kind !== 'block' || !schema) continue;
    for (const p of argumentProblems(b.body, schema, reference!.schemas, { scope, unjudged, line: b.line }))
      ctx.fail(
        place(p.line < 0 ? b.line : p.line),
        `Alloy ${reference!.version} refuses ${where}: ${b.name.join('.')} "${b.label}": ${p.message}; ${CONSEQUENCE}`,
      );
  }
  const references = referenceProblems(body, reference!, loads);
  for (const p of references ?? []) ctx.fail(place(p.line), `Alloy ${reference!.version} refuses ${where}: ${p.message}; ${CONSEQUENCE}`);
  ctx.notJudged(whole, notJudgedLine(v.appName, { references: references !== undefined, unjudged }));
}

/** What the gate judged of a configuration and what it did not: the values it cannot tell (with their lines), and each component's start. */
function notJudgedLine(app: string, o: { references: boolean; unjudged: readonly Unjudged[] }): string {
  const values =
    o.unjudged.length === 0
      ? ''
      : `; nor ${o.unjudged.length === 1 ? 'one value' : `${o.unjudged.length} values`}: ${o.unjudged.map((u) => `line ${u.line}: ${u.why}`).join('; ')}`;
  return `Alloy's configuration for ${app}: its syntax, its components, their arguments and the values given them (a value read on the host by its type, or by its value where the rendered pod's environment gives it)${o.references ? ', its references (to components, their exports and the standard library)' : ''} and each argument type's own validation are judged; not judged: what each component does when it starts (its clients, the files it reads)${values}`;
}

export const alloyConfigCheck: PolicyCheck = {
  id: 'alloy-config-loads',
  description: `Each Alloy configuration the log shippers run (the alloy chart's alloy.configMap.content, as Helm's tpl renders it) is one Alloy loads: it parses as Alloy reads its syntax, only blocks stand at its top level, and each is a config or service block, a declared or imported component, or a component Alloy registers at the version it runs (${ALLOY_REFERENCE}), at the chart's stability level, labelled, once; each component's body decodes into its arguments (their names, required ones present), and each reference names a component, config block or service of the file, or the standard library, and a field its exports have, with no cycle, and each value (worked out as Alloy's vm evaluates it: operators, the standard library, a component's export by its type, a value read at run time from Alloy's environment or host by its type) is one its argument's type takes (a duration Go parses), and passes the argument type's own Validate (the HTTP and Kubernetes clients' exclusive settings, loki.write's endpoint URL and WAL, the events source's job and log format); otherwise Alloy refuses it at load and no log reaches the log store. A value the gate does not work out, a type's own code it has not ported, and what each component does when it starts, are said not judged (A2).`,
  invariants: ['A2'],
  remediation: `write the configuration in Alloy's syntax (blocks with double-quoted labels, attributes inside them, commas between the items of a multi-line list or object), with components of the Alloy the chart runs; after an Alloy upgrade, refresh ${ALLOY_REFERENCE} (${REFRESH})`,
  reads: { kinds: ['Application', 'ConfigMap', 'DaemonSet', 'Deployment', 'StatefulSet'], charts: [CHART], files: [ALLOY_REFERENCE], renders: true },
  exemptible: false,
  run(ctx) {
    for (const v of chartValues(ctx.repo, CHART)) judge(ctx, v);
  },
};
