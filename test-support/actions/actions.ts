/**
 * The actions this repository's workflows use, as contract fakes of the
 * versions they pin: what each does to the job's workspace, its outputs and
 * the run's shared state, not how. An action not listed here fails the step
 * that uses it, so a workflow never passes on something the runner skipped.
 *
 * - actions/checkout v4: a fetch from the run's origin, with fetch-depth and
 *   the ref GitHub gives the event (a pull request's merge commit, a push's
 *   branch);
 * - actions/setup-node v4: `node-version-file` held to the Node on this
 *   machine, put first on PATH;
 * - actions/upload-artifact and download-artifact v4: one immutable artifact
 *   per name in the run, its files below the least common folder of the paths;
 *   a missing artifact fails the download, missing files only warn (the
 *   default `if-no-files-found: warn`);
 * - actions/github-script v7: the script as an async function of `github`
 *   (Octokit's `rest.issues` comment calls and `paginate`), `context`, `core`
 *   and `require`, in a process of its own in the workspace
 *   (github-script-host.mjs), over the pull request's comments kept by the run.
 */
import { cpSync, existsSync, globSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { exec } from '../exec.ts';

export interface Comment {
  id: number;
  body: string;
  user: { login: string; type: 'Bot' | 'User' };
}

/** What one run shares between its jobs and with the test: the origin, the artifacts, the pull request's comments. */
export interface RunState {
  /** The bare repository standing for github.com's copy. */
  origin: string;
  artifacts: string;
  comments: Comment[];
  github: { event_name: string; ref: string; sha: string; repository: string; event: { pull_request?: { number: number } } };
}

export interface StepIo {
  workspace: string;
  env: NodeJS.ProcessEnv;
  inputs: Record<string, string>;
  log: (line: string) => void;
  /** Puts a folder first on PATH for the steps after (GITHUB_PATH). */
  addPath: (dir: string) => void;
}

type Action = (run: RunState, io: StepIo) => Promise<void>;

async function git(io: StepIo, ...args: string[]): Promise<void> {
  const r = await exec('git', args, { cwd: io.workspace, env: io.env });
  if (r.code !== 0) throw new Error(`git ${args[0]}: ${r.stderr.trim()}`);
}

const checkout: Action = async (run, io) => {
  const pr = run.github.event.pull_request;
  const ref = pr ? `refs/pull/${pr.number}/merge` : run.github.ref;
  const local = pr ? `refs/remotes/pull/${pr.number}/merge` : ref.replace('refs/heads/', 'refs/remotes/origin/');
  const deep = io.inputs['fetch-depth'] === '0';
  await git(io, 'init', '-q');
  await git(io, 'remote', 'add', 'origin', `file://${run.origin}`);
  const refspecs = [`+${ref}:${local}`, ...(deep ? ['+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*'] : [])];
  await git(io, 'fetch', '-q', '--no-tags', ...(deep ? [] : ['--depth=1']), 'origin', ...refspecs);
  if (pr) await git(io, 'checkout', '-q', '--detach', local);
  else await git(io, 'checkout', '-q', '-B', ref.replace('refs/heads/', ''), local);
};

const setupNode: Action = async (_run, io) => {
  const file = io.inputs['node-version-file'];
  const wanted = file ? readFileSync(join(io.workspace, file), 'utf8').trim().replace(/^v/, '') : io.inputs['node-version'];
  const major = process.versions.node.split('.')[0];
  if (!wanted || wanted.split('.')[0] !== major) throw new Error(`setup-node: the workflow wants Node ${wanted}; this machine has ${process.versions.node}`);
  io.addPath(dirname(process.execPath));
};

/** The folder the files are kept below: a directory given is its own root; a glob's root is its part before the first wildcard. */
function artifactRoot(workspace: string, pattern: string): string {
  const literal = pattern.split('/').filter(Boolean);
  const cut = literal.findIndex((part) => /[*?[{]/.test(part));
  const root = join(workspace, ...(cut === -1 ? literal : literal.slice(0, cut)));
  return cut === -1 && existsSync(root) && !statSync(root).isDirectory() ? dirname(root) : root;
}

const uploadArtifact: Action = async (run, io) => {
  const name = io.inputs.name || 'artifact';
  const target = join(run.artifacts, name);
  if (existsSync(target)) throw new Error(`upload-artifact: an artifact named ${name} already exists in this run`);
  const patterns = (io.inputs.path ?? '')
    .split('\n')
    .map((p) => p.trim())
    .filter(Boolean);
  let files = 0;
  for (const pattern of patterns) {
    const root = artifactRoot(io.workspace, pattern);
    const matched =
      existsSync(root) && statSync(root).isDirectory() && !/[*?[{]/.test(pattern)
        ? [root]
        : globSync(pattern, { cwd: io.workspace }).map((m) => join(io.workspace, m));
    for (const file of matched) {
      if (!existsSync(file)) continue;
      cpSync(file, join(target, relative(root, file)), { recursive: true });
      files++;
    }
  }
  if (files === 0) {
    if ((io.inputs['if-no-files-found'] || 'warn') === 'error') throw new Error(`upload-artifact: no files found at ${patterns.join(', ')}`);
    io.log(`Warning: No files were found with the provided path: ${patterns.join(', ')}. No artifacts will be uploaded.`);
  }
};

const downloadArtifact: Action = async (run, io) => {
  const name = io.inputs.name ?? 'artifact';
  const source = join(run.artifacts, name);
  if (!existsSync(source)) throw new Error(`download-artifact: Unable to download artifact(s): Artifact not found for name: ${name}`);
  const to = join(io.workspace, io.inputs.path || '.');
  mkdirSync(to, { recursive: true });
  cpSync(source, to, { recursive: true });
};

/** The script runs in a process of its own in the workspace (github-script-host.mjs); the comments go there and back as JSON. */
const githubScript: Action = async (run, io) => {
  const statePath = join(io.workspace, '..', `github-script-${run.comments.length}-${process.hrtime.bigint()}.json`);
  writeFileSync(
    statePath,
    JSON.stringify({ script: io.inputs.script ?? '', repository: run.github.repository, event: run.github.event, comments: run.comments }),
  );
  const host = join(import.meta.dirname, 'github-script-host.mjs');
  const r = await exec(process.execPath, [host], { cwd: io.workspace, env: { ...io.env, GITHUB_SCRIPT_STATE: statePath } });
  io.log(`${r.stdout}${r.stderr}`);
  const { comments } = JSON.parse(readFileSync(statePath, 'utf8')) as { comments: Comment[] };
  run.comments.splice(0, run.comments.length, ...comments);
  if (r.code !== 0) throw new Error(`github-script: ${r.stderr.trim() || `exit ${r.code}`}`);
};

const ACTIONS: Record<string, Action> = {
  'actions/checkout': checkout,
  'actions/setup-node': setupNode,
  'actions/upload-artifact': uploadArtifact,
  'actions/download-artifact': downloadArtifact,
  'actions/github-script': githubScript,
};

/** The fake of `uses:` (`owner/name@ref`), or undefined where this runner has none. */
export function actionFor(uses: string): Action | undefined {
  return ACTIONS[uses.split('@')[0] ?? ''];
}
