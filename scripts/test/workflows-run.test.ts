/**
 * The repository's own workflows, run as GitHub runs them (test-support/actions/runner.ts), on an update bot's
 * chart patch bump: a scratch repository with this checkout's tooling and workflows and a lab of one chart
 * Application, its chart served over HTTPS on 127.0.0.1 (real Helm, a certificate of the test's own). The pull
 * request's jobs must pass and comment; after the merge, the push's jobs record the published digest on main.
 * The same bump with bytes that are not the published ones must fail, and still comment.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { output } from '../../test-support/exec.ts';
import { startChartRepo, toolEnv, writeChart, type ChartRepo } from '../../test-support/chart-repo.ts';
import type { RunState } from '../../test-support/actions/actions.ts';
import { render } from '../../policy-tests/index.ts';
import { runWorkflow, type JobResult, type Replacement } from '../../test-support/actions/runner.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const REPOSITORY = 'homelab-operator/homelab-gitops';
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

const git = (cwd: string, ...args: string[]) =>
  output('git', ['-c', 'user.email=bot@renovateapp.com', '-c', 'user.name=renovate[bot]', '-c', 'commit.gpgsign=false', ...args], { cwd });

let env: NodeJS.ProcessEnv;
let charts: ChartRepo;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'workflows-'));
  // The gate's own caches (its bundle's stores, the render tools) are this worker's, already warm: a job's verdict does
  // not depend on them. The chart cache, which decides what each job pulls and verifies, starts empty in every job.
  env = await toolEnv({ HOMELAB_CACHE_DIR: render.cacheRoot(process.env), HOMELAB_CHART_CACHE: join(scratch, 'seed-charts') });
  charts = await startChartRepo(env, { https: true });
  env.SSL_CERT_FILE = charts.certFile;
  for (const version of ['1.0.0', '1.0.1', '1.0.2'])
    await charts.publish({ name: 'gizmo', version, values: { mode: 'safe' }, files: { 'templates/cm.yaml': TEMPLATE } });
  // 1.0.2's archive is replaced by other bytes after its index entry was written: a tag republished.
  const other = writeChart(join(scratch, 'other'), { name: 'gizmo', version: '1.0.2', values: { mode: 'open' }, files: { 'templates/cm.yaml': TEMPLATE } });
  await output(env.HELM_BIN!, ['package', other, '--destination', join(scratch, 'other-tgz')], { env });
  cpSync(join(scratch, 'other-tgz', 'gizmo-1.0.2.tgz'), join(charts.dir, 'gizmo-1.0.2.tgz'));
});

afterAll(async () => {
  await charts?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const application = (version: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: gizmo
  namespace: argocd
spec:
  project: platform
  sources:
    - repoURL: ${charts.url}
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

/** The bare repository standing for GitHub's, with main: this checkout's tooling and workflows, a lab of one chart, its lock. */
async function originWithLab(name: string): Promise<string> {
  const seed = join(scratch, `${name}-seed`);
  const listed = await output('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT });
  for (const file of new Set(listed.split('\0'))) {
    if (!file || NOT_COPIED.test(file) || !existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(seed, file)), { recursive: true });
    cpSync(join(ROOT, file), join(seed, file));
  }
  const projects = readFileSync(join(seed, 'clusters/home/projects.yaml'), 'utf8');
  writeFileSync(join(seed, 'clusters/home/projects.yaml'), projects.replace('  sourceRepos:\n', `  sourceRepos:\n    - ${charts.url}\n`));
  mkdirSync(join(seed, 'apps/demo/gizmo'), { recursive: true });
  writeFileSync(join(seed, 'apps/demo/gizmo/application.yaml'), application('1.0.0'));
  writeFileSync(join(seed, 'apps/demo/gizmo/values.yaml'), 'mode: safe\n');
  // The lock as its owner records it, on their own machine: npm run charts:pull -- --update-lock.
  writeFileSync(join(seed, 'charts.lock.json'), '{\n  "charts": []\n}\n');
  const { pullCharts } = await import('../charts-pull.ts');
  expect(await pullCharts({ root: seed, env, updateLock: true, out: () => undefined })).toBe(0);
  const origin = join(scratch, `${name}.git`);
  await git(scratch, 'init', '-q', '--bare', '-b', 'main', origin);
  await git(seed, 'init', '-q', '-b', 'main');
  await git(seed, 'add', '-A');
  await git(seed, 'commit', '-q', '-m', 'the lab');
  await git(seed, 'push', '-q', origin, 'main');
  return seed;
}

/** The update bot's branch and pull request #1: the version bumped where the Application pins it, and GitHub's merge ref. */
async function botPullRequest(seed: string, origin: string, version: string): Promise<string> {
  const branch = `renovate/gizmo-${version}`;
  await git(seed, 'checkout', '-q', '-b', branch);
  writeFileSync(join(seed, 'apps/demo/gizmo/application.yaml'), application(version));
  await git(seed, 'commit', '-q', '-am', `fix(deps): update helm release gizmo to v${version}`);
  await git(seed, 'push', '-q', origin, `${branch}:refs/pull/1/head`);
  await git(seed, 'checkout', '-q', 'main');
  await git(seed, 'merge', '-q', '--no-ff', '-m', `Merge ${branch} into main`, branch);
  await git(seed, 'push', '-q', origin, 'HEAD:refs/pull/1/merge');
  const merge = await git(seed, 'rev-parse', 'HEAD');
  await git(seed, 'reset', '-q', '--hard', 'HEAD~1');
  return merge;
}

function state(origin: string, artifacts: string, event: 'pull_request' | 'push', sha: string, comments: RunState['comments'] = []): RunState {
  mkdirSync(artifacts, { recursive: true });
  return {
    origin,
    artifacts,
    comments,
    github: {
      event_name: event,
      ref: event === 'push' ? 'refs/heads/main' : 'refs/pull/1/merge',
      sha,
      repository: REPOSITORY,
      event: event === 'pull_request' ? { pull_request: { number: 1 } } : {},
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

async function run(workflow: string, s: RunState): Promise<Record<string, JobResult>> {
  const jobEnv = (home: string) => ({ HOMELAB_CHART_CACHE: join(home, 'charts') });
  return runWorkflow({ file: join(ROOT, '.github/workflows', workflow), state: s, env, github: GITHUB, replace: REPLACE, jobEnv });
}

/** The gate's GitHub annotations, without the positions a run's temporary paths could change. */
const annotations = (log: string) =>
  log
    .split('\n')
    .filter((l) => l.startsWith('::error'))
    .sort();

/** Each job's result, and the step that failed where one did: what a reader of a red run needs first. */
const verdict = (jobs: Record<string, JobResult>) =>
  Object.fromEntries(
    Object.entries(jobs).map(([id, j]) => [id, j.result === 'failure' ? `failure: ${j.steps.find((s) => s.outcome === 'failure')?.name}` : j.result]),
  );

/** Every step's outcome, time and log: the message of an expectation on a run, so a red test shows the run. */
const transcript = (jobs: Record<string, JobResult>) =>
  Object.entries(jobs)
    .flatMap(([id, j]) => j.steps.map((s) => `--- ${id} / ${s.name}: ${s.outcome} (${s.ms} ms)${s.replaced ? ` [replaced: ${s.replaced}]` : ''}\n${s.log}`))
    .join('\n');

describe("the repository's workflows on an update bot's chart patch bump", () => {
  it('pass on the bump, comment on it, and record the published digest on main after the merge', async () => {
    const seed = await originWithLab('green');
    const origin = join(scratch, 'green.git');
    // main before the bump: what the gate says of the scratch lab, which is not a whole lab (no Argo CD install,
    // CNI, Falco, monitoring or media stack to judge), so the bump is held to adding nothing to it.
    const before = await run('ci.yaml', state(origin, join(scratch, 'green-main-artifacts'), 'push', await git(seed, 'rev-parse', 'HEAD')));
    const merge = await botPullRequest(seed, origin, '1.0.1');
    const pr = state(origin, join(scratch, 'green-pr-artifacts'), 'pull_request', merge);
    const gate = await run('ci.yaml', pr);
    const diff = await run('diff.yaml', pr);
    const GATE_STEP = 'run npm run --silent validate -- --require-rendered --summary --output github --output junit=reports/validate-junit.xml';
    expect({ ...verdict(gate), ...verdict(diff) }, transcript({ ...gate, ...diff })).toEqual({
      gate: `failure: ${GATE_STEP}`,
      diff: 'success',
      comment: 'success',
    });
    const findings = (jobs: Record<string, JobResult>) => annotations(jobs.gate!.steps.find((s) => s.name === GATE_STEP)!.log);
    expect(findings(gate)).toEqual(findings(before));
    expect(findings(gate).some((a) => a.includes('apps/demo/gizmo'))).toBe(findings(before).some((a) => a.includes('apps/demo/gizmo')));
    // The JUnit report is uploaded after the failure (if: always()).
    expect(gate.gate!.steps.map((s) => s.outcome).slice(-2)).toEqual(['failure', 'success']);
    expect(readFileSync(join(scratch, 'green-pr-artifacts', 'junit-reports', 'validate-junit.xml'), 'utf8')).toContain('<testsuites');
    expect(gate.gate!.steps.find((s) => s.name === 'run npm run charts:pull -- --verify-index')!.log).toMatch(
      /verified gizmo 1\.0\.1 from https:\/\/127\.0\.0\.1:\d+ sha256:[0-9a-f]{64}/,
    );
    const replaced = [...gate.gate!.steps, ...diff.diff!.steps].filter((s) => s.replaced).map((s) => s.name);
    expect(replaced).toEqual([
      'run sudo apt-get update && sudo apt-get install -y --no-install-recommends prometheus prometheus-alertmanager sqlite3 zstd restic postgresql postgresql-client etcd-server etcd-client openssl',
      'run npm ci',
      'run npm test',
      'install',
    ]);
    expect(pr.comments).toHaveLength(1);
    const comment = pr.comments[0]!.body;
    expect(comment).toMatch(/^<!-- homelab-gitops:rendered-diff -->\n## Rendered diff/);
    expect(comment).toMatch(/gizmo.*1\.0\.0.*1\.0\.1/);
    expect(comment).not.toMatch(/not judged/i);

    // The merge: main moves to the merge commit, and the push runs the lock's recorder.
    await git(seed, 'push', '-q', origin, `${merge}:refs/heads/main`);
    const push = state(origin, join(scratch, 'green-push-artifacts'), 'push', merge);
    const record = await run('record-lock.yaml', push);
    expect(verdict(record), transcript(record)).toEqual({ record: 'success' });
    const lock = JSON.parse(await git(scratch, '--git-dir', origin, 'show', 'main:charts.lock.json')) as {
      charts: { chart: string; version: string; digest: string }[];
    };
    const index = parse(readFileSync(join(charts.dir, 'index.yaml'), 'utf8')) as { entries: { gizmo: { version: string; digest: string }[] } };
    const published = index.entries.gizmo.find((e) => e.version === '1.0.1')!.digest;
    expect(lock.charts.filter((c) => c.chart === 'gizmo')).toEqual([{ repoURL: charts.url, chart: 'gizmo', version: '1.0.1', digest: `sha256:${published}` }]);
    expect(await git(scratch, '--git-dir', origin, 'log', '-1', '--format=%an', 'main')).toBe('github-actions[bot]');
  });

  it('fail on a bump whose archive is not the bytes its repository publishes, and say so in the comment', async () => {
    const seed = await originWithLab('red');
    const origin = join(scratch, 'red.git');
    const merge = await botPullRequest(seed, origin, '1.0.2');
    const pr = state(origin, join(scratch, 'red-pr-artifacts'), 'pull_request', merge);
    const gate = await run('ci.yaml', pr);
    const diff = await run('diff.yaml', pr);
    expect({ ...verdict(gate), ...verdict(diff) }, transcript({ ...gate, ...diff })).toEqual({
      gate: 'failure: run npm run charts:pull -- --verify-index',
      diff: "failure: pull the head's charts",
      comment: 'success',
    });
    expect(gate.gate!.steps.find((s) => s.outcome === 'failure')!.log).toMatch(/REFUSED\s+gizmo 1\.0\.2.*not the ones published/);
    expect(pr.comments).toHaveLength(1);
    expect(pr.comments[0]!.body).toContain('**No diff: the step "pull the head\'s charts" failed**');
  });
});
