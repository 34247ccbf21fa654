/**
 * A GitHub Actions runner for this repository's workflows, run on this
 * machine: jobs in the order their `needs` give, each job's and step's `if:`
 * read by GitHub's expression library with the status GitHub gives it
 * (`success()` by default, `always()` and `failure()` as written), `run:`
 * steps in bash as the hosted runner runs them (`bash -e {0}`, or
 * `bash --noprofile --norc -eo pipefail {0}` for `shell: bash`), with the
 * `GITHUB_*` and `RUNNER_*` variables, `GITHUB_OUTPUT`, `GITHUB_ENV` and
 * `GITHUB_PATH`, and the actions faked in `actions.ts`.
 *
 * What cannot run here is replaced, and only as the caller lists it by the
 * step's exact text with a reason (installing packages on the runner image,
 * the test suite this runner is part of); every replacement is reported, and a
 * step that is neither runnable nor listed fails its job.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isScalar, parseDocument } from 'yaml';
import { exec } from '../exec.ts';
import { actionFor } from './actions.ts';
import type { RunState } from './run-state.ts';
import { condition, interpolate, type Status } from './expressions.ts';

interface StepSpec {
  id?: string;
  name?: string;
  if?: string | boolean;
  uses?: string;
  /** The comment beside `uses:` (a digest pin's `# vX.Y.Z`). */
  pinned?: string;
  run?: string;
  shell?: string;
  with?: Record<string, string | number | boolean>;
  env?: Record<string, string>;
  'working-directory'?: string;
}

interface JobSpec {
  needs?: string | string[];
  if?: string | boolean;
  env?: Record<string, string>;
  'timeout-minutes'?: number;
  steps: StepSpec[];
}

export interface Replacement {
  /** The shell run instead; undefined runs nothing and the step succeeds. */
  run?: string;
  why: string;
}

export interface RunOptions {
  /** The workflow file. */
  file: string;
  state: RunState;
  /** The runner machine's environment (tools, caches); GITHUB_* and RUNNER_* are added. */
  env: NodeJS.ProcessEnv;
  /** `github` context beyond what `state.github` holds. */
  github: { base_ref?: string; head_ref?: string; run_id?: string; server_url?: string; token?: string; event?: Record<string, unknown> };
  replace?: Record<string, Replacement>;
  /** More environment for each job, from its fresh home (a cache that must start empty on each machine). */
  jobEnv?: (home: string) => NodeJS.ProcessEnv;
}

export type Outcome = 'success' | 'failure' | 'skipped';

export interface StepResult {
  name: string;
  outcome: Outcome;
  /** Set when the step was replaced: why. */
  replaced?: string;
  log: string;
  /** What the step wrote to GITHUB_STEP_SUMMARY, where it wrote anything. */
  summary?: string;
  /** Wall time, for a reader of a slow run. */
  ms: number;
}

export interface JobResult {
  result: Outcome;
  steps: StepResult[];
}

const stepName = (s: StepSpec) => s.name ?? (s.uses ? `uses ${s.uses}` : `run ${(s.run ?? '').trim().split('\n')[0]}`);
const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The jobs in an order where each comes after the jobs it needs. */
function jobOrder(jobs: Record<string, JobSpec>): string[] {
  const order: string[] = [];
  const visit = (id: string, path: string[]) => {
    if (order.includes(id)) return;
    if (path.includes(id)) throw new Error(`the jobs' needs make a circle: ${[...path, id].join(' -> ')}`);
    for (const need of list(jobs[id]?.needs)) visit(need, [...path, id]);
    order.push(id);
  };
  for (const id of Object.keys(jobs)) visit(id, []);
  return order;
}

/** Lines of `name=value` and `name<<DELIM ... DELIM`, as GITHUB_OUTPUT and GITHUB_ENV hold them. */
function keyValues(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name = '', delimiter = ''] = heredoc;
      const end = lines.indexOf(delimiter, i + 1);
      out[name] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) out[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
  }
  return out;
}

interface JobContext {
  id: string;
  spec: JobSpec;
  workspace: string;
  temp: string;
  env: NodeJS.ProcessEnv;
  paths: string[];
  contexts: Record<string, unknown>;
  steps: Record<string, { outcome: Outcome; conclusion: Outcome; outputs: Record<string, string> }>;
  /** Steps started so far: names each step's files. */
  started: number;
}

async function runShell(job: JobContext, step: StepSpec, script: string, env: NodeJS.ProcessEnv): Promise<{ ok: boolean; log: string }> {
  const file = join(job.temp, `step-${job.started}.sh`);
  writeFileSync(file, script);
  const shell = step.shell === 'bash' ? ['--noprofile', '--norc', '-eo', 'pipefail', file] : ['-e', file];
  const cwd = step['working-directory'] ? join(job.workspace, step['working-directory']) : job.workspace;
  const r = await exec('bash', shell, { cwd, env });
  return { ok: r.code === 0, log: `${r.stdout}${r.stderr}` };
}

async function runStep(o: RunOptions, job: JobContext, step: StepSpec, status: Status): Promise<StepResult> {
  const name = stepName(step);
  const start = performance.now();
  job.started++;
  const files = {
    GITHUB_OUTPUT: join(job.temp, `output-${job.started}`),
    GITHUB_ENV: join(job.temp, 'env'),
    GITHUB_PATH: join(job.temp, 'path'),
    GITHUB_STEP_SUMMARY: join(job.temp, `summary-${job.started}`),
  };
  for (const f of Object.values(files)) writeFileSync(f, '', { flag: 'a' });
  writeFileSync(files.GITHUB_OUTPUT, '');
  const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, interpolate(String(v), job.contexts, status)]));
  const env: NodeJS.ProcessEnv = { ...job.env, ...keyValues(readFileSync(files.GITHUB_ENV, 'utf8')), ...stepEnv, ...files };
  env.PATH = [...job.paths, job.env.PATH].join(delimiter);
  let ok = true;
  let log = '';
  let replaced: string | undefined;
  try {
    if (step.uses) {
      const action = actionFor(step.uses, step.pinned);
      const inputs = Object.fromEntries(Object.entries(step.with ?? {}).map(([k, v]) => [k, interpolate(String(v), job.contexts, status)]));
      await action(o.state, { workspace: job.workspace, env, inputs, log: (l) => void (log += `${l}\n`), addPath: (d) => job.paths.unshift(d) });
    } else {
      const text = (step.run ?? '').trim();
      const replacement = o.replace?.[text];
      replaced = replacement?.why;
      const script = replacement ? replacement.run : interpolate(step.run ?? '', job.contexts, status);
      if (script !== undefined) ({ ok, log } = await runShell(job, step, script, env));
    }
  } catch (err) {
    ok = false;
    log += `${(err as Error).message}\n`;
  }
  for (const line of readFileSync(files.GITHUB_PATH, 'utf8').split('\n').filter(Boolean)) if (!job.paths.includes(line)) job.paths.unshift(line);
  writeFileSync(files.GITHUB_PATH, '');
  const outcome: Outcome = ok ? 'success' : 'failure';
  if (step.id) job.steps[step.id] = { outcome, conclusion: outcome, outputs: keyValues(readFileSync(files.GITHUB_OUTPUT, 'utf8')) };
  const summary = readFileSync(files.GITHUB_STEP_SUMMARY, 'utf8');
  return { name, outcome, log, ms: Math.round(performance.now() - start), ...(replaced ? { replaced } : {}), ...(summary ? { summary } : {}) };
}

/** Git's URL rewriting, through the environment: the repository's GitHub addresses lead to the run's origin. */
function gitRedirect(o: RunOptions): NodeJS.ProcessEnv {
  const names = [`https://github.com/${o.state.github.repository}`, `https://x-access-token:${o.github.token ?? ''}@github.com/${o.state.github.repository}`];
  const pairs = names.flatMap((n) => [`${n}.git`, n]).map((from) => [`url.file://${o.state.origin}.insteadOf`, from]);
  return Object.fromEntries([
    ['GIT_CONFIG_COUNT', String(pairs.length)],
    ...pairs.flatMap(([k, v], i) => [
      [`GIT_CONFIG_KEY_${i}`, k],
      [`GIT_CONFIG_VALUE_${i}`, v],
    ]),
  ]);
}

/** One job of the workflow: its id and spec, with the workflow's env and the outputs of the jobs it needs. */
async function runJob(
  o: RunOptions,
  { id, spec }: { id: string; spec: JobSpec },
  { workflowEnv, needs }: { workflowEnv: Record<string, string>; needs: Record<string, unknown> },
): Promise<JobResult> {
  const base = mkdtempSync(join(o.state.artifacts, '..', `job-${id}-`));
  const [workspace, temp] = [join(base, 'work'), join(base, 'temp')];
  for (const dir of [workspace, temp, join(base, 'home')]) mkdirSync(dir);
  const github = { ...o.github, ...o.state.github, workspace, job: id, event: { ...o.github.event, ...o.state.github.event } };
  const job: JobContext = { id, spec, workspace, temp, paths: [], steps: {}, env: {}, contexts: {}, started: 0 };
  const jobEnv = { ...workflowEnv, ...(spec.env ?? {}) };
  job.contexts = { github, needs, runner: { os: 'Linux', temp, workspace }, job: { status: 'success' }, steps: job.steps, env: jobEnv };
  job.env = {
    ...o.env,
    ...jobEnv,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_EVENT_NAME: o.state.github.event_name,
    GITHUB_REPOSITORY: o.state.github.repository,
    GITHUB_SHA: o.state.github.sha,
    GITHUB_REF: o.state.github.ref,
    GITHUB_BASE_REF: o.github.base_ref ?? '',
    GITHUB_HEAD_REF: o.github.head_ref ?? '',
    GITHUB_RUN_ID: o.github.run_id ?? '',
    RUNNER_TEMP: temp,
    RUNNER_OS: 'Linux',
    // Each job is a fresh machine: a home of its own (and so fresh caches below it).
    HOME: join(base, 'home'),
    // github.com's copy of the repository is the run's origin, whichever way a step names it (a push with the token).
    ...gitRedirect(o),
    ...o.jobEnv?.(join(base, 'home')),
  };
  const steps: StepResult[] = [];
  let status: Status = 'success';
  for (const step of spec.steps) {
    (job.contexts.job as { status: Status }).status = status;
    if (!condition(step.if, job.contexts, status)) {
      steps.push({ name: stepName(step), outcome: 'skipped', log: '', ms: 0 });
      if (step.id) job.steps[step.id] = { outcome: 'skipped', conclusion: 'skipped', outputs: {} };
      continue;
    }
    const result = await runStep(o, job, step, status);
    steps.push(result);
    if (result.outcome === 'failure') status = 'failure';
  }
  return { result: status === 'success' ? 'success' : 'failure', steps };
}

/** The workflow, each step with the comment beside its `uses:`, where Renovate keeps a digest pin's version. */
function readWorkflow(file: string): { env?: Record<string, string>; jobs: Record<string, JobSpec> } {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  const workflow = doc.toJS() as { env?: Record<string, string>; jobs: Record<string, JobSpec> };
  for (const [id, job] of Object.entries(workflow.jobs))
    job.steps.forEach((step, i) => {
      const uses = doc.getIn(['jobs', id, 'steps', i, 'uses'], true);
      if (isScalar(uses) && uses.comment) step.pinned = uses.comment;
    });
  return workflow;
}

/** Runs a workflow's jobs for the event in `state.github`; resolves with each job's result and steps. */
export async function runWorkflow(o: RunOptions): Promise<Record<string, JobResult>> {
  const workflow = readWorkflow(o.file);
  const results: Record<string, JobResult> = {};
  for (const id of jobOrder(workflow.jobs)) {
    const spec = workflow.jobs[id]!;
    const resultOf = (n: string): Outcome => results[n]?.result ?? 'skipped';
    const needed = list(spec.needs).map(resultOf);
    const status: Status = needed.includes('failure') ? 'failure' : needed.includes('skipped') ? 'skipped' : 'success';
    const needs = Object.fromEntries(list(spec.needs).map((n) => [n, { result: resultOf(n), outputs: {} }]));
    if (!condition(spec.if, { github: { ...o.github, ...o.state.github }, needs }, status)) {
      results[id] = { result: 'skipped', steps: [] };
      continue;
    }
    results[id] = await runJob(o, { id, spec }, { workflowEnv: workflow.env ?? {}, needs });
  }
  return results;
}
