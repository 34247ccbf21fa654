/**
 * falcoctl-config-loads: falcoctl's install init container and follow sidecar start with the configuration the falco
 * chart gives them (S3), as falcoctl reads it (model/falco/falcoctl.ts). A setting its flag cannot take (a duration
 * without a unit, a boolean written `yes`), an artifact type it does not know, an empty allowedTypes, references it
 * cannot split: the init container fails and Falco never starts, or the sidecar restarts and the pod is never ready.
 * And the follow sidecar asks the Falco of its pod for its versions as it starts (model/falco/falco-versions.ts): a URL
 * the webserver of the rendered falco.yaml does not answer (another port, HTTPS either way, another path, the server
 * off) stops it.
 *
 * Judged on the falcoctl.yaml the chart renders, with each container's variables (a FALCOCTL_ variable over the file:
 * its env, and the keys of the Secrets and ConfigMaps its envFrom names, as the repository writes them), each finding
 * on the values line that wrote it where the values did; offline on the values' falcoctl.config and each container's
 * env and envFrom there, at the chart release whose falcoctl the port follows. An envFrom source whose keys the
 * repository does not say may set any FALCOCTL_ variable: that container is not judged.
 */
import { isDeepStrictEqual } from 'node:util';
import { parseDocument } from 'yaml';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig, obj, objects, str, type Obj } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { commandLineFlagEntries, containerArgv, containersOf, imageParts, podSpecOf, type ContainerRef } from '../../model/core/workloads.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { parseRenderedFile, pinnedVersionMiss, placeInValues, renderedFile } from '../../model/helm/chart-output.ts';
import { FALCO_VERSIONS_DEFAULT, falcoWebserver, versionsMiss } from '../../model/falco/falco-versions.ts';
import { applicationsByName, namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment, mayStartWith } from '../../model/cluster/environment.ts';
import {
  ARTIFACT_INDEX_FILE,
  carriedText,
  FALCOCTL_PORT,
  falcoctlProblems,
  indexEntries,
  type FalcoctlCommand,
  type FalcoctlEnv,
  type FalcoctlProblem,
} from '../../model/falco/falcoctl.ts';

const CONTAINERS: Readonly<Record<FalcoctlCommand, string>> = { install: 'falcoctl-artifact-install', follow: 'falcoctl-artifact-follow' };
/** What every variable falcoctl reads from its environment starts with (viper's env prefix). */
const VARIABLE = 'FALCOCTL_';
const unreadMessage = (container: string, source: string) =>
  `container ${container} takes variables from envFrom ${source}, whose keys the repository does not say, and any ${VARIABLE} one of them overrides falcoctl's configuration: not judged`;
const PORTED = `the port follows falcoctl ${FALCOCTL_PORT.version} (chart ${FALCOCTL_PORT.chart} ${FALCOCTL_PORT.chartVersion}): extend model/falco/falcoctl.ts from that release's source`;

/**
 * A container's variables as falcoctl reads them (givenVariables: its envFrom sources', then its env over them), the
 * last entry of a name, undefined where a Secret's reference, a field or an unread key gives it; with where each is
 * set, under the container. Or the envFrom entry whose keys the repository does not say and that may set a FALCOCTL_
 * variable: then the container is not judged.
 */
function falcoctlEnv(
  ctx: CheckContext,
  namespace: string | undefined,
  container: Obj,
): { env: FalcoctlEnv; at: ReadonlyMap<string, Path> } | { unread: number } {
  const { entries, unread } = containerEnvironment(ctx, namespace, container);
  const may = unread.find((u) => mayStartWith(u.prefix, VARIABLE));
  if (may) return { unread: may.source };
  const env = new Map<string, string | undefined>();
  const at = new Map<string, Path>();
  for (const e of entries) {
    const name = scalarText(e.name ?? '');
    env.set(name, e.value === undefined && e.valueFrom !== undefined ? undefined : scalarText(e.value ?? ''));
    at.set(name, e.at);
  }
  return { env, at };
}

const unreadSource = (container: Obj, source: number) => {
  const entry = objects(container.envFrom)[source]!;
  const ref = obj(entry.secretRef ?? entry.configMapRef);
  return `${entry.secretRef !== undefined ? 'Secret' : 'ConfigMap'} ${str(ref.name)}${entry.prefix ? ` (prefix ${str(entry.prefix)})` : ''}`;
};

/** The references the container's arguments name after `artifact <command>` (then the file's are not read). */
const argumentRefs = (container: Obj): string[] =>
  (Array.isArray(container.args) ? container.args.slice(2) : []).filter((a): a is string => typeof a === 'string' && a !== '' && !a.startsWith('-'));

/** Which of --cron and --every (or its -e) a list of falcoctl's arguments gives, as pflag reads a long flag or a bundle of shorthands. */
const givenFlags = (args: unknown): string[] => {
  const words = (Array.isArray(args) ? args : []).filter((a): a is string => typeof a === 'string');
  const gives = (flag: string, short?: RegExp) => words.some((w) => w === `--${flag}` || w.startsWith(`--${flag}=`) || (short?.test(w) ?? false));
  return [...(gives('cron') ? ['cron'] : []), ...(gives('every', /^-[vh]*e/) ? ['every'] : [])];
};

/** A problem said: failed, or not judged where the gate cannot work it out. */
const say = (ctx: CheckContext, where: FailurePlace, p: FalcoctlProblem) => (p.notJudged ? ctx.notJudged(where, p.message) : ctx.fail(where, p.message));

/**
 * Where a variable of a rendered falcoctl container is set: the values' env or envFrom entry the chart copied it
 * from (the same entry at the same place of the list), else the rendered container's.
 */
function variablePlace(
  values: ChartValues | undefined,
  command: FalcoctlCommand,
  rendered: { resource: Resource; at: Path; container: Obj },
  entry: Path,
): FailurePlace {
  const path = ['falcoctl', 'artifact', command, ...entry];
  const written = values && dig(values.values, path);
  return written !== undefined && isDeepStrictEqual(written, dig(rendered.container, entry))
    ? { data: values!.source, path }
    : { resource: rendered.resource, path: [...rendered.at, ...entry] };
}

function judgeRendered(ctx: CheckContext, render: SourceRender, values: ChartValues | undefined): void {
  const config = render.resources.map((r) => ({ r, file: renderedFile(r, 'falcoctl.yaml') })).find((x) => x.r.kind === 'ConfigMap' && x.file);
  if (!config) return;
  const file = config.file!;
  const place = placeInValues({ resource: config.r, path: file.path }, values, (path) => ({ roots: [['falcoctl', 'config']], rest: path }));
  const parsed = parseDocument(file.text, { uniqueKeys: true, intAsBigInt: true });
  if (parsed.errors.length > 0) {
    ctx.fail(
      { resource: config.r, path: file.path },
      `falcoctl cannot read its falcoctl.yaml (${parsed.errors[0]!.message.split('\n')[0]}) and exits at start`,
    );
    return;
  }
  const doc = parsed.toJS() as unknown;
  for (const w of render.resources) {
    const pod = podSpecOf(w);
    if (!pod) continue;
    for (const { container, at, name } of containersOf(pod)) {
      const command = (Object.keys(CONTAINERS) as FalcoctlCommand[]).find((c) => CONTAINERS[c] === name);
      if (!command) continue;
      const tag = imageParts(scalarText(container.image ?? '')).tag?.replace(/^v/, '');
      if (tag !== FALCOCTL_PORT.version) {
        ctx.notJudged(
          { resource: w, path: [...at, 'image'] },
          `container ${name} runs falcoctl ${tag ?? '(no tag)'}: its configuration is not judged (${PORTED})`,
        );
        continue;
      }
      const given = falcoctlEnv(ctx, namespaceOrDestination(ctx.repo, w), container);
      if ('unread' in given) {
        ctx.notJudged(
          variablePlace(values, command, { resource: w, at, container }, ['envFrom', given.unread]),
          unreadMessage(name, unreadSource(container, given.unread)),
        );
        continue;
      }
      const index = indexEntries(ctx.repo.dataFiles.get(ARTIFACT_INDEX_FILE)?.data);
      const refs = argumentRefs(container);
      for (const p of falcoctlProblems(doc, command, {
        env: given.env,
        whole: true,
        refsOnCommandLine: refs.length > 0,
        commandLineRefs: refs,
        commandLineFlags: givenFlags(container.args),
        ...(index ? { index } : {}),
      })) {
        const where: FailurePlace = 'env' in p.at ? variablePlace(values, command, { resource: w, at, container }, given.at.get(p.at.env)!) : place(p.at.path);
        say(ctx, where, p);
      }
      if (command === 'follow') {
        const url = versionsUrl(doc, given.env, container);
        if (!url) continue;
        const urlPlace = (): FailurePlace =>
          'arg' in url.at
            ? { resource: w, path: [...at, 'args', url.at.arg] }
            : 'env' in url.at
              ? variablePlace(values, command, { resource: w, at, container }, given.at.get(url.at.env)!)
              : 'path' in url.at
                ? place(url.at.path)
                : { resource: w, path: [...at, 'name'] };
        judgeVersions(ctx, { render, values, pod: containersOf(pod), url: url.text, urlPlace, byDefault: !writtenUrl(values, url.at) });
      }
    }
  }
}

/** Whether the repository's values wrote the URL: its argument, variable, or key under falcoctl.config (not the chart's default). */
const writtenUrl = (values: ChartValues | undefined, at: FalcoctlProblem['at'] | { arg: number } | { default: true }) =>
  'arg' in at || 'env' in at || ('path' in at && dig(values?.values, ['falcoctl', 'config', ...at.path]) !== undefined);

/** Where follow asks Falco's versions: its command line's --falco-versions, else the configuration's, else its default. */
function versionsUrl(
  doc: unknown,
  env: FalcoctlEnv,
  container: Obj,
): { text: string; at: FalcoctlProblem['at'] | { arg: number } | { default: true } } | undefined {
  const args = (Array.isArray(container.args) ? container.args : []).map((a) => scalarText(a));
  // The words after `artifact follow`: the last --falco-versions given wins.
  const given = commandLineFlagEntries(args.slice(2), 'falco-versions').at(-1);
  if (given) return { text: given.value, at: { arg: given.index + 2 } };
  const set = carriedText(doc, 'artifact.follow.falcoversions', env);
  if (set && !('text' in set)) return undefined;
  return set ?? { text: FALCO_VERSIONS_DEFAULT, at: { default: true } };
}

/**
 * follow's versions URL held to the webserver of the Falco container beside it, as its rendered falco.yaml sets it;
 * a miss where the URL is falcoctl's default is said at the webserver setting that moved away from it.
 */
function judgeVersions(
  ctx: CheckContext,
  o: { render: SourceRender; values: ChartValues | undefined; pod: ContainerRef[]; url: string; urlPlace: () => FailurePlace; byDefault: boolean },
): void {
  const falco = o.pod.find((c) => c.name === 'falco');
  const config = o.render.resources.map((r) => ({ r, file: renderedFile(r, 'falco.yaml') })).find((x) => x.r.kind === 'ConfigMap' && x.file);
  if (!falco || !config) return;
  const parsed = parseRenderedFile(config.file!.text);
  const server = 'doc' in parsed ? falcoWebserver(parsed.doc) : undefined;
  if (!server) return;
  const overridden =
    containerArgv(falco.container).some((a) => a.includes('webserver.')) ||
    objects(falco.container.volumeMounts).some((m) => str(m.mountPath).startsWith('/etc/falco/config.d'));
  const miss = overridden ? { unjudged: "Falco's command line or a file under its config.d may set its webserver" } : versionsMiss(o.url, server);
  if (!miss) return;
  const serverPlace = (setting: string) =>
    placeInValues({ resource: config.r, path: config.file!.path }, o.values, (path) => ({ roots: [['falco']], rest: path, minDepth: 2 }))([
      'webserver',
      setting,
    ]);
  const where = 'why' in miss && o.byDefault && miss.setting !== 'path' ? serverPlace(miss.setting) : o.urlPlace();
  if ('unjudged' in miss) return ctx.notJudged(where, `falcoctl artifact follow asks ${o.url} for Falco's versions as it starts: ${miss.unjudged}`);
  ctx.fail(
    where,
    `falcoctl ${FALCOCTL_PORT.version} artifact follow asks ${o.url} for Falco's versions as it starts, where the Falco of its pod ${miss.why}: it gets none, exits 1, and the sidecar restarts for good (the pod is never ready)`,
    `point falcoctl.config.artifact.follow.falcoversions (or --falco-versions) at http://localhost:<falco.webserver.listen_port>/versions, with falco.webserver enabled and without ssl_enabled`,
  );
}

function judgeValues(ctx: CheckContext, v: ChartValues): void {
  const config = dig(v.values, ['falcoctl', 'config']);
  if (config === undefined) return;
  const miss = pinnedVersionMiss(ctx.repo, { app: v.appName, chart: FALCOCTL_PORT.chart, chartVersion: FALCOCTL_PORT.chartVersion, refresh: PORTED });
  if (miss) return ctx.notJudged({ data: v.source, path: ['falcoctl', 'config'] }, `falcoctl's configuration: ${miss}`);
  const namespace = applicationsByName(ctx.repo).get(v.appName)?.destinationNamespace;
  for (const command of Object.keys(CONTAINERS) as FalcoctlCommand[]) {
    if (dig(v.values, ['falcoctl', 'artifact', command, 'enabled']) === false) continue;
    // The container as the values give it: the chart copies each command's env and envFrom into it.
    const artifact = ['falcoctl', 'artifact', command];
    const container = { env: dig(v.values, [...artifact, 'env']), envFrom: dig(v.values, [...artifact, 'envFrom']) };
    const given = falcoctlEnv(ctx, namespace, container);
    if ('unread' in given) {
      ctx.notJudged(
        { data: v.source, path: [...artifact, 'envFrom', given.unread] },
        unreadMessage(CONTAINERS[command], unreadSource(container, given.unread)),
      );
      continue;
    }
    const index = indexEntries(ctx.repo.dataFiles.get(ARTIFACT_INDEX_FILE)?.data);
    const commandLineFlags = givenFlags(dig(v.values, [...artifact, 'args']));
    for (const p of falcoctlProblems(config, command, { env: given.env, whole: false, commandLineFlags, ...(index ? { index } : {}) })) {
      const path: Path = 'env' in p.at ? [...artifact, ...given.at.get(p.at.env)!] : ['falcoctl', 'config', ...p.at.path];
      say(ctx, { data: v.source, path }, p);
    }
  }
}

export const falcoctlConfigCheck: PolicyCheck = {
  id: 'falcoctl-config-loads',
  description: `falcoctl's install init container and follow sidecar start with the configuration the falco chart gives them, as falcoctl ${FALCOCTL_PORT.version} reads it (viper's keys in any case and FALCOCTL_ variables, from env or the keys of an envFrom source the repository writes, each setting parsed by the flag it overwrites, no cron beside every where PreRunE sets both (cobra refuses the two), allowedTypes and refs as its config package reads them, and each reference the install pulls of a type allowedTypes takes, by the falcosecurity index facts), and the follow sidecar's Falco versions URL (its --falco-versions, else the configuration's, else falcoctl's http://localhost:8765/versions) is one the webserver of the Falco beside it answers, as the rendered falco.yaml sets it (its port, HTTP or HTTPS, /versions, the server on; another host, and a webserver Falco's command line may move, not judged); otherwise Falco never starts, or its pod is never ready. Judged on the rendered falcoctl.yaml and falco.yaml, offline on the values' falcoctl.config (S3).`,
  invariants: ['S3'],
  remediation:
    'write each falcoctl setting as falcoctl documents it: refs a list of references, allowedTypes a non-empty list of rulesfile, plugin and asset, follow.every a Go duration (168h) or a cron in its place (with every: null), never both, resolveDeps and noVerify true or false, startupBehavior skip, jitter or immediate, follow.falcoversions the Falco webserver of its pod (http://localhost:<falco.webserver.listen_port>/versions)',
  reads: {
    kinds: withKeyProviders('Application', 'ConfigMap', 'DaemonSet', 'Deployment'),
    charts: [FALCOCTL_PORT.chart],
    renders: true,
    files: [ARTIFACT_INDEX_FILE],
  },
  exemptible: false,
  run(ctx) {
    const values = chartValues(ctx.repo, FALCOCTL_PORT.chart);
    const rendered = ctx.renders.filter((r) => r.source.chart === FALCOCTL_PORT.chart && r.status === 'rendered');
    for (const render of rendered)
      judgeRendered(
        ctx,
        render,
        values.find((v) => v.appName === render.app.name),
      );
    for (const v of values.filter((x) => !rendered.some((r) => r.app.name === x.appName))) judgeValues(ctx, v);
  },
};
