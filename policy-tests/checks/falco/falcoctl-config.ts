/**
 * falcoctl-config-loads: falcoctl's install init container and follow sidecar start with the configuration the falco
 * chart gives them (S3), as falcoctl reads it (model/falco/falcoctl.ts). A setting its flag cannot take (a duration
 * without a unit, a boolean written `yes`), an artifact type it does not know, an empty allowedTypes, references it
 * cannot split: the init container fails and Falco never starts, or the sidecar restarts and the pod is never ready.
 *
 * Judged on the falcoctl.yaml the chart renders, with each container's env (a FALCOCTL_ variable over the file), each
 * finding on the values line that wrote it where the values did; offline on the values' falcoctl.config alone, at
 * the chart release whose falcoctl the port follows.
 */
import { parseDocument } from 'yaml';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { dig, objects, type Obj } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import { containersOf, imageParts, podSpecOf } from '../../model/core/workloads.ts';
import type { SourceRender } from '../../model/argocd/rendered.ts';
import { chartValues, type ChartValues } from '../../model/helm/chart-values.ts';
import { pinnedVersionMiss, placeInValues, renderedFile } from '../../model/helm/chart-output.ts';
import { FALCOCTL_PORT, falcoctlProblems, type FalcoctlCommand, type FalcoctlEnv } from '../../model/falco/falcoctl.ts';

const CONTAINERS: Readonly<Record<FalcoctlCommand, string>> = { install: 'falcoctl-artifact-install', follow: 'falcoctl-artifact-follow' };
const PORTED = `the port follows falcoctl ${FALCOCTL_PORT.version} (chart ${FALCOCTL_PORT.chart} ${FALCOCTL_PORT.chartVersion}): extend model/falco/falcoctl.ts from that release's source`;

/** A container's env as falcoctl reads it: the last entry of a name, undefined where a Secret or a field gives it. */
function envOf(container: Obj): FalcoctlEnv {
  return new Map(
    objects(container.env).map((e) => [scalarText(e.name ?? ''), e.value === undefined && e.valueFrom !== undefined ? undefined : scalarText(e.value ?? '')]),
  );
}

/** Whether the container's arguments name references of their own after `artifact <command>` (then the file's are not read). */
const namesRefs = (container: Obj): boolean =>
  (Array.isArray(container.args) ? container.args.slice(2) : []).some((a) => typeof a === 'string' && a !== '' && !a.startsWith('-'));

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
      if (objects(container.envFrom).length > 0) {
        ctx.notJudged(
          { resource: w, path: [...at, 'envFrom'] },
          `container ${name} takes variables from envFrom, any of which may set falcoctl's settings: not judged`,
        );
        continue;
      }
      const env = envOf(container);
      for (const p of falcoctlProblems(doc, command, { env, whole: true, refsOnCommandLine: namesRefs(container) })) {
        const where: FailurePlace =
          'env' in p.at
            ? { resource: w, path: [...at, 'env', objects(container.env).findLastIndex((e) => e.name === (p.at as { env: string }).env)] }
            : place(p.at.path);
        ctx.fail(where, p.message);
      }
    }
  }
}

function judgeValues(ctx: CheckContext, v: ChartValues): void {
  const config = dig(v.values, ['falcoctl', 'config']);
  if (config === undefined) return;
  const miss = pinnedVersionMiss(ctx.repo, { app: v.appName, chart: FALCOCTL_PORT.chart, chartVersion: FALCOCTL_PORT.chartVersion, refresh: PORTED });
  if (miss) return ctx.notJudged({ data: v.source, path: ['falcoctl', 'config'] }, `falcoctl's configuration: ${miss}`);
  for (const command of Object.keys(CONTAINERS) as FalcoctlCommand[]) {
    if (dig(v.values, ['falcoctl', 'artifact', command, 'enabled']) === false) continue;
    const container = { env: dig(v.values, ['falcoctl', 'artifact', command, 'env']) };
    for (const p of falcoctlProblems(config, command, { env: envOf(container), whole: false })) {
      const path: Path = 'env' in p.at ? ['falcoctl', 'artifact', command, 'env'] : ['falcoctl', 'config', ...p.at.path];
      ctx.fail({ data: v.source, path }, p.message);
    }
  }
}

export const falcoctlConfigCheck: PolicyCheck = {
  id: 'falcoctl-config-loads',
  description: `falcoctl's install init container and follow sidecar start with the configuration the falco chart gives them, as falcoctl ${FALCOCTL_PORT.version} reads it (viper's keys in any case and FALCOCTL_ variables, each setting parsed by the flag it overwrites, allowedTypes and refs as its config package reads them); otherwise Falco never starts, or its pod is never ready. Judged on the rendered falcoctl.yaml, offline on the values' falcoctl.config (S3).`,
  invariants: ['S3'],
  remediation:
    'write each falcoctl setting as falcoctl documents it: refs a list of references, allowedTypes a non-empty list of rulesfile, plugin and asset, follow.every a Go duration (168h), resolveDeps and noVerify true or false, startupBehavior skip, jitter or immediate',
  reads: { kinds: ['Application', 'ConfigMap', 'DaemonSet', 'Deployment'], charts: [FALCOCTL_PORT.chart], renders: true },
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
