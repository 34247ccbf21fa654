/**
 * Benchmark of the gate (not a test): npm run bench:validate
 *
 * Generates a synthetic repository of 10,000 mixed resources (Deployments,
 * Services, ConfigMaps, ServiceMonitors, ExternalSecrets, Applications) and
 * measures, in the same run, parse-only against parse + schema + policy.
 * Then the start-up of the built CLI on the real repository, warm, against a
 * bare parse of the same files: a run that changes nothing (the kept verdict
 * answers it), and a run after an edit (one file's times set to now, its text
 * unchanged, and put back after); the render tier with every chart cached,
 * cold and warm (bench/render-section.ts); and `npm test` on the real
 * repository.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, statSync, utimesSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';
import { commandArgs } from '../scripts/lib/command.ts';
import { frontDoor } from '../scripts/lib/front-door.ts';

// The command contract before any work: --help prints this and exits 0; a wrong argument exits 2.
const { values: args } = await commandArgs({
  name: 'bench:validate',
  usage: 'bench:validate [--root DIR] [--charts DIR] [--no-npm-test]',
  help: `Benchmarks the gate on a synthetic repository of 10,000 resources (parse against parse, schema and policy),
the built CLI's start-up on this repository against a bare parse (unchanged, and after an edit: the times of
clusters/home/cluster-facts.yaml are set to now, then put back), the render tier cold and warm with every chart
cached, and npm test. Prints each figure with its ratio to the baseline of the same run.
  --root DIR      the repository whose charts the render section renders (default: this one)
  --charts DIR    the chart cache the render section reads (default: the usual one)
  --no-npm-test   skip the npm test timing
Environment: HOMELAB_CACHE_DIR, HOMELAB_CHART_CACHE (the caches), HOMELAB_GATE_STORES=off (cold figures).`,
  options: { root: { type: 'string' }, charts: { type: 'string' }, 'no-npm-test': { type: 'boolean', default: false } },
  positionals: { min: 0, max: 0 },
});

// Loaded past the command's contract: --help and a wrong argument answer without the gate.
const { allFindings, registeredChecks, runGate, SETTLED_MS, runPolicy, ADMISSION_CHECK_IDS, loadRepo, MANIFEST_ROOTS, REPO_ROOT, clearParseCache } =
  await frontDoor();
const { renderSection } = await import('./render-section.ts');
const { generateSyntheticRepo } = await import('./synthetic-repo.ts');

const APPS = 500;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function time(fn: () => unknown, runs: number): Promise<number> {
  await fn(); // warm-up: JIT, the field-tree cache and the validator imports
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    clearParseCache(); // every run parses cold, as a CI run does
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return median(samples);
}

const { root, resources } = generateSyntheticRepo(APPS);
// The synthetic part measures cold work, as a first CI run does: no warm-start store (policy-tests/model/stores/outcome-store.ts).
process.env.HOMELAB_GATE_STORES = 'off';
try {
  const total = (await loadRepo(root)).resources.length;
  // The synthetic part measures the file layers: no chart is cached for its copy of the repository.
  process.env.HOMELAB_CHART_CACHE = join(root, '.no-charts');
  const findings = allFindings(await runGate({ root }));
  if (findings.length > 0) throw new Error(`synthetic repo should be clean, got ${findings.length} findings, first: ${findings[0]!.message}`);
  const parseMs = await time(() => loadRepo(root, { parallel: false }), 5);
  const parallelParseMs = await time(() => loadRepo(root, { parallel: true }), 5);
  const fullMs = await time(() => runGate({ root }), 5);
  const perSecond = (ms: number) => Math.round((total / ms) * 1000);
  console.log(`synthetic repo: ${total} resources (${resources} generated in ${APPS} app folders + the real repository's ${total - resources})`);
  console.log(
    `parse only (positions kept):         ${parseMs.toFixed(0).padStart(6)} ms  ${perSecond(parseMs).toLocaleString('en-US').padStart(7)} resources/s`,
  );
  console.log(
    `parse only, ${Math.min(availableParallelism(), 8)} threads:             ${parallelParseMs.toFixed(0).padStart(6)} ms  ${perSecond(parallelParseMs).toLocaleString('en-US').padStart(7)} resources/s`,
  );
  console.log(`parse + schema + policy (the gate):  ${fullMs.toFixed(0).padStart(6)} ms  ${perSecond(fullMs).toLocaleString('en-US').padStart(7)} resources/s`);
  // Held to 2x while the `yaml` library's parse was most of the gate; the fast reader made the parse a fraction of it.
  console.log(`gate / parse-only, workers reading:  ${(fullMs / parallelParseMs).toFixed(2)}x`);
  console.log(`gate / single-threaded parse-only:   ${(fullMs / parseMs).toFixed(2)}x   (target: >= 3,000 resources/s for the gate)`);
  // The admission layer's share: its checks alone, on the same parsed repository, against the whole gate.
  const repo = await loadRepo(root);
  const admission = (await registeredChecks()).filter((c) => ADMISSION_CHECK_IDS.includes(c.id));
  const admissionMs = await time(() => runPolicy(repo, admission), 5);
  console.log(
    `admission layer alone (${admission.length} checks):   ${admissionMs.toFixed(0).padStart(6)} ms  ${((admissionMs / fullMs) * 100).toFixed(1)} % of the gate`,
  );
  // Where the policy layer's time goes: each check alone on the same repository, the five slowest.
  const perCheck: [string, number][] = [];
  for (const check of await registeredChecks()) perCheck.push([check.id, await time(() => runPolicy(repo, [check]), 1)]);
  const slowest = perCheck.sort((a, b) => b[1] - a[1]).slice(0, 5);
  console.log(`slowest checks alone: ${slowest.map(([id, ms]) => `${id} ${ms.toFixed(0)} ms`).join(', ')}`);
} finally {
  rmSync(root, { recursive: true, force: true });
  delete process.env.HOMELAB_CHART_CACHE;
  delete process.env.HOMELAB_GATE_STORES;
}

// --root DIR: the repository whose charts the render section renders (default: this one); --charts DIR: the chart
// cache it renders from (default: the usual one). Only that section sees --charts: the start-up below runs this
// repository as a user does.
const chartsDir = args.charts as string | undefined;
await renderSection((args.root as string | undefined) ?? REPO_ROOT, chartsDir ? { ...process.env, HOMELAB_CHART_CACHE: chartsDir } : process.env);

/** Wall time of one process, in ms; a failed run is not a timing. */
function wall(args: string[]): number {
  const start = performance.now();
  // A hang guard, not a speed limit: each run takes under a second or two.
  const run = spawnSync(process.execPath, args, { cwd: REPO_ROOT, encoding: 'utf8', timeout: 10 * 60_000, killSignal: 'SIGKILL' });
  const ms = performance.now() - start;
  if (run.status !== 0) {
    // Said in one line, as every command here says a failure; the benchmark stops.
    process.stderr.write(`bench:validate: ${args.join(' ')} exited ${run.status}: ${(run.stderr || run.stdout).split('\n')[0]}\n`);
    process.exit(1);
  }
  return ms;
}

{
  // The gate's build made now (npm run build:gate), so that no timed start-up below builds it.
  wall([join(REPO_ROOT, 'policy-tests/build.mjs')]);
  const gate = [join(REPO_ROOT, 'policy-tests/bin/homelab-gate.mjs')];
  const bare = [join(REPO_ROOT, 'bench/bare-parse.mjs'), REPO_ROOT, ...MANIFEST_ROOTS];
  // The strictest baseline: js-yaml's loader, no positions (quicker than the gate's own fast reader, which keeps them).
  const bareJsYaml = [join(REPO_ROOT, 'bench/bare-parse.mjs'), '--js-yaml', REPO_ROOT, ...MANIFEST_ROOTS];
  // A run after an edit: one file's times set to now (its text unchanged), so the kept verdict does not answer and the
  // stages judge the tree in full, as after any edit; its times are put back after.
  const edited = join(REPO_ROOT, 'clusters/home/cluster-facts.yaml');
  const times = statSync(edited);
  const afterEdit = () => {
    const now = new Date();
    utimesSync(edited, now, now);
    return wall(gate);
  };
  wall(gate); // warm: the page cache, V8's compile cache, the field-tree cache, the stores
  wall(bare);
  wall(bareJsYaml);
  const [gateMs, bareMs, editedMs, bareAfterMs, jsYamlMs]: [number[], number[], number[], number[], number[]] = [[], [], [], [], []];
  try {
    // The kept verdict needs files older than its settling time (policy-tests/gate/verdict.ts): an unchanged tree,
    // so the runs after an edit come last.
    await new Promise((settle) => setTimeout(settle, SETTLED_MS));
    wall(gate);
    for (let i = 0; i < 7; i++) {
      gateMs.push(wall(gate));
      bareMs.push(wall(bare));
      jsYamlMs.push(wall(bareJsYaml));
    }
    for (let i = 0; i < 7; i++) {
      editedMs.push(afterEdit());
      bareAfterMs.push(wall(bare));
    }
  } finally {
    utimesSync(edited, times.atime, times.mtime);
  }
  const [g, b, e, b2, j] = [median(gateMs), median(bareMs), median(editedMs), median(bareAfterMs), median(jsYamlMs)];
  console.log(`real repository, homelab-gate (built): ${g.toFixed(0).padStart(5)} ms wall, nothing changed (the kept verdict), median of 7`);
  console.log(`real repository, bare parse:           ${b.toFixed(0).padStart(5)} ms wall`);
  console.log(`gate start-up / bare parse:            ${(g / b).toFixed(2)}x  (target <= 1.10x)`);
  console.log(`real repository, bare parse (js-yaml): ${j.toFixed(0).padStart(5)} ms wall, no positions: ${(g / j).toFixed(2)}x`);
  console.log(
    `after an edit (every stage judges):    ${e.toFixed(0).padStart(5)} ms wall against a bare parse of ${b2.toFixed(0)} ms: ${(e / b2).toFixed(2)}x`,
  );
  // The sources' own stores are keyed by their code, not the built gate's: a first process after a change fills them, so
  // the figure is the second's, as the built gate's runs above are.
  startupPhases();
  console.log(`start-up by phase, in a fresh process:  ${startupPhases()}`);
}

/**
 * The gate's phases on the real repository, in a fresh process (so module loading counts, as at start-up):
 * the process's own start and imports, then the phases runGate reports through onProgress.
 */
function startupPhases(): string {
  const script = `
    const t0 = performance.now();
    const { runGate } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'policy-tests/index.ts')).href)});
    const marks = [['imports', performance.now()]];
    // Each mark ends a phase: the parse when it reports done, the render when the schema layer starts, the schema
    // layer when the admission stage starts, the admission stage when the policy stage starts, the policy stage last.
    const ended = { schema: 'render', admission: 'schema', policy: 'admission' };
    await runGate({ onProgress: (phase, done) => {
      const name = phase === 'parse' ? (done === 1 ? 'parse' : undefined) : ended[phase];
      if (name && !marks.some(([n]) => n === name)) marks.push([name, performance.now()]);
    } });
    marks.push(['policy', performance.now()]);
    let prev = t0;
    console.log(marks.map(([n, t]) => { const ms = t - prev; prev = t; return n + ' ' + ms.toFixed(0) + ' ms'; }).join(', '));
  `;
  // A hang guard, not a speed limit: the phases take about a second.
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 10 * 60_000,
    killSignal: 'SIGKILL',
  });
  if (run.status !== 0) return `not measured (${(run.stderr || run.stdout).split('\n')[0]})`;
  return run.stdout.trim();
}

if (args['no-npm-test'] !== true) {
  const start = performance.now();
  const run = spawnSync('npm', ['test', '--silent'], { cwd: REPO_ROOT, encoding: 'utf8' });
  const seconds = (performance.now() - start) / 1000;
  console.log(`npm test on the repository:          ${seconds.toFixed(1)} s wall (exit ${run.status}; target < 60 s)`);
  // A failed run is not a timing: show why.
  if (run.status !== 0)
    console.log(
      `${run.stdout}\n${run.stderr}`
        .split('\n')
        .filter((l) => /FAIL|×|Error|Tests /.test(l))
        .slice(0, 30)
        .join('\n'),
    );
}
