/**
 * actions/github-script v8's host, as a process of its own in the job's workspace (as on the runner): the step's
 * script is the body of an async function of `require`, `github`, `context` and `core`. `github` is a contract fake
 * of the Octokit calls a comment job makes (rest.issues.listComments, createComment, updateComment; paginate), over
 * the pull request's comments, read from and written back to the JSON file named by GITHUB_SCRIPT_STATE, with the
 * workflow's token writing as github-actions[bot]; on a pull request from a fork that token is read-only, as GitHub
 * gives it, and a write is refused with Octokit's 403. `core.setFailed` fails the step (exit 1); `core.summary`
 * appends to the step's GITHUB_STEP_SUMMARY.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { compileFunction } from 'node:vm';

const statePath = process.env.GITHUB_SCRIPT_STATE ?? '';
/** @type {{ script: string; repository: string; event: { pull_request?: { number: number; head?: { repo?: { full_name: string } } } }; comments: { id: number; body: string; user: { login: string; type: string } }[] }} */
const state = JSON.parse(readFileSync(statePath, 'utf8'));
const [owner, repo] = state.repository.split('/');
let next = state.comments.reduce((max, c) => Math.max(max, c.id), 0) + 1;
/** @type {<T>(v: T) => T} */
const clone = (v) => JSON.parse(JSON.stringify(v));

const head = state.event.pull_request?.head?.repo?.full_name;
/** A pull request from a fork gets a read-only GITHUB_TOKEN, whatever the workflow's permissions ask. */
const readOnly = head !== undefined && head !== state.repository;
const refuseWrite = () => {
  if (readOnly) throw Object.assign(new Error('Resource not accessible by integration'), { status: 403, name: 'HttpError' });
};

const issues = {
  listComments: async () => ({ data: clone(state.comments) }),
  /** @param {{ body: string }} p */
  createComment: async ({ body }) => {
    refuseWrite();
    const comment = { id: next++, body, user: { login: 'github-actions[bot]', type: 'Bot' } };
    state.comments.push(comment);
    return { data: clone(comment) };
  },
  /** @param {{ comment_id: number; body: string }} p */
  updateComment: async ({ comment_id, body }) => {
    refuseWrite();
    const comment = state.comments.find((c) => c.id === comment_id);
    if (!comment) throw new Error(`Not Found: comment ${comment_id}`);
    comment.body = body;
    return { data: clone(comment) };
  },
};
const github = {
  rest: { issues },
  /** @type {(call: (p: unknown) => Promise<{ data: unknown[] }>, params: unknown) => Promise<unknown[]>} */
  paginate: async (call, params) => (await call(params)).data,
};
const context = { repo: { owner, repo }, issue: { owner, repo, number: state.event.pull_request?.number }, payload: state.event };
/** @type {string | undefined} */
let failed;
/** @type {(m: string) => void} */
const say = (m) => console.log(m);
/** @type {string[]} */
const summaryParts = [];
const summary = {
  /** @param {string} text */
  addRaw(text) {
    summaryParts.push(text);
    return summary;
  },
  async write() {
    appendFileSync(process.env.GITHUB_STEP_SUMMARY ?? '', summaryParts.splice(0).join(''));
    return summary;
  },
};
const core = {
  info: say,
  notice: (/** @type {string} */ m) => say(`Notice: ${m}`),
  warning: (/** @type {string} */ m) => say(`Warning: ${m}`),
  setFailed: (/** @type {string} */ m) => void (failed = m),
  summary,
};

const body = compileFunction(`return (async () => {\n${state.script}\n})();`, ['require', 'github', 'context', 'core']);
try {
  await body(createRequire(join(process.cwd(), 'index.js')), github, context, core);
} catch (err) {
  failed = err instanceof Error ? err.message : String(err);
}
writeFileSync(statePath, JSON.stringify(state));
if (failed) {
  console.error(`Error: ${failed}`);
  process.exitCode = 1;
}
