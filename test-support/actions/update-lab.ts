/**
 * An update bot's lab for the workflow tests: a scratch repository with this checkout's tooling and workflows and
 * a lab of one chart Application, its chart (gizmo 1.0.0, 1.0.1, and 1.0.2 republished with other bytes) served
 * over HTTPS on 127.0.0.1 (real Helm, a certificate of the test's own); the update bot's pull request; the
 * repository's workflows run on it as GitHub runs them (runner.ts), with what cannot run here replaced by name.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { output } from '../exec.ts';
import { startChartRepo, toolEnv, writeChart, type ChartRepo } from '../chart-repo.ts';
import type { RunState } from './run-state.ts';
import { render } from '../../policy-tests/index.ts';
import { runWorkflow, type JobResult, type Replacement } from './runner.ts';
import { pullCharts } from '../../scripts/charts-pull.ts';

const ROOT = join(import.meta.dirname, '..', '..');
export const REPOSITORY = 'homelab-operator/homelab-gitops';
const BOT = 'renovate[bot]';
/** The lab's own folders and the tests: the scratch repository keeps the tooling and the workflows, and a lab of its own. */
const NOT_COPIED = /^(apps|monitoring|security|portfolio-api|bench)\/|\/test\/|^charts\.lock\.json$/;

const TEMPLATE =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  namespace: {{ .Release.Namespace }}\ndata:\n  mode: {{ .Values.mode | quote }}\n';

/** What cannot run on this machine, by the step's exact text. */
const REPLACE: Record<string, Replacement> = {
  'sudo apt-get update && sudo apt-get install -y --no-install-recommends prometheus prometheus-alertmanager sqlite3 zstd restic postgresql postgresql-client etcd-server etcd-client openssl':
    { why: "the runner image's packages: .ci/run installs the same on this machine" },
  'npm ci': {
    why: "a registry install: this checkout's installed packages, linked, then npm ci's own last step (scripts/postinstall.mjs)",
    run: [
      `ln -s '${join(ROOT, 'node_modules')}' node_modules`,
      `ln -s '${join(ROOT, 'tools/render/node_modules')}' tools/render/node_modules`,
      `ln -s '${join(ROOT, 'tools/renovate/node_modules')}' tools/renovate/node_modules`,
      'node scripts/postinstall.mjs',
    ].join('\n'),
  },
  'npm test': { why: 'the suite this test is part of' },
};

export const git = (cwd: string, ...args: string[]) =>
  output('git', ['-c', 'user.email=bot@renovateapp.com', '-c', 'user.name=renovate[bot]', '-c', 'commit.gpgsign=false', ...args], { cwd });

export interface UpdateLab {
  env: NodeJS.ProcessEnv;
  charts: ChartRepo;
  scratch: string;
  /** The bare repository standing for GitHub's (`<scratch>/<name>.git`) and main's work tree, seeded with gizmo 1.0.0 and its lock. */
  originWithLab(name: string): Promise<{ seed: string; origin: string }>;
  /** The update bot's branch and pull request #1 bumping gizmo to `version`: the merge commit GitHub would build. */
  botPullRequest(seed: string, origin: string, version: string): Promise<string>;
  state(origin: string, artifacts: string, event: 'pull_request' | 'push', sha: string): RunState;
  run(workflow: string, s: RunState): Promise<Record<string, JobResult>>;
  close(): Promise<void>;
}

/** The gizmo Application as the lab pins it. */
const application = (chartRepo: string, version: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: gizmo
  namespace: argocd
  finalizers: [resources-finalizer.argocd.argoproj.io]
spec:
  project: platform
  sources:
    - repoURL: ${chartRepo}
      chart: gizmo
      targetRevision: ${version}
      helm:
        valueFiles: [$values/apps/demo/gizmo/values.yaml]
    - repoURL: https://github.com/${REPOSITORY}.git
      targetRevision: main
      ref: values
  destination:
    server: https://kubernetes.default.svc
    namespace: demo
`;

interface LabCore {
  env: NodeJS.ProcessEnv;
  charts: ChartRepo;
  scratch: string;
}

/** The bare repository standing for GitHub's, with main: this checkout's tooling and workflows, a lab of one chart, its lock. */
async function originWithLab(lab: LabCore, name: string): Promise<{ seed: string; origin: string }> {
  const seed = join(lab.scratch, `${name}-seed`);
  const listed = await output('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  for (const file of new Set(listed.split('\0'))) {
    if (!file || NOT_COPIED.test(file) || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(seed, file)), { recursive: true });
    cpSync(join(ROOT, file), join(seed, file));
  }
  const projects = readFileSync(join(seed, 'clusters/home/projects.yaml'), 'utf8');
  writeFileSync(join(seed, 'clusters/home/projects.yaml'), projects.replace('  sourceRepos:\n', `  sourceRepos:\n    - ${lab.charts.url}\n`));
  mkdirSync(join(seed, 'apps/demo/gizmo'), { recursive: true });
  writeFileSync(join(seed, 'apps/demo/gizmo/application.yaml'), application(lab.charts.url, '1.0.0'));
  writeFileSync(join(seed, 'apps/demo/gizmo/values.yaml'), 'mode: safe\n');
  // The lock as its owner records it, on their own machine: npm run charts:pull -- --update-lock.
  writeFileSync(join(seed, 'charts.lock.json'), '{\n  "charts": []\n}\n');
  if ((await pullCharts({ root: seed, env: lab.env, updateLock: true, out: () => undefined })) !== 0) throw new Error('the lab lock could not be recorded');
  const origin = join(lab.scratch, `${name}.git`);
  await git(lab.scratch, 'init', '-q', '--bare', '-b', 'main', origin);
  await git(seed, 'init', '-q', '-b', 'main');
  await git(seed, 'add', '-A');
  await git(seed, 'commit', '-q', '-m', 'the lab');
  await git(seed, 'push', '-q', origin, 'main');
  return { seed, origin };
}

/** The update bot's branch and pull request #1: the version bumped where the Application pins it, and GitHub's merge ref. */
async function botPullRequest(lab: LabCore, seed: string, origin: string, version: string): Promise<string> {
  const branch = `renovate/gizmo-${version}`;
  await git(seed, 'checkout', '-q', '-b', branch);
  writeFileSync(join(seed, 'apps/demo/gizmo/application.yaml'), application(lab.charts.url, version));
  await git(seed, 'commit', '-q', '-am', `fix(deps): update helm release gizmo to v${version}`);
  await git(seed, 'push', '-q', origin, `${branch}:refs/pull/1/head`);
  await git(seed, 'checkout', '-q', 'main');
  await git(seed, 'merge', '-q', '--no-ff', '-m', `Merge ${branch} into main`, branch);
  await git(seed, 'push', '-q', origin, 'HEAD:refs/pull/1/merge');
  const merge = await git(seed, 'rev-parse', 'HEAD');
  await git(seed, 'reset', '-q', '--hard', 'HEAD~1');
  return merge;
}

/** A run's shared state for one event: the origin, the artifacts, the pull request's comments, GitHub's context. */
function state(origin: string, artifacts: string, event: 'pull_request' | 'push', sha: string): RunState {
  mkdirSync(artifacts, { recursive: true });
  return {
    origin,
    artifacts,
    comments: [],
    github: {
      event_name: event,
      ref: event === 'push' ? 'refs/heads/main' : 'refs/pull/1/merge',
      sha,
      repository: REPOSITORY,
      // The bot's branch is in the repository itself: its pull request's head is the repository.
      event: event === 'pull_request' ? { pull_request: { number: 1, head: { repo: { full_name: REPOSITORY } } } } : {},
    },
  };
}

const GITHUB = {
  base_ref: 'main',
  head_ref: 'renovate/gizmo',
  run_id: '7',
  server_url: 'https://github.com',
  token: 'the-workflow-token',
  event: { pull_request: { number: 1, user: { login: BOT } } },
};

export async function startUpdateLab(): Promise<UpdateLab> {
  const scratch = mkdtempSync(join(tmpdir(), 'workflows-'));
  // The gate's own caches (its bundle's stores, the render tools) are this worker's, already warm: a job's verdict does
  // not depend on them. The chart cache, which decides what each job pulls and verifies, starts empty in every job.
  const env = await toolEnv({ HOMELAB_CACHE_DIR: render.cacheRoot(process.env), HOMELAB_CHART_CACHE: join(scratch, 'seed-charts') });
  const charts = await startChartRepo(env, { https: true });
  env.SSL_CERT_FILE = charts.certFile;
  for (const version of ['1.0.0', '1.0.1', '1.0.2'])
    await charts.publish({ name: 'gizmo', version, values: { mode: 'safe' }, files: { 'templates/cm.yaml': TEMPLATE } });
  // 1.0.2's archive is replaced by other bytes after its index entry was written: a tag republished.
  const other = writeChart(join(scratch, 'other'), { name: 'gizmo', version: '1.0.2', values: { mode: 'open' }, files: { 'templates/cm.yaml': TEMPLATE } });
  await output(env.HELM_BIN!, ['package', other, '--destination', join(scratch, 'other-tgz')], { env });
  cpSync(join(scratch, 'other-tgz', 'gizmo-1.0.2.tgz'), join(charts.dir, 'gizmo-1.0.2.tgz'));
  const lab: LabCore = { env, charts, scratch };
  // Each job's charts where a runner keeps them (the cache root's default under its home), where the workflows' chart cache restores them.
  const jobEnv = (home: string) => ({ HOMELAB_CHART_CACHE: join(home, '.cache/homelab-gitops/charts') });
  return {
    ...lab,
    originWithLab: (name) => originWithLab(lab, name),
    botPullRequest: (seed, origin, version) => botPullRequest(lab, seed, origin, version),
    state,
    run: (workflow, s) => runWorkflow({ file: join(ROOT, '.github/workflows', workflow), state: s, env, github: GITHUB, replace: REPLACE, jobEnv }),
    async close() {
      await charts.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** The lab of one test file: started before its tests, closed after them. */
export function useUpdateLab(): () => UpdateLab {
  let lab: UpdateLab | undefined;
  beforeAll(async () => {
    lab = await startUpdateLab();
  });
  afterAll(async () => {
    await lab?.close();
  });
  return () => lab!;
}

/** The gate job's steps the workflow tests read, by their names as the runner gives them. */
export const PULL_STEP = 'run npm run charts:pull -- --verify-index --prune';
export const GATE_STEP = 'run npm run --silent validate -- --require-rendered --summary --output github --output junit=reports/validate-junit.xml';

/** The gate job's step of this name. */
export const gateStep = (jobs: Record<string, JobResult>, name: string) => jobs.gate!.steps.find((s) => s.name === name)!;

/** The gate's GitHub annotations, without the positions a run's temporary paths could change. */
export const annotations = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('::error'))
    .sort();

/** Each job's result, and the step that failed where one did: what a reader of a red run needs first. */
export const verdict = (jobs: Record<string, JobResult>) =>
  Object.fromEntries(
    Object.entries(jobs).map(([id, j]) => [id, j.result === 'failure' ? `failure: ${j.steps.find((s) => s.outcome === 'failure')?.name}` : j.result]),
  );

/** Every step's outcome, time and log: the message of an expectation on a run, so a red test shows the run. */
export const transcript = (jobs: Record<string, JobResult>) =>
  Object.entries(jobs)
    .flatMap(([id, j]) => j.steps.map((s) => `--- ${id} / ${s.name}: ${s.outcome} (${s.ms} ms)${s.replaced ? ` [replaced: ${s.replaced}]` : ''}\n${s.log}`))
    .join('\n');
