/**
 * npm run bootstrap: hands a bare Talos cluster (reachable with a kubeconfig)
 * to git. In order:
 *   1. the CNI, when git deploys it (Cilium, apps/platform/cilium): its chart
 *      and values rendered with the gate's tools, exactly as Argo CD will
 *      render them, applied server-side under Argo CD's field manager, so
 *      that Argo CD adopts it without a diff; nothing else runs without it;
 *   2. the namespaces (clusters/home/namespaces.yaml), server-side;
 *   3. Argo CD, rendered from this repository's own kustomization with the
 *      gate's render tools, applied server-side;
 *   4. the one hand-made credential, the secret store's token, read from
 *      standard input (no echo on a terminal; never in argv or logs);
 *   5. the root app; then 6. it waits until every Application is Synced and
 *      Healthy, wave by wave, and names any app that degrades or stalls.
 * Every step is an apply, so a second run changes nothing. --dry-run prints
 * the plan and touches nothing.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { $, ProcessOutput } from 'zx';
import { stringify } from 'yaml';
import parseDuration from 'parse-duration';
import type { render } from '../policy-tests/index.ts';
import { frontDoor } from './lib/front-door.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';
import { toolError } from './lib/exec.ts';

export const STORE_SECRET = { namespace: 'external-secrets', name: 'onepassword-service-account', key: 'token' } as const;
/** Argo CD's server-side apply field manager: the CNI applied under it is the object Argo CD would have applied, so it adopts it with no diff and no conflict. */
export const ARGOCD_FIELD_MANAGER = 'argocd-controller';
/** The Application that installs Argo CD (apps/platform/argocd), rendered and applied once by hand before it manages itself. */
const ARGOCD_APP = 'argocd';
/** Every AppProject, the root app's own among them: applied before the root app, which needs its project to exist. */
const PROJECTS_FILE = 'clusters/home/projects.yaml';

export interface BootstrapOptions {
  root: string;
  kubectl: string;
  /** Extra kubectl flags (--kubeconfig, --context), before each subcommand. */
  kubeFlags: string[];
  dryRun: boolean;
  timeoutMs: number;
  pollMs: number;
  /** The token, read lazily: only when the Secret does not exist yet. */
  readToken: () => Promise<string>;
  out: (line: string) => void;
  env: NodeJS.ProcessEnv;
}

export class BootstrapError extends Error {}

/**
 * Every kubectl and kustomize call is killed past this: a hang guard, not a speed limit (a server-side apply
 * of Argo CD takes seconds; an API server that accepts the connection and never answers would wait forever).
 */
const HANG_GUARD = { timeout: '10m', timeoutSignal: 'SIGKILL' } as const;

/** Runs kubectl through zx's $, quiet, with stdin from `input`; a failure is one line naming what kubectl said. */
async function kubectl(o: BootstrapOptions, args: string[], input?: string): Promise<string> {
  try {
    const run = await $({
      ...HANG_GUARD,
      env: o.env,
      input,
      quiet: true,
      verbose: false,
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })`${o.kubectl} ${o.kubeFlags} ${args}`;
    return run.stdout;
  } catch (err) {
    if (err instanceof ProcessOutput && err.signal === 'SIGKILL') throw new BootstrapError(`kubectl ${args[0]}: no answer in ${HANG_GUARD.timeout} (killed)`);
    throw new BootstrapError(`kubectl ${args[0]}: ${toolError(err)}`);
  }
}

interface AppState {
  name: string;
  wave: number;
  sync: string;
  health: string;
  message: string;
  /** The message of an InvalidSpecError condition: the controller does not reconcile the app until its spec changes. */
  invalidSpec?: string;
}

export function appStates(json: string): AppState[] {
  const list = JSON.parse(json) as { items?: Record<string, any>[] };
  return (list.items ?? []).map((a) => ({
    name: String(a.metadata?.name ?? ''),
    wave: Number(a.metadata?.annotations?.['argocd.argoproj.io/sync-wave'] ?? 0) || 0,
    sync: String(a.status?.sync?.status ?? 'Unknown'),
    health: String(a.status?.health?.status ?? 'Unknown'),
    message: String(a.status?.health?.message ?? a.status?.conditions?.[0]?.message ?? a.status?.operationState?.message ?? ''),
    ...invalidSpecOf(a.status?.conditions),
  }));
}

function invalidSpecOf(conditions: unknown): { invalidSpec?: string } {
  const found = (Array.isArray(conditions) ? conditions : []).find((c: { type?: unknown }) => c?.type === 'InvalidSpecError') as
    | { message?: unknown }
    | undefined;
  return found ? { invalidSpec: typeof found.message === 'string' ? found.message : 'InvalidSpecError' } : {};
}

const ready = (a: AppState) => a.sync === 'Synced' && a.health === 'Healthy';

/** The plan, as a person would type it. */
export function plan(o: BootstrapOptions): string[] {
  const k = [o.kubectl, ...o.kubeFlags].join(' ');
  return [
    `${k} version  (the cluster answers)`,
    `the CNI's Application (the cluster fact "cni"), rendered with the gate's tools | ${k} apply --server-side --force-conflicts --field-manager=${ARGOCD_FIELD_MANAGER} -f -  (kinds whose CRDs come later are left to Argo CD)`,
    `${k} apply --server-side -f clusters/home/namespaces.yaml`,
    `Application ${ARGOCD_APP} (apps/platform/argocd), rendered with the gate's tools, its remote base held to charts.lock.json | ${k} apply --server-side --force-conflicts -f -`,
    `${k} -n ${STORE_SECRET.namespace} get secret ${STORE_SECRET.name}, and if it is missing: the token from standard input | ${k} apply --server-side --field-manager=homelab-bootstrap -f -`,
    `${k} apply --server-side -f ${PROJECTS_FILE}  (every Application's project, the root app's among them)`,
    `${k} apply --server-side -f clusters/home/root.yaml`,
    `${k} -n argocd get applications, until every app is Synced and Healthy (timeout ${Math.round(o.timeoutMs / 1000)} s)`,
  ];
}

export async function bootstrap(o: BootstrapOptions): Promise<number> {
  if (o.dryRun) {
    o.out('Plan (--dry-run: nothing is applied):');
    plan(o).forEach((step, i) => o.out(`  ${i + 1}. ${step}`));
    return 0;
  }
  try {
    await kubectl(o, ['version', '-o', 'json']);
  } catch (err) {
    throw new BootstrapError(`cannot reach the cluster: ${(err as Error).message.replace(/^kubectl version: /, '')}`);
  }
  const gate = await frontDoor();
  const loaded = await gate.render.loadTree(o.root);
  await installCni(o, loaded);

  o.out('2/7 namespaces');
  await kubectl(o, ['apply', '--server-side', '-f', join(o.root, 'clusters/home/namespaces.yaml')]);

  o.out('3/7 Argo CD, from apps/platform/argocd');
  // Rendered as the gate renders it: the remote install manifest fetched and held to its digest in charts.lock.json
  // before kustomize sees it, so what the cluster gets first is what the gate judged.
  const argocd = await gate.render.renderApplications(loaded, [ARGOCD_APP], o.env);
  const failed = argocd.find((r) => r.status !== 'rendered');
  if (failed || argocd.length === 0)
    throw new BootstrapError(`cannot render Application ${ARGOCD_APP} (apps/platform/argocd): ${failed?.message ?? 'no Application of that name renders'}`);
  const manifest = argocd
    .flatMap((r) => r.resources)
    .map((r) => stringify(r.object))
    .join('---\n');
  await kubectl(o, ['apply', '--server-side', '--force-conflicts', '-f', '-'], manifest);

  o.out('4/7 the secret store credential');
  const existing = await kubectl(o, ['-n', STORE_SECRET.namespace, 'get', 'secret', STORE_SECRET.name, '--ignore-not-found', '-o', 'name']);
  if (existing.trim()) o.out(`    ${STORE_SECRET.namespace}/${STORE_SECRET.name} exists; kept`);
  else {
    const token = (await o.readToken()).trim();
    if (!token) throw new UsageError(`no token on standard input for ${STORE_SECRET.namespace}/${STORE_SECRET.name}`);
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: STORE_SECRET.name, namespace: STORE_SECRET.namespace },
      type: 'Opaque',
      data: { [STORE_SECRET.key]: Buffer.from(token).toString('base64') },
    };
    // Through stdin only: the token is never an argument, and nothing here prints it. Server-side, so
    // kubectl writes no last-applied-configuration annotation, where anyone who can read the Secret's
    // metadata (kubectl describe) would see the token.
    await kubectl(o, ['apply', '--server-side', '--field-manager=homelab-bootstrap', '-f', '-'], JSON.stringify(secret));
    o.out(`    ${STORE_SECRET.namespace}/${STORE_SECRET.name} created`);
  }

  // Before the root app: Argo CD reconciles no Application whose project does not exist (refreshAppConditions:
  // "Application referencing project ... which does not exist"), the root app's own project included, and the
  // projects are the root app's to apply.
  o.out('5/7 the projects');
  await kubectl(o, ['apply', '--server-side', '-f', join(o.root, PROJECTS_FILE)]);

  o.out('6/7 the root app');
  await kubectl(o, ['apply', '--server-side', '-f', join(o.root, 'clusters/home/root.yaml')]);

  o.out('7/7 waiting for every Application to be Synced and Healthy');
  const deadline = Date.now() + o.timeoutMs;
  let last = '';
  for (;;) {
    const apps = appStates(await kubectl(o, ['-n', 'argocd', 'get', 'applications.argoproj.io', '-o', 'json']));
    const degraded = apps.find((a) => a.health === 'Degraded');
    if (degraded) throw new BootstrapError(`app ${degraded.name} (wave ${degraded.wave}) is Degraded${degraded.message ? `: ${degraded.message}` : ''}`);
    // An invalid spec (a missing project, a destination Argo CD does not know) is never retried into a sync.
    const invalid = apps.find((a) => a.invalidSpec);
    if (invalid) throw new BootstrapError(`app ${invalid.name} (wave ${invalid.wave}) is not reconciled: ${invalid.invalidSpec}`);
    const waves = [...new Set(apps.map((a) => a.wave))].sort((a, b) => a - b);
    const line = waves.map((w) => `wave ${w}: ${apps.filter((a) => a.wave === w && ready(a)).length}/${apps.filter((a) => a.wave === w).length}`).join(', ');
    if (line !== last) o.out(`    ${line}`);
    last = line;
    if (apps.length > 0 && apps.every(ready)) {
      o.out(`done: ${apps.length} Applications Synced and Healthy`);
      return 0;
    }
    if (Date.now() >= deadline) {
      const first = waves.find((w) => apps.some((a) => a.wave === w && !ready(a)));
      const stalled = apps.filter((a) => a.wave === first && !ready(a)).map((a) => `${a.name} (${a.sync}/${a.health}${a.message ? `: ${a.message}` : ''})`);
      throw new BootstrapError(`timed out in wave ${first}: ${stalled.join('; ')}`);
    }
    await sleep(o.pollMs);
  }
}

/**
 * The CNI, when git deploys it: the Application's render, as the gate and Argo CD make it (the chart from the
 * cache npm run charts:pull fills, checked against charts.lock.json), applied server-side. Objects of API groups
 * the app says it needs from later apps (its ServiceMonitors: monitoring.coreos.com) wait for Argo CD.
 */
async function installCni(o: BootstrapOptions, loaded: render.LoadedTree): Promise<void> {
  const { facts, render: tier } = await frontDoor();
  const { name, app } = facts.cniApplication(loaded.plain);
  if (!app) {
    o.out(`1/7 the CNI (${name}) comes with the nodes; nothing to install`);
    return;
  }
  o.out(`1/7 the CNI (${name}), from Application ${app.name}`);
  const renders = await tier.renderApplications(loaded, [app.name], o.env);
  const failed = renders.find((r) => r.status !== 'rendered');
  if (failed || renders.length === 0) throw new BootstrapError(`cannot render ${app.name}: ${failed?.message ?? 'it has no source to render'}`);
  const { now, later, groups } = facts.byRequiredApis(
    app,
    renders.flatMap((r) => r.resources),
  );
  const manifest = now.map((r) => stringify(r.object)).join('---\n');
  await kubectl(o, ['apply', '--server-side', '--force-conflicts', `--field-manager=${ARGOCD_FIELD_MANAGER}`, '-f', '-'], manifest);
  o.out(`    ${now.length} objects applied${later.length ? `; ${later.length} left for Argo CD (their API comes with ${groups.join(', ')})` : ''}`);
}

/** Ctrl-C at the token prompt: the operator stopped, and nothing more is applied (exit 130, as a shell reports SIGINT). */
export class Interrupted extends Error {}

/** What a terminal's standard input offers: a stream of keys, and raw mode. */
export interface KeyInput extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
}

/**
 * Reads one secret line: from a pipe as it comes; from a terminal in raw mode,
 * without echo, where Backspace edits, Enter (or Ctrl-D) ends, and Ctrl-C
 * aborts. Raw mode is restored whatever happens, an error included.
 */
export async function readHiddenLine(input: KeyInput, prompt: (text: string) => void): Promise<string> {
  if (!input.isTTY) {
    let text = '';
    for await (const chunk of input) text += String(chunk);
    return text;
  }
  prompt(`secret store token for ${STORE_SECRET.namespace}/${STORE_SECRET.name} (not shown): `);
  input.setRawMode?.(true);
  let token = '';
  try {
    for await (const chunk of input) {
      for (const key of String(chunk)) {
        if (key === '\u0003') throw new Interrupted('interrupted at the token prompt (Ctrl-C); nothing more was applied');
        if (key === '\r' || key === '\n' || key === '\u0004') return token;
        if (key === '\u007f' || key === '\b')
          token = Array.from(new Intl.Segmenter().segment(token), (s) => s.segment)
            .slice(0, -1)
            .join('');
        else if (key >= ' ') token += key;
      }
    }
    return token;
  } finally {
    input.setRawMode?.(false);
    prompt('\n');
  }
}

const readTokenFromStdin = () => readHiddenLine(process.stdin, (t) => process.stderr.write(t));

export async function main(
  argv: string[],
  env: NodeJS.ProcessEnv = process.env,
  io?: CommandIo,
  readToken: () => Promise<string> = readTokenFromStdin,
): Promise<number> {
  const out = (line: string) => (io ? io.stdout(`${line}\n`) : process.stdout.write(`${line}\n`));
  return runCommand(
    {
      name: 'bootstrap',
      usage: 'bootstrap [--kubeconfig PATH] [--context NAME] [--timeout 30m] [--dry-run]',
      help: `Hands a bare Talos cluster to git: the CNI (Cilium, the cluster fact "cni"; its chart
from the cache npm run charts:pull fills), the namespaces, Argo CD from apps/platform/argocd
(rendered with the gate's tools, applied server-side), the secret store's token
from standard input (not echoed; never in argv or logs), and the root app; then
waits, wave by wave, until every Application is Synced and Healthy.
Running it again changes nothing (every step is an apply; an existing token is kept).

  --kubeconfig PATH, --context NAME   passed to kubectl
  --timeout DURATION                  how long to wait for the apps (default 30m)
  --dry-run                           print the plan, touch nothing

Environment: KUBECTL (your own kubectl; default: the gate's pinned one).
At a terminal the token is read without echo: Backspace edits, Enter ends,
Ctrl-C aborts (exit 130). The Secret is applied server-side, so no
last-applied-configuration annotation ever holds the token.

Exit status: 0 every app Synced and Healthy, 1 a failure (the cluster does not
answer, an app is Degraded, the wait timed out), 2 a usage error, 130 Ctrl-C
at the token prompt.`,
      options: {
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        timeout: { type: 'string' },
        poll: { type: 'string' },
        'dry-run': { type: 'boolean', default: false },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const duration = (raw: unknown, fallback: string, flag: string) => {
          const text = typeof raw === 'string' ? raw : fallback;
          // A bare number is no duration here: 30 means neither seconds nor minutes to an operator at 2 a.m.
          const ms = /[a-z]$/i.test(text) ? parseDuration(text) : null;
          if (ms === null || !Number.isFinite(ms) || ms <= 0) throw new UsageError(`${flag} must be a duration such as 30m, got "${String(raw)}"`);
          return ms;
        };
        const kubeFlags = [
          ...(values.kubeconfig ? ['--kubeconfig', String(values.kubeconfig)] : []),
          ...(values.context ? ['--context', String(values.context)] : []),
        ];
        const { REPO_ROOT, render: tier } = await frontDoor();
        const kubectlBin = env.KUBECTL || (values['dry-run'] ? 'kubectl' : (await tier.pinnedBinaries(env)).kubectl);
        try {
          return await bootstrap({
            root: env.HOMELAB_REPO_ROOT ?? REPO_ROOT,
            kubectl: kubectlBin,
            kubeFlags,
            dryRun: values['dry-run'] === true,
            timeoutMs: duration(values.timeout, '30m', '--timeout'),
            pollMs: duration(values.poll, '5s', '--poll'),
            readToken,
            out,
            env,
          });
        } catch (err) {
          if (err instanceof Interrupted) {
            (io?.stderr ?? ((t: string) => process.stderr.write(t)))(`bootstrap: ${err.message}\n`);
            return 130;
          }
          if (err instanceof BootstrapError) throw new Error(err.message);
          throw err;
        }
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
