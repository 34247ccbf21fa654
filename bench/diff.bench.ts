/**
 * Benchmark of npm run diff (not a test): npm run bench:diff
 *
 * A diff between HEAD~1 and the working tree of the real repository, with
 * every chart cached (npm run charts:pull), against rendering one ref alone,
 * in the same run, warm (the render cache filled by a first pass). Target:
 * at most 2.2x a single render.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { $ } from 'zx';
import { REPO_ROOT } from '../policy-tests/model/repo.ts';
import { compare, risks } from '../scripts/diff/changes.ts';
import { snapshot } from '../scripts/diff/snapshot.ts';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const parent = mkdtempSync(join(tmpdir(), 'bench-diff-'));
const base = join(parent, 'base');
try {
  await $({ cwd: REPO_ROOT, quiet: true })`git worktree add --detach ${base} HEAD~1`;
  let ready = true;
  try {
    await snapshot(REPO_ROOT);
    await snapshot(base);
  } catch (err) {
    ready = false;
    console.log(`diff benchmark: skipped, a source does not render here (${(err as Error).message.slice(0, 200)}); run npm run charts:pull`);
  }
  const one: number[] = [];
  const two: number[] = [];
  for (let i = 0; ready && i < 5; i++) {
    let t = performance.now();
    await snapshot(REPO_ROOT);
    one.push(performance.now() - t);
    t = performance.now();
    const [a, b] = [await snapshot(base), await snapshot(REPO_ROOT)];
    risks(compare(a, b), a, b);
    two.push(performance.now() - t);
  }
  const [s, d] = [median(one), median(two)];
  if (ready) console.log(`render one ref:            ${s.toFixed(0).padStart(6)} ms (median of 5, warm)`);
  if (ready) console.log(`diff HEAD~1 and the tree:  ${d.toFixed(0).padStart(6)} ms`);
  if (ready) console.log(`diff / one render:         ${(d / s).toFixed(2)}x  (target <= 2.20x)`);
} finally {
  await $({ cwd: REPO_ROOT, quiet: true, nothrow: true })`git worktree remove --force ${base}`;
  rmSync(parent, { recursive: true, force: true });
}
