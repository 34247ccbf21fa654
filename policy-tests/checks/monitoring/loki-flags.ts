/**
 * monitoring-loki-config: Loki takes the command line the chart gives it. The loki chart runs Loki with its own flags
 * (-config.file, -config.expand-env, -target...) and then the values' `extraArgs` (global, defaults, then the
 * component's) as written: a flag Loki does not register, a value its type refuses, `-help`, `-version` or
 * `-verify-config` stop Loki before it serves (model/loki/flags.ts), the container restarts for good, and no log is
 * stored. And `-config.file` (its last value): Loki reads the first of its paths that is there, which is either the
 * chart's config.yaml, judged, or said not judged. Judged on the rendered containers' arguments, each on the values
 * line that wrote it; offline on the lists the values give.
 */
import { dig, isMap } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { ChartValues } from '../../model/helm/chart-values.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { ContainerRef, PodSpecRef } from '../../model/core/workloads.ts';
import { mountedFile } from '../../model/cluster/mounted-files.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { LOKI_CONFIG_KEY, lokiConfigFile, lokiContainers } from '../../model/loki/config.ts';
import { lokiFlagProblem, readLokiFlags, type LokiFlagProblem, type LokiFlags } from '../../model/loki/flags.ts';

type Place = Parameters<CheckContext['fail']>[0];

const CONSEQUENCE = 'its container restarts for good, and no log is stored';
const SHARED: Path[] = [
  ['global', 'extraArgs'],
  ['defaults', 'extraArgs'],
];

const texts = (value: unknown): string[] => (Array.isArray(value) ? value.map((w) => scalarText(w)) : []);

/** Every values list of arguments the chart adds to a component's: the shared ones, then each component's own. */
function argumentLists(values: Record<string, unknown>): Path[] {
  const own = Object.entries(values)
    .filter(([key, v]) => key !== 'global' && key !== 'defaults' && isMap(v) && Array.isArray((v as Record<string, unknown>).extraArgs))
    .map(([key]): Path => [key, 'extraArgs']);
  return [...SHARED, ...own];
}

const say = (ctx: CheckContext, place: Place, what: string, p: LokiFlagProblem) =>
  'unjudged' in p
    ? ctx.notJudged(place, `${what}: ${p.unjudged}`)
    : ctx.fail(place, `${what}: ${p.message}: ${p.exit === 0 ? 'Loki exits' : `Loki exits ${p.exit} at start`}, ${CONSEQUENCE}`);

/**
 * The rendered Loki containers of `app`: their arguments, a problem said at its word, which the render's positions
 * place on the values item that wrote it (render/output.ts renderedPositions).
 */
export function judgeLokiFlags(ctx: CheckContext, o: { app: string; flags: LokiFlags }): void {
  for (const { resource, pod, c } of lokiContainers(ctx.resources, o.app)) {
    // Another command than the image's entrypoint (the chart's `command`) reads the arguments its own way.
    if (c.container.command !== undefined) continue;
    const { problem, values } = readLokiFlags(texts(c.container.args), o.flags);
    const what = `container ${c.name} of ${resource.kind} ${resource.name}`;
    const word = (index: number): Place => ({ resource, path: [...c.at, 'args', index] });
    if (problem) say(ctx, word(problem.index), what, problem);
    const file = values.get(CONFIG_FLAG);
    // The chart's own -config.file names its config.yaml, where its volume puts it; a later one may name another file.
    if (problem || !file) continue;
    judgeConfigFile(ctx, { resource, pod, c, app: o.app, paths: file.value, place: word(file.index), what });
  }
}

const CONFIG_FLAG = '-config.file';

/**
 * -config.file: Loki reads the first of its comma-separated paths the container holds. A path on the chart's
 * config.yaml is the file judged; one another volume or the image holds is Loki's configuration the gate does not
 * read: not judged. Where it holds none, Loki exits 1 ("... does not exist"): closure-secret-key fails each path.
 */
function judgeConfigFile(
  ctx: CheckContext,
  o: { resource: Resource; pod: PodSpecRef; c: ContainerRef; app: string; paths: string; place: Place; what: string },
): void {
  if (o.paths === '') return ctx.notJudged(o.place, `${o.what}: -config.file is empty, so Loki reads no file and runs on its defaults and flags: not judged`);
  const configs = ctx.resources.filter((r) => r.rendered?.app === o.app && lokiConfigFile(r) !== undefined);
  for (const path of o.paths.split(',').map((p) => p.trim())) {
    const m = path === '' ? undefined : mountedFile(ctx, { spec: o.pod.spec, namespace: namespaceOrDestination(ctx.repo, o.resource) }, o.c.container, path);
    if (!m || ('problem' in m && m.problem)) continue;
    const chart = 'name' in m && configs.some((r) => r.kind === m.on && r.name === m.name) && path.endsWith(`/${LOKI_CONFIG_KEY}`);
    if (!chart)
      ctx.notJudged(
        o.place,
        `${o.what}: Loki reads its configuration from ${path}${'name' in m ? ` (${m.on} ${m.name})` : m.on === 'image' ? ' if its image holds it' : ' if its volume holds it'}, not the chart's ${LOKI_CONFIG_KEY} the gate judges: not judged`,
      );
    return;
  }
  // None is there: closure-secret-key says each path no volume puts a file at (Loki then exits 1, "... does not exist").
}

/** Offline: the values' lists of arguments, each component's after the shared ones, as the chart concatenates them. */
export function judgeValuesFlags(ctx: CheckContext, v: ChartValues, flags: LokiFlags): void {
  const lists = argumentLists(v.values);
  const owns = lists.slice(SHARED.length);
  const said = new Set<string>();
  for (const own of owns.length ? owns : [undefined]) {
    const items = [...SHARED, ...(own ? [own] : [])].flatMap((path) => texts(dig(v.values, path)).map((word, i) => ({ word, at: [...path, i] })));
    const problem = lokiFlagProblem(
      items.map((x) => x.word),
      flags,
    );
    if (!problem) continue;
    const at = items[problem.index]!.at;
    if (said.has(at.join('\0'))) continue;
    said.add(at.join('\0'));
    say(ctx, { data: v.source, path: at }, `Loki's command line (the chart's arguments, then ${own?.[0] ?? 'global'}'s extraArgs)`, problem);
  }
}
