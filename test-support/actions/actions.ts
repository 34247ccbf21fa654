/**
 * The actions this repository's workflows use, as contract fakes of the
 * releases they pin: what each does to the job's workspace, its outputs and
 * the run's shared state, not how. Each fake names the release whose
 * action.yml and source it follows. A step fails when its action has no fake,
 * when the workflow pins another major (a major changes the contract: read its
 * action.yml, then change the fake), or when it gives an input the fake does
 * not carry out; an input the release does not declare is dropped with the
 * runner's own warning, as GitHub does.
 *
 * - actions/checkout v7.0.1: a fetch from the run's origin, with fetch-depth
 *   and the ref GitHub gives the event (a pull request's merge commit, a
 *   push's branch); no credentials are kept (`persist-credentials: false` is
 *   the only value the fake takes);
 * - actions/setup-node v7.0.0: `node-version-file` held to the Node on this
 *   machine, put first on PATH; `cache: npm`, or a package.json that names
 *   npm as its package manager (unless `package-manager-cache: false`),
 *   needs a lock file at the workspace's root, and a fresh machine's cache
 *   is a miss;
 * - actions/upload-artifact v7.0.0 and download-artifact v8.0.1: artifacts.ts;
 * - actions/cache/restore and actions/cache/save v5.0.5: cache.ts;
 * - actions/github-script v8.0.0: the script as an async function of `github`
 *   (Octokit's `rest.issues` comment calls and `paginate`), `context`, `core`
 *   and `require`, in a process of its own in the workspace
 *   (github-script-host.mjs), over the pull request's comments kept by the run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { exec } from '../exec.ts';
import { downloadArtifact, uploadArtifact } from './artifacts.ts';
import { restoreCache, saveCache } from './cache.ts';
import type { Action, Comment, StepIo } from './run-state.ts';

async function git(io: StepIo, ...args: string[]): Promise<void> {
  const r = await exec('git', args, { cwd: io.workspace, env: io.env });
  if (r.code !== 0) throw new Error(`git ${args[0]}: ${r.stderr.trim()}`);
}

const checkout: Action = async (run, io) => {
  const pr = run.github.event.pull_request;
  const ref = pr ? `refs/pull/${pr.number}/merge` : run.github.ref;
  const local = pr ? `refs/remotes/pull/${pr.number}/merge` : ref.replace('refs/heads/', 'refs/remotes/origin/');
  // Its default keeps the token for later steps (v6 on: in a file under RUNNER_TEMP that .git/config includes).
  if (io.inputs['persist-credentials'] !== 'false') throw new Error('checkout: the fake keeps no credentials; it takes persist-credentials: false only');
  const deep = io.inputs['fetch-depth'] === '0';
  await git(io, 'init', '-q');
  await git(io, 'remote', 'add', 'origin', `file://${run.origin}`);
  const refspecs = [`+${ref}:${local}`, ...(deep ? ['+refs/heads/*:refs/remotes/origin/*', '+refs/tags/*:refs/tags/*'] : [])];
  await git(io, 'fetch', '-q', '--no-tags', ...(deep ? [] : ['--depth=1']), 'origin', ...refspecs);
  if (pr) await git(io, 'checkout', '-q', '--detach', local);
  else await git(io, 'checkout', '-q', '-B', ref.replace('refs/heads/', ''), local);
};

/**
 * Whether package.json names npm as its package manager, as setup-node v7 reads it (getNameFromPackageManagerField):
 * any devEngines.packageManager entry named npm, else a packageManager of npm; a file it cannot read names none.
 */
function namesNpm(workspace: string): boolean {
  const npm = /^(\^)?npm(@.*)?$/;
  try {
    const pkg = JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8')) as { packageManager?: unknown; devEngines?: { packageManager?: unknown } };
    const dev = [pkg.devEngines?.packageManager ?? []].flat() as { name?: unknown }[];
    return dev.some((d) => typeof d?.name === 'string' && npm.test(d.name)) || (typeof pkg.packageManager === 'string' && npm.test(pkg.packageManager));
  } catch {
    return false;
  }
}

const setupNode: Action = async (_run, io) => {
  const file = io.inputs['node-version-file'];
  const wanted = file ? readFileSync(join(io.workspace, file), 'utf8').trim().replace(/^v/, '') : io.inputs['node-version'];
  const major = process.versions.node.split('.')[0];
  if (!wanted || wanted.split('.')[0] !== major) throw new Error(`setup-node: the workflow wants Node ${wanted}; this machine has ${process.versions.node}`);
  io.addPath(dirname(process.execPath));
  const cache = io.inputs.cache || (io.inputs['package-manager-cache'] !== 'false' && namesNpm(io.workspace) ? 'npm' : '');
  if (!cache) return;
  if (cache !== 'npm') throw new Error(`Caching for '${cache}' is not modelled by the fake`);
  const lockFiles = ['package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock'];
  if (!lockFiles.some((f) => existsSync(join(io.workspace, f))))
    throw new Error(`Dependencies lock file is not found in ${io.workspace}. Supported file patterns: ${lockFiles.toString()}`);
  io.log('npm cache is not found');
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

/** A fake, the release it follows, and that release's inputs (action.yml) with their defaults. */
interface Fake {
  follows: string;
  run: Action;
  inputs: Record<string, string>;
  /** The inputs whose effect the fake carries out; any other, given other than its default, fails the step. */
  carries: string[];
}

const FAKES: Record<string, Fake> = {
  'actions/checkout': {
    follows: 'v7.0.1',
    run: checkout,
    carries: ['fetch-depth', 'persist-credentials'],
    inputs: {
      ...names('repository ref token ssh-key ssh-known-hosts ssh-user path filter sparse-checkout github-server-url'),
      'ssh-strict': 'true',
      'persist-credentials': 'true',
      clean: 'true',
      'sparse-checkout-cone-mode': 'true',
      'fetch-depth': '1',
      'fetch-tags': 'false',
      'show-progress': 'true',
      lfs: 'false',
      submodules: 'false',
      'set-safe-directory': 'true',
      'allow-unsafe-pr-checkout': 'false',
    },
  },
  'actions/setup-node': {
    follows: 'v7.0.0',
    run: setupNode,
    carries: ['node-version', 'node-version-file', 'cache', 'package-manager-cache'],
    inputs: {
      ...names('node-version node-version-file architecture registry-url scope token cache cache-dependency-path mirror mirror-token'),
      'check-latest': 'false',
      'package-manager-cache': 'true',
    },
  },
  'actions/upload-artifact': {
    follows: 'v7.0.0',
    run: uploadArtifact,
    carries: ['name', 'path', 'if-no-files-found', 'retention-days', 'compression-level', 'overwrite', 'include-hidden-files'],
    inputs: {
      ...names('path retention-days'),
      name: 'artifact',
      'if-no-files-found': 'warn',
      'compression-level': '6',
      overwrite: 'false',
      'include-hidden-files': 'false',
      archive: 'true',
    },
  },
  'actions/download-artifact': {
    follows: 'v8.0.1',
    run: downloadArtifact,
    carries: ['name', 'path', 'pattern', 'merge-multiple', 'digest-mismatch'],
    inputs: {
      ...names('name artifact-ids path pattern github-token repository run-id'),
      'merge-multiple': 'false',
      'skip-decompress': 'false',
      'digest-mismatch': 'error',
    },
  },
  'actions/cache/restore': {
    follows: 'v5.0.5',
    run: restoreCache,
    carries: ['path', 'key', 'restore-keys', 'fail-on-cache-miss'],
    inputs: { ...names('path key restore-keys'), enableCrossOsArchive: 'false', 'fail-on-cache-miss': 'false', 'lookup-only': 'false' },
  },
  'actions/cache/save': {
    follows: 'v5.0.5',
    run: saveCache,
    carries: ['path', 'key'],
    inputs: { ...names('path key upload-chunk-size'), enableCrossOsArchive: 'false' },
  },
  'actions/github-script': {
    follows: 'v8.0.0',
    run: githubScript,
    carries: ['script'],
    inputs: {
      ...names('script github-token debug previews base-url'),
      'user-agent': 'actions/github-script',
      'result-encoding': 'json',
      retries: '0',
      'retry-exempt-status-codes': '400,401,403,404,422',
    },
  },
};

/** Inputs without a default (or with one read from a context, which the workflows here never restate). */
function names(list: string): Record<string, string> {
  return Object.fromEntries(list.split(' ').map((n) => [n, '']));
}

const majorOf = (version: string) => /^v(\d+)(?:\.|$)/.exec(version)?.[1];

/**
 * The fake of `uses:` (`owner/name@ref`), for the release it pins: a tag ref, or the `# vX.Y.Z` comment Renovate
 * keeps beside a digest (`pinned`). Throws where no fake follows that release.
 */
export function actionFor(uses: string, pinned: string | undefined): Action {
  const [name = '', ref = ''] = uses.split('@');
  const fake = FAKES[name];
  if (!fake) throw new Error(`${uses}: no fake of this action; the runner cannot run it`);
  const release = majorOf(ref) ? ref : pinned?.trim().split(/\s+/)[0];
  if (!release || !majorOf(release))
    throw new Error(`${uses}: which release is this? A digest pin says its version beside it (# vX.Y.Z), as Renovate writes it`);
  if (majorOf(release) !== majorOf(fake.follows))
    throw new Error(
      `${name} ${release}: the fake follows ${fake.follows}, and a major release changes the contract: read its action.yml and change the fake (test-support/actions/actions.ts)`,
    );
  return async (run, io) => {
    const unexpected = Object.keys(io.inputs).filter((k) => !(k in fake.inputs));
    if (unexpected.length > 0)
      io.log(`Warning: Unexpected input(s) '${unexpected.join("', '")}', valid inputs are ['${Object.keys(fake.inputs).join("', '")}']`);
    const inputs = Object.fromEntries(Object.entries(io.inputs).filter(([k]) => k in fake.inputs));
    for (const [k, v] of Object.entries(inputs))
      if (!fake.carries.includes(k) && v !== fake.inputs[k]) throw new Error(`${name} ${fake.follows}: the fake does not carry out '${k}: ${v}'`);
    await fake.run(run, { ...io, inputs });
  };
}
