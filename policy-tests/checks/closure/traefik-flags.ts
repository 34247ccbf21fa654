/**
 * closure-traefik-flags: every flag a Traefik of the repository starts with names an option of Traefik's static
 * configuration. Traefik decodes its flags into that struct (model/traefik/options.ts) and exits at start on one no
 * field has: the proxy's pods crash, and every route it serves is down. The chart writes a misspelt key of a block it
 * hands over whole (an OTLP exporter's settings) as a flag as it is, and `additionalArguments` as written.
 *
 * A flag one slip from an option is refused at any version. One far from every option is refused where the render
 * runs the Traefik the reference was read for; at another version it may be an option added since, and is said not
 * judged. Judged on the rendered containers' arguments, each on the values line that wrote it; offline on the blocks
 * and arguments the values hand the command line, where the version the chart runs is not known.
 */
import { suggesting } from '../../model/core/did-you-mean.ts';
import { isMap, list } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { containersOf, imageParts, podSpecOf } from '../../model/core/workloads.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import {
  blockFlags,
  flagOf,
  knownFlag,
  meantOption,
  TRAEFIK_CHART,
  TRAEFIK_FLAG_BLOCKS,
  TRAEFIK_OPTIONS,
  traefikReference,
  type TraefikOptions,
} from '../../model/traefik/options.ts';

const CONSEQUENCE = 'Traefik refuses its command line ("field not found") and exits at start: every route it serves is down';
const REFRESH = 'npm run traefik:reference -- --from <clone of traefik/traefik> --ref <the image tag>';
const ARGUMENTS: Path = ['additionalArguments'];

type Place = Parameters<CheckContext['fail']>[0];

/** The values' path that wrote a flag: keys matched as paerser matches names (case aside), or an additional argument. */
function writtenAt(values: Record<string, unknown>, flag: string): Path | undefined {
  const extra = list(values[ARGUMENTS[0]!]).findIndex((a) => typeof a === 'string' && flagOf(a)?.name.toLowerCase() === flag.toLowerCase());
  if (extra >= 0) return [...ARGUMENTS, extra];
  const path: string[] = [];
  let at: unknown = values;
  for (const segment of flag.split('.')) {
    const key = isMap(at) ? Object.keys(at).find((k) => k.toLowerCase() === segment.toLowerCase()) : undefined;
    if (key === undefined) return undefined;
    path.push(key);
    at = (at as Record<string, unknown>)[key];
  }
  return isMap(at) ? undefined : path;
}

/** A flag held to the reference: refused (a fail), far from every option at another version (not judged), or fine. */
function judgeFlag(ctx: CheckContext, o: { flag: string; ref: TraefikOptions; runs: string | undefined; place: Place; name: string }): void {
  if (knownFlag(o.flag, o.ref)) return;
  const meant = meantOption(o.flag, o.ref);
  const text = `${o.name}: flag --${o.flag} names no option of Traefik ${o.ref.version}'s static configuration`;
  if (meant !== undefined || o.runs === o.ref.version) return ctx.fail(o.place, `${text}${suggesting(meant)}: ${CONSEQUENCE}`);
  const at = o.runs === undefined ? 'the version the chart runs is known once it renders' : `the chart runs Traefik ${o.runs}`;
  ctx.notJudged(o.place, `${text}, and ${at}: whether that Traefik has it is not judged (${REFRESH})`);
}

/** The Traefik containers a proxy's render runs, each with its version. */
function renderedTraefiks(resources: readonly Resource[], app: string) {
  return resources
    .filter((r) => r.rendered?.app === app && (r.kind === 'Deployment' || r.kind === 'DaemonSet'))
    .flatMap((resource) => {
      const pod = podSpecOf(resource);
      return (pod ? containersOf(pod) : []).flatMap((c) => {
        const image = typeof c.container.image === 'string' ? imageParts(c.container.image) : undefined;
        return image?.name.endsWith(TRAEFIK_CHART) ? [{ resource, container: c, runs: image.tag?.replace(/^v/, '') }] : [];
      });
    });
}

function judgeRendered(ctx: CheckContext, proxy: ChartValues, ref: TraefikOptions): boolean {
  const traefiks = renderedTraefiks(ctx.resources, proxy.appName);
  for (const { resource, container, runs } of traefiks) {
    list(container.container.args).forEach((arg, n) => {
      const flag = typeof arg === 'string' ? flagOf(arg) : undefined;
      if (!flag) return;
      const values = writtenAt(proxy.values, flag.name);
      const place: Place = values ? { data: proxy.source, path: values } : { resource, path: [...container.at, 'args', n] };
      judgeFlag(ctx, { flag: flag.name, ref, runs, place, name: `${resource.kind} ${resource.name}'s container ${container.name}` });
    });
  }
  return traefiks.length > 0;
}

function judgeValues(ctx: CheckContext, proxy: ChartValues, ref: TraefikOptions): void {
  const name = `the values of ${proxy.appName}`;
  for (const block of TRAEFIK_FLAG_BLOCKS)
    for (const { flag, path } of blockFlags(proxy.values, block)) judgeFlag(ctx, { flag, ref, runs: undefined, place: { data: proxy.source, path }, name });
  list(proxy.values[ARGUMENTS[0]!]).forEach((arg, n) => {
    const flag = typeof arg === 'string' ? flagOf(arg) : undefined;
    if (flag) judgeFlag(ctx, { flag: flag.name, ref, runs: undefined, place: { data: proxy.source, path: [...ARGUMENTS, n] }, name });
  });
}

export const traefikFlagsCheck: PolicyCheck = {
  id: 'closure-traefik-flags',
  description:
    "Every flag a Traefik starts with names an option of its static configuration, as Traefik's table of install options lists them at the version it runs (map keys and list indices as the table marks them, case aside): the chart writes the keys of an OTLP exporter's block and the additionalArguments as flags as written, and Traefik exits at start on a flag no field of its configuration has. A flag one slip from an option fails at any version; one far from all of them fails where Traefik runs the version the reference was read for, and is not judged at another. Flag values are not judged (invariants P1).",
  invariants: ['P1'],
  remediation: `correct the key or argument the finding names in the proxy's values as Traefik documents its install options; after a Traefik upgrade, refresh ${TRAEFIK_OPTIONS} (${REFRESH})`,
  reads: { kinds: ['Deployment', 'DaemonSet', 'Application'], charts: [TRAEFIK_CHART], files: [TRAEFIK_OPTIONS], renders: true },
  exemptible: false,
  run(ctx) {
    const proxies = chartValues(ctx.repo, TRAEFIK_CHART);
    if (proxies.length === 0) return;
    const reference = traefikReference(ctx.repo);
    if (reference && !reference.ok)
      return ctx.fail({ data: reference.data, path: [] }, `${TRAEFIK_OPTIONS} cannot be read (${reference.problem}): Traefik's flags are not judged`);
    for (const proxy of proxies) {
      if (!reference) {
        ctx.notJudged({ data: proxy.source, path: [] }, `no ${TRAEFIK_OPTIONS}: Traefik's flags are not judged (${REFRESH})`);
        continue;
      }
      if (!judgeRendered(ctx, proxy, reference)) judgeValues(ctx, proxy, reference);
    }
  },
};
