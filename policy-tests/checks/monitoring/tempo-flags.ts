/**
 * monitoring-tempo-config: Tempo takes the command line the chart gives it (model/tempo/flags.ts): the chart's
 * -config.file and -mem-ballast-size-mbs, then the values' `tempo.extraArgs`, each `-<key>=<value>`. A flag Tempo's
 * flag set does not hold, a value its type refuses, `-help`, `-version` or `-config.verify` stop Tempo before it
 * serves, the container restarts for good, and no trace is stored. A flag under a module's prefix the reference does
 * not list is said not judged, and so is a later -config.file, which names another file than the tempo.yaml judged.
 * Judged on the rendered container's arguments, offline on the values' map as the chart writes it.
 */
import { dig } from '../../model/core/dig.ts';
import { goPrint } from '../../model/go/fmt.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { ChartValues } from '../../model/helm/chart-values.ts';
import type { RegisteredFlagProblem, RegisteredFlags } from '../../model/command-lines/registered-flags.ts';
import { extraArgWords, readTempoFlags, tempoContainers } from '../../model/tempo/flags.ts';
import { scalarText } from '../../model/core/text.ts';

type Place = Parameters<CheckContext['fail']>[0];

const CONSEQUENCE = 'its container restarts for good, and no trace is stored';
const CONFIG_FLAG = '-config.file';
const FIX =
  "give tempo.extraArgs only flags Tempo's flag set holds, each with a value of its type (quote a number over 999,999: Helm prints it as 1e+06), and no -version, -help or -config.verify";

/** Why a later -config.file is not judged. */
const otherFile = (path: string) => `Tempo reads its configuration from ${path}, not the chart's tempo.yaml the gate judges: not judged`;

const say = (ctx: CheckContext, place: Place, what: string, p: RegisteredFlagProblem) =>
  'unjudged' in p
    ? ctx.notJudged(place, `${what}: ${p.unjudged}`)
    : ctx.fail(place, `${what}: ${p.message}: ${p.exit === 0 ? 'Tempo exits' : `Tempo exits ${p.exit} at start`}, ${CONSEQUENCE}`, FIX);

/**
 * Where the values wrote a rendered word: the `tempo.extraArgs` entry the chart's template writes as it, or the ballast
 * size; undefined for the chart's own words (and where the values are not read), said at the rendered word.
 */
function writtenAt(v: ChartValues | undefined, word: string | undefined): Place | undefined {
  if (!v || word === undefined) return undefined;
  const entry = extraArgWords(dig(v.values, ['tempo', 'extraArgs'])).find((x) => x.word === word);
  if (entry) return { data: v.source, path: ['tempo', 'extraArgs', entry.key] };
  const ballast = word.startsWith('-mem-ballast-size-mbs=') && dig(v.values, ['tempo', 'memBallastSizeMbs']) !== undefined;
  return ballast ? { data: v.source, path: ['tempo', 'memBallastSizeMbs'] } : undefined;
}

/** The rendered Tempo containers of `app`: their arguments, a problem said at the values line that wrote its word. */
export function judgeTempoFlags(ctx: CheckContext, o: { app: string; flags: RegisteredFlags; values: ChartValues | undefined }): void {
  for (const { resource, c } of tempoContainers(ctx.resources, o.app)) {
    // Another command than the image's entrypoint reads the arguments its own way.
    if (c.container.command !== undefined) continue;
    const words = Array.isArray(c.container.args) ? c.container.args.map((w) => scalarText(w)) : [];
    const { problem, values } = readTempoFlags(words, o.flags);
    const what = `container ${c.name} of ${resource.kind} ${resource.name}`;
    const word = (index: number): Place => writtenAt(o.values, words[index]) ?? { resource, path: [...c.at, 'args', index] };
    if (problem) say(ctx, word(problem.index), what, problem);
    const file = values.get(CONFIG_FLAG);
    const first = words.findIndex((w) => w.startsWith(`${CONFIG_FLAG}=`) || w.startsWith(`-${CONFIG_FLAG}=`));
    if (!problem && file && first !== -1 && file.index !== first) ctx.notJudged(word(file.index), `${what}: ${otherFile(file.value)}`);
  }
}

/** Offline: the chart's own two flags, then the values' `tempo.extraArgs` as its template writes them. */
export function judgeValuesTempoFlags(ctx: CheckContext, v: ChartValues, flags: RegisteredFlags): void {
  const extra = extraArgWords(dig(v.values, ['tempo', 'extraArgs']));
  const ballast = dig(v.values, ['tempo', 'memBallastSizeMbs']);
  const chart = [`${CONFIG_FLAG}=/conf/tempo.yaml`, `-mem-ballast-size-mbs=${ballast === undefined ? '1024' : goPrint(ballast)}`];
  const { problem, values } = readTempoFlags([...chart, ...extra.map((x) => x.word)], flags);
  const file = values.get(CONFIG_FLAG);
  if (!problem && file && file.index >= chart.length)
    ctx.notJudged({ data: v.source, path: ['tempo', 'extraArgs', extra[file.index - chart.length]!.key] }, otherFile(file.value));
  if (!problem) return;
  const at =
    problem.index < chart.length
      ? ['tempo', ...(ballast === undefined ? [] : ['memBallastSizeMbs'])]
      : ['tempo', 'extraArgs', extra[problem.index - chart.length]!.key];
  say(ctx, { data: v.source, path: at }, "Tempo's command line (the chart's flags, then tempo.extraArgs)", problem);
}
