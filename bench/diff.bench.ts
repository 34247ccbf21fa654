/**
 * Benchmark of npm run diff (not a test): npm run bench:diff
 *
 * The diff between HEAD~1 and HEAD of the repository (both rendered, from git
 * worktrees, and compared), against rendering one ref alone, each in a fresh
 * process as a person or CI runs them, with every chart cached (npm run
 * charts:pull) and the render cache filled by a first pass. Target: at most
 * 2.2x a single render. HOMELAB_REPO_ROOT points it at another clone (one
 * whose Argo CD base and charts can all be rendered here).
 */
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { $ } from 'zx';
import { commandArgs } from '../scripts/lib/command.ts';
import { frontDoor } from '../scripts/lib/front-door.ts';

await commandArgs({
  name: 'bench:diff',
  usage: 'bench:diff',
  help: `Benchmarks npm run diff between HEAD~1 and HEAD against rendering one ref alone, each in a fresh process,
with every chart cached (npm run charts:pull first) and the render cache warm. Target: at most 2.2x one render.
Environment: HOMELAB_REPO_ROOT (another clone to measure), HOMELAB_CACHE_DIR (the caches).`,
  options: {},
  positionals: { min: 0, max: 0 },
});

// Loaded past the command's contract: --help and a wrong argument answer without the gate.
const { REPO_ROOT } = await frontDoor();
const ROOT = process.env.HOMELAB_REPO_ROOT ?? REPO_ROOT;
const RUNS = 7;
const renderOne = fileURLToPath(new URL('./render-one.ts', import.meta.url));
const diffCommand = fileURLToPath(new URL('../scripts/diff/command.ts', import.meta.url));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// tsx from this repository's node_modules: the clone measured may have none, and an older commit may hold
// TypeScript that Node cannot strip by itself (parameter properties, before tsconfig.json's erasableSyntaxOnly).
const tsx = import.meta.resolve('tsx');
const node = (args: string[]) =>
  $({ cwd: ROOT, quiet: true, nothrow: true, env: { ...process.env, HOMELAB_REPO_ROOT: ROOT } })`${process.execPath} --import ${tsx} ${args}`;

async function timed(args: string[], ok: (code: number | null) => boolean): Promise<number> {
  const t = performance.now();
  const out = await node(args);
  const ms = performance.now() - t;
  if (!ok(out.exitCode))
    throw new Error(
      (out.stderr || out.stdout)
        .trim()
        .split('\n')
        .find((l) => !/^npm warn/.test(l)) ?? `exit ${out.exitCode}`,
    );
  return ms;
}

const single = () => timed([renderOne, ROOT], (c) => c === 0);
// 0: nothing to review, 3: a risk to review, 4: an update the cluster refuses; each is a finished diff (1 and 2 are not).
const diff = () => timed([diffCommand, 'HEAD~1', 'HEAD', '-o', 'json', '--output-file', '/dev/null'], (c) => c === 0 || c === 3 || c === 4);

try {
  await single();
  await diff();
} catch (err) {
  console.log(
    `diff benchmark: skipped, it cannot run here: ${(err as Error).message.slice(0, 300)} (with no network, run npm run charts:pull where there is one, or point HOMELAB_REPO_ROOT at a clone that renders)`,
  );
  process.exit(0);
}
const one: number[] = [];
const two: number[] = [];
for (let i = 0; i < RUNS; i++) {
  one.push(await single());
  two.push(await diff());
}
const [s, d] = [median(one), median(two)];
console.log(`render one ref:          ${s.toFixed(0).padStart(6)} ms (median of ${RUNS}, fresh process, caches on disk warm)`);
console.log(`diff HEAD~1 and HEAD:    ${d.toFixed(0).padStart(6)} ms`);
console.log(`diff / one render:       ${(d / s).toFixed(2)}x  (target <= 2.20x)`);
