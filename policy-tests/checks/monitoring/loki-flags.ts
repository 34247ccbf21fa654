/**
 * monitoring-loki-config: Loki takes the command line the chart gives it. The loki chart runs Loki with its own flags
 * (-config.file, -config.expand-env, -target...) and then the values' `extraArgs` (global, defaults, then the
 * component's) as written: a flag Loki does not register, a value its type refuses, `-help`, `-version` or
 * `-verify-config` stop Loki before it serves (model/loki/flags.ts), the container restarts for good, and no log is
 * stored. Judged on the rendered containers' arguments, each on the values line that wrote it; offline on the lists
 * the values give.
 */
import { dig, isMap } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { ChartValues } from '../../model/helm/chart-values.ts';
import { lokiContainers } from '../../model/loki/config.ts';
import { lokiFlagProblem, type LokiFlagProblem, type LokiFlags } from '../../model/loki/flags.ts';

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
    .filter(([, v]) => isMap(v) && Array.isArray((v as Record<string, unknown>).extraArgs))
    .map(([key]): Path => [key, 'extraArgs']);
  return [...SHARED, ...own.filter((p) => p[0] !== 'global' && p[0] !== 'defaults')];
}

const say = (ctx: CheckContext, place: Place, what: string, p: LokiFlagProblem) =>
  'unjudged' in p
    ? ctx.notJudged(place, `${what}: ${p.unjudged}`)
    : ctx.fail(place, `${what}: ${p.message}: ${p.exit === 0 ? 'Loki exits' : `Loki exits ${p.exit} at start`}, ${CONSEQUENCE}`);

/** The rendered Loki containers of `app`: their arguments, a problem said on the values item that wrote its word. */
export function judgeLokiFlags(ctx: CheckContext, o: { app: string; flags: LokiFlags; values: ChartValues | undefined }): void {
  for (const { resource, c } of lokiContainers(ctx.resources, o.app)) {
    // Another command than the image's entrypoint (the chart's `command`) reads the arguments its own way.
    if (c.container.command !== undefined) continue;
    const words = texts(c.container.args);
    const problem = lokiFlagProblem(words, o.flags);
    if (!problem) continue;
    const word = words[problem.index];
    const written =
      o.values &&
      argumentLists(o.values.values).flatMap((path) => {
        const at = texts(dig(o.values!.values, path)).indexOf(word!);
        return at === -1 ? [] : [[...path, at]];
      })[0];
    const place: Place = written ? { data: o.values!.source, path: written } : { resource, path: [...c.at, 'args', problem.index] };
    say(ctx, place, `container ${c.name} of ${resource.kind} ${resource.name}`, problem);
  }
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
