/**
 * The runner's fakes of the actions hold the workflows to the releases they pin (test-support/actions/): a major
 * the fake does not follow, a digest without its version, an input the fake does not carry out, each fails its
 * step; an input the release does not declare is dropped with GitHub's warning. The artifact fakes keep v7/v8's
 * contract: hidden files left out, one artifact per name, every artifact downloaded when none is named, and a
 * download that fails when the bytes are not the ones uploaded.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isMap, isScalar, parseDocument, type YAMLSeq } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { actionFor } from '../../test-support/actions/actions.ts';
import type { Comment, RunState } from '../../test-support/actions/run-state.ts';
import { runWorkflow, type JobResult } from '../../test-support/actions/runner.ts';

const scratch = mkdtempSync(join(tmpdir(), 'workflow-fakes-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const PINS = {
  checkout: 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1',
  setupNode: 'actions/setup-node@820762786026740c76f36085b0efc47a31fe5020 # v7.0.0',
  upload: 'actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0',
  download: 'actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1',
  restore: 'actions/cache/restore@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5',
  save: 'actions/cache/save@27d5ce7f107fe9357f9df03efb73ab90386fccae # v5.0.5',
};

let runs = 0;
/** One job of `steps` (YAML, indented as a job's steps), run on a push; its state and result. */
async function job(steps: string, before?: (state: RunState) => void): Promise<{ state: RunState; result: JobResult }> {
  const dir = join(scratch, `run-${++runs}`);
  mkdirSync(join(dir, 'artifacts'), { recursive: true });
  const file = join(dir, 'workflow.yaml');
  writeFileSync(file, `on: push\njobs:\n  only:\n    runs-on: ubuntu-latest\n    steps:\n${steps}`);
  const state: RunState = {
    origin: join(dir, 'origin.git'),
    artifacts: join(dir, 'artifacts'),
    comments: [],
    github: { event_name: 'push', ref: 'refs/heads/main', sha: '0'.repeat(40), repository: 'lab/fakes', event: {} },
  };
  before?.(state);
  const results = await runWorkflow({ file, state, env: process.env, github: {} });
  return { state, result: results.only! };
}

const failure = (r: JobResult) => r.steps.find((s) => s.outcome === 'failure')?.log.trim();

describe('the fakes follow the releases the workflows pin', () => {
  it('every action the repository pins has a fake that follows its major', () => {
    const dir = join(REPO_ROOT, '.github/workflows');
    const pins = readdirSync(dir).flatMap((f) => {
      const doc = parseDocument(readFileSync(join(dir, f), 'utf8'));
      const jobs = doc.toJS().jobs as Record<string, { steps: { uses?: string }[] }>;
      return Object.entries(jobs).flatMap(([id, j]) =>
        j.steps.flatMap((s, i) => {
          const node = doc.getIn(['jobs', id, 'steps', i, 'uses'], true);
          return s.uses ? [{ where: `${f} ${id}`, uses: s.uses, pinned: isScalar(node) ? (node.comment ?? undefined) : undefined }] : [];
        }),
      );
    });
    expect(pins.length).toBeGreaterThan(5);
    for (const p of pins) expect(() => actionFor(p.uses, p.pinned), p.where).not.toThrow();
    const [first] = pins;
    expect(() => actionFor(first!.uses, ' v8.0.0')).toThrow(/the fake follows v7\.0\.1, and a major release changes the contract/);
  });

  it('fails a step pinning another major, or a digest without its version', async () => {
    const other = await job(`      - uses: actions/checkout@v4\n`);
    expect(failure(other.result)).toMatch(/^actions\/checkout v4: the fake follows v7\.0\.1/);
    const bare = await job(`      - uses: actions/setup-node@820762786026740c76f36085b0efc47a31fe5020\n`);
    expect(failure(bare.result)).toMatch(/which release is this\? A digest pin says its version beside it/);
  });

  it('drops an input the release does not declare, with the warning GitHub gives, and fails one it cannot carry out', async () => {
    const typo = await job(`      - uses: ${PINS.upload}\n        with:\n          paht: out/\n`);
    expect(typo.result.result).toBe('success');
    expect(typo.result.steps[0]!.log).toMatch(/Warning: Unexpected input\(s\) 'paht', valid inputs are \['path', 'retention-days', 'name'/);
    const archive = await job(`      - uses: ${PINS.upload}\n        with:\n          path: out/\n          archive: false\n`);
    expect(failure(archive.result)).toBe("actions/upload-artifact v7.0.0: the fake does not carry out 'archive: false'");
    const creds = await job(`      - uses: ${PINS.checkout}\n`);
    expect(failure(creds.result)).toMatch(/keeps no credentials; it takes persist-credentials: false only/);
  });

  it('wants a lock file for the npm cache, asked for or turned on by package.json', async () => {
    writeFileSync(join(scratch, '.node-version'), process.versions.node);
    const setup = (lock: boolean) =>
      job(
        `      - run: cp ${join(scratch, '.node-version')} .node-version${lock ? ' && touch package-lock.json' : ''}\n` +
          `      - uses: ${PINS.setupNode}\n        with:\n          node-version-file: .node-version\n          cache: npm\n`,
      );
    expect(failure((await setup(false)).result)).toMatch(
      /^Dependencies lock file is not found in .*\. Supported file patterns: package-lock\.json,npm-shrinkwrap\.json,yarn\.lock$/,
    );
    expect((await setup(true)).result.result).toBe('success');
    // No cache asked, but package.json names npm: v6 on turn the cache on, unless package-manager-cache is false.
    const named = (off: boolean) =>
      job(
        `      - run: |\n          cp ${join(scratch, '.node-version')} .node-version\n          echo '{"packageManager": "npm@11.6.2"}' > package.json\n` +
          `      - uses: ${PINS.setupNode}\n        with:\n          node-version-file: .node-version\n${off ? '          package-manager-cache: false\n' : ''}`,
      );
    expect(failure((await named(false)).result)).toMatch(/^Dependencies lock file is not found/);
    expect((await named(true)).result.result).toBe('success');
  });
});

describe('the artifact fakes', () => {
  const files = `      - run: mkdir -p out/.cache reports && echo a > out/a.txt && echo s > out/.secret && echo c > out/.cache/c && echo x > reports/x.xml\n`;

  it('leave hidden files out, keep one artifact per name, and download every artifact when none is named', async () => {
    const { state, result } = await job(
      files +
        `      - uses: ${PINS.upload}\n        with:\n          name: out\n          path: out/\n` +
        `      - uses: ${PINS.upload}\n        with:\n          name: reports\n          path: reports/*.xml\n` +
        `      - uses: ${PINS.download}\n        with:\n          path: all\n` +
        `      - run: find all -type f | sort\n` +
        `      - uses: ${PINS.upload}\n        with:\n          name: out\n          path: reports/\n`,
    );
    expect(result.steps.map((s) => s.outcome)).toEqual(['success', 'success', 'success', 'success', 'success', 'failure']);
    expect(result.steps[4]!.log.trim().split('\n')).toEqual(['all/out/a.txt', 'all/reports/x.xml']);
    expect(failure(result)).toMatch(/\(409\) Conflict: an artifact with this name already exists on the workflow run/);
    expect(Object.keys(state.digests ?? {}).sort()).toEqual(['out', 'reports']);
    const again = await job(files + `      - uses: ${PINS.upload}\n        with:\n          path: out/\n          include-hidden-files: true\n`);
    expect(readdirSync(join(again.state.artifacts, 'artifact'), { recursive: true, encoding: 'utf8' }).sort((a, b) => a.localeCompare(b))).toEqual([
      '.cache',
      '.cache/c',
      '.secret',
      'a.txt',
    ]);
  });

  it('fails a download whose bytes are not the ones uploaded, unless told to warn', async () => {
    const tamper = (s: RunState) => {
      mkdirSync(join(s.artifacts, 'report'));
      writeFileSync(join(s.artifacts, 'report', 'r.txt'), 'changed');
      s.digests = { report: 'the digest of what was uploaded' };
    };
    const strict = await job(`      - uses: ${PINS.download}\n        with:\n          name: report\n`, tamper);
    expect(failure(strict.result)).toMatch(/Digest validation failed for artifact\(s\): report\. Use 'digest-mismatch: warn' to continue on mismatch\.$/);
    const lenient = await job(`      - uses: ${PINS.download}\n        with:\n          name: report\n          digest-mismatch: warn\n`, tamper);
    expect(lenient.result.result).toBe('success');
    expect(lenient.result.steps[0]!.log).toMatch(/Artifact 'report' digest validation failed/);
    const missing = await job(`      - uses: ${PINS.download}\n        with:\n          name: nothing\n`);
    expect(failure(missing.result)).toMatch(/Artifact 'nothing' not found$/);
  });
});

describe('the cache fakes', () => {
  const cache = (action: 'restore' | 'save', key: string, more = '') =>
    `      - id: ${action}\n        uses: ${action === 'restore' ? PINS.restore : PINS.save}\n        with:\n          path: ~/kept/*.tgz\n          key: ${key}\n${more}`;
  const outputs = `      - run: echo "hit=\${{ steps.restore.outputs.cache-hit }} matched=\${{ steps.restore.outputs.cache-matched-key }}" && cat ~/kept/*.tgz\n`;
  const origin = join(scratch, 'cached.git');
  /** A job of `steps` on the shared repository, on main or on pull request #1's merge ref. */
  const on = (ref: 'main' | 'pr', steps: string) =>
    job(steps, (state) => {
      state.origin = origin;
      state.github.ref = ref === 'main' ? 'refs/heads/main' : 'refs/pull/1/merge';
    });
  const write = (name: string, text: string) => `      - run: mkdir -p ~/kept && echo ${text} > ~/kept/${name}.tgz\n`;

  it("restore the key, else the newest entry a restore key starts, from the run's own ref and then main's, and say which", async () => {
    expect((await on('main', write('a', 'one') + cache('save', 'charts-1'))).result.steps[1]!.log).toMatch(/^Cache saved with key: charts-1$/m);
    expect((await on('main', write('a', 'two') + cache('save', 'charts-2'))).result.steps[1]!.log).toMatch(/^Cache saved with key: charts-2$/m);
    expect((await on('pr', write('a', 'mine') + cache('save', 'charts-pr'))).result.steps[1]!.log).toMatch(/^Cache saved with key: charts-pr$/m);
    // The key itself, in another job's home: a hit, the files put back under that home.
    const hit = await on('main', cache('restore', 'charts-1') + outputs);
    expect(hit.result.steps[1]!.log.trim()).toBe('hit=true matched=charts-1\none');
    // A restore key: the newest entry it starts, not a hit; a pull request's entries are not main's to restore.
    const prefix = await on('main', cache('restore', 'charts-3', '          restore-keys: charts-\n') + outputs);
    expect(prefix.result.steps[1]!.log.trim()).toBe('hit=false matched=charts-2\ntwo');
    // The key itself is a prefix too, before any restore key.
    const own = await on('main', cache('restore', 'charts', '          restore-keys: nothing-\n') + outputs);
    expect(own.result.steps[1]!.log.trim()).toBe('hit=false matched=charts-2\ntwo');
    // A pull request finds its own entry first, and main's after it.
    expect((await on('pr', cache('restore', 'charts-3', '          restore-keys: charts-\n') + outputs)).result.steps[1]!.log.trim()).toBe(
      'hit=false matched=charts-pr\nmine',
    );
    expect((await on('pr', cache('restore', 'charts-1') + outputs)).result.steps[1]!.log.trim()).toBe('hit=true matched=charts-1\none');
    // Other paths are another version: nothing of theirs is restored.
    const other = await on('main', cache('restore', 'charts-1').replace('~/kept/*.tgz', '~/other/*.tgz'));
    expect(other.result.steps[0]!.log).toMatch(/^Cache not found for input keys: charts-1$/m);
  });

  it('leave cache-hit unset on a miss, fail it only when asked, and warn where a save cannot keep anything', async () => {
    const miss = await on('main', cache('restore', 'nothing') + `      - run: echo "hit=[\${{ steps.restore.outputs.cache-hit }}]"\n`);
    expect([miss.result.result, miss.result.steps[1]!.log.trim()]).toEqual(['success', 'hit=[]']);
    const strict = await on('main', cache('restore', 'nothing', '          fail-on-cache-miss: true\n'));
    expect(failure(strict.result)).toBe('Failed to restore cache entry. Exiting as fail-on-cache-miss is set. Input key: nothing');
    await on('main', write('b', 'first') + cache('save', 'taken'));
    const again = await on('main', write('b', 'second') + cache('save', 'taken'));
    expect([again.result.result, again.result.steps[1]!.log.trim()]).toEqual([
      'success',
      'Failed to save: Unable to reserve cache with key taken, another job may be creating this cache.\nWarning: Cache save failed.',
    ]);
    const empty = await on('main', cache('save', 'empty'));
    expect([empty.result.result, empty.result.steps[0]!.log.trim()]).toEqual([
      'success',
      '[warning]Path Validation Error: Path(s) specified in the action for caching do(es) not exist, hence no cache is being saved.\nWarning: Cache save failed.',
    ]);
  });
});

describe("the rendered diff's comment job", () => {
  /** diff.yaml with its comment job as written, after a diff job that only writes and uploads a comment. */
  function commentWorkflow(edit: (script: string) => string = (s) => s): string {
    const doc = parseDocument(readFileSync(join(REPO_ROOT, '.github/workflows/diff.yaml'), 'utf8'));
    const steps = doc.getIn(['jobs', 'diff', 'steps']) as YAMLSeq;
    const upload = steps.items.find((step) => isMap(step) && (step.getIn(['with', 'name']) as string) === 'rendered-diff');
    steps.items = [doc.createNode({ run: "mkdir -p rendered-diff && echo '## Rendered diff' > rendered-diff/comment.md" }), upload];
    const script = doc.getIn(['jobs', 'comment', 'steps', 1, 'with', 'script']) as string;
    doc.setIn(['jobs', 'comment', 'steps', 1, 'with', 'script'], edit(script));
    return doc.toString();
  }

  async function pullRequest(from: string, workflow = commentWorkflow(), comments: Comment[] = []) {
    const dir = join(scratch, `run-${++runs}`);
    mkdirSync(join(dir, 'artifacts'), { recursive: true });
    writeFileSync(join(dir, 'diff.yaml'), workflow);
    const state: RunState = {
      origin: join(dir, 'origin.git'),
      artifacts: join(dir, 'artifacts'),
      comments,
      github: {
        event_name: 'pull_request',
        ref: 'refs/pull/1/merge',
        sha: '0'.repeat(40),
        repository: 'lab/gitops',
        event: { pull_request: { number: 1, head: { repo: { full_name: from } } } },
      },
    };
    const jobs = await runWorkflow({ file: join(dir, 'diff.yaml'), state, env: process.env, github: {} });
    return { state, comment: jobs.comment! };
  }

  it('leaves the gate one run per pull request head as well: a push cancels the run before it, and no run of main is cancelled', () => {
    const ci = parseDocument(readFileSync(join(REPO_ROOT, '.github/workflows/ci.yaml'), 'utf8')).toJS() as {
      concurrency: { group: string; 'cancel-in-progress': string };
    };
    expect(ci.concurrency.group).toBe('ci-${{ github.event.pull_request.number || github.sha }}');
    expect(ci.concurrency['cancel-in-progress']).toBe("${{ github.event_name == 'pull_request' }}");
  });

  it("is the newest head's: a push cancels the run before it, and a cancelled diff writes no comment", () => {
    const workflow = parseDocument(readFileSync(join(REPO_ROOT, '.github/workflows/diff.yaml'), 'utf8')).toJS() as {
      concurrency: { group: string; 'cancel-in-progress': boolean };
      jobs: { comment: { if: string } };
    };
    expect(workflow.concurrency.group).toMatch(/\$\{\{ github\.event\.pull_request\.number \}\}/);
    expect(workflow.concurrency['cancel-in-progress']).toBe(true);
    expect(workflow.jobs.comment.if).toMatch(/needs\.diff\.result != 'cancelled'/);
  });

  it('comments on a pull request from the repository itself', async () => {
    const { state, comment } = await pullRequest('lab/gitops');
    expect(comment.result, comment.steps.map((s) => s.log).join('\n')).toBe('success');
    expect(state.comments.map((c) => c.body)).toEqual(['<!-- homelab-gitops:rendered-diff -->\n## Rendered diff\n']);
  });

  it("edits only the workflow's own comment, never another that starts with the marker", async () => {
    const marker = '<!-- homelab-gitops:rendered-diff -->';
    const forged: Comment = { id: 1, body: `${marker}\nNo risk flagged.`, user: { login: 'mallory', type: 'User' } };
    const own: Comment = { id: 2, body: `${marker}\nold report`, user: { login: 'github-actions[bot]', type: 'Bot' } };
    const beside = await pullRequest('lab/gitops', undefined, [{ ...forged }]);
    expect(beside.state.comments.map((c) => [c.id, c.body])).toEqual([
      [1, forged.body],
      [2, `${marker}\n## Rendered diff\n`],
    ]);
    const again = await pullRequest('lab/gitops', undefined, [{ ...forged }, { ...own }]);
    expect(again.state.comments.map((c) => [c.id, c.body])).toEqual([
      [1, forged.body],
      [2, `${marker}\n## Rendered diff\n`],
    ]);
  });

  it("puts the diff in the run's summary on a pull request from a fork, whose token cannot comment", async () => {
    const { state, comment } = await pullRequest('someone/gitops');
    expect(comment.result, comment.steps.map((s) => s.log).join('\n')).toBe('success');
    expect(state.comments).toEqual([]);
    expect(comment.steps[1]!.summary).toBe('<!-- homelab-gitops:rendered-diff -->\n## Rendered diff\n');
    expect(comment.steps[1]!.log).toMatch(/Notice: someone\/gitops is a fork: its token cannot comment/);
    const unaware = await pullRequest(
      'someone/gitops',
      commentWorkflow((s) => s.replace(/if \(head && [^\n]*/, 'if (false) {')),
    );
    expect(unaware.comment.result).toBe('failure');
    expect(unaware.comment.steps[1]!.log).toMatch(/Resource not accessible by integration/);
  });
});
