/**
 * Builds the gate into policy-tests/dist with esbuild, so that it starts
 * without compiling TypeScript at run time. Plain JavaScript, because it runs
 * before anything is built. The build is skipped while no input it was made
 * from (esbuild's metafile lists them) is newer than it, and taken from the
 * store where this machine built the same sources before (build-store.mjs).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildKey, keepBuild, keptBuild, storeDir } from './build-store.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
export const DIST = join(HERE, 'dist');
export const GATE_BUNDLE = join(DIST, 'homelab-gate.mjs');
const META = join(DIST, 'meta.json');

const ENTRIES = {
  'homelab-gate': join(HERE, 'gate/bin.ts'),
  // The parse pool starts its workers from the file beside the bundle (model/repository/parse-pool.ts).
  'parse-worker-entry': join(HERE, 'model/repository/parse-worker.ts'),
  // jq runs in a worker it can stop (model/compare/jq.ts), started from the file beside the bundle too.
  'jq-worker-entry': join(HERE, 'model/compare/jq-worker.ts'),
  // The front door the scripts import (scripts/front-door-hook.mjs): one file where its sources are some 575
  // modules whose types Node would strip at every start.
  'front-door': join(HERE, 'index.ts'),
};
export const FRONT_DOOR_SOURCE = ENTRIES['front-door'];
export const FRONT_DOOR_BUNDLE = join(DIST, 'front-door.mjs');

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether a bundle is missing or older than any file it was built from. */
export function isStale() {
  const times = Object.keys(ENTRIES).map((name) => mtime(join(DIST, `${name}.mjs`)));
  if (times.includes(undefined)) return true;
  const built = Math.min(.../** @type {number[]} */ (times));
  let meta;
  try {
    meta = JSON.parse(readFileSync(META, 'utf8'));
  } catch {
    return true;
  }
  const root = resolve(HERE, '..');
  return Object.keys(meta.inputs).some((input) => (mtime(resolve(root, input)) ?? Infinity) > built);
}

/** @type {import('esbuild').BuildOptions & { metafile: true, write: false }} */
const OPTIONS = {
  absWorkingDir: resolve(HERE, '..'),
  entryPoints: ENTRIES,
  outdir: DIST,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  packages: 'external',
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'silent',
};

/**
 * How long one build may take, in ms: HOMELAB_BUILD_TIMEOUT seconds, five minutes unless set. A build takes about a
 * second; the limit is there so that a hung esbuild stops a start with one line, not holds it forever.
 */
export function buildTimeoutMs(env = process.env) {
  const raw = env.HOMELAB_BUILD_TIMEOUT;
  if (raw === undefined || raw === '') return 300_000;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`HOMELAB_BUILD_TIMEOUT must be a positive number of seconds, got "${raw}"`);
  return seconds * 1000;
}

/** Builds the bundles; each lands with a rename, so a concurrent run never reads half a file. */
export async function buildGate() {
  // The same sources built before on this machine (build-store.mjs): taken from the store, not built again.
  const root = resolve(HERE, '..');
  let built;
  try {
    built = buildKey(root, HERE, fileURLToPath(import.meta.url));
  } catch {
    built = undefined;
  }
  const kept = built && keptBuild(storeDir(), built);
  if (kept) return land(kept);
  const ms = buildTimeoutMs();
  // Loaded here, not at the top: the gate's own start-up imports this file only to ask whether it is stale.
  const esbuild = await import('esbuild');
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`esbuild did not finish within ${ms / 1000} s (HOMELAB_BUILD_TIMEOUT); stopped`));
      // Ends esbuild's service process; the build's own promise then rejects, and the race has handled it.
      esbuild.stop().catch(() => {});
    }, ms);
  });
  try {
    const result = await Promise.race([esbuild.build(OPTIONS), expired]);
    const files = [
      ...result.outputFiles.map((f) => ({ name: basename(f.path), contents: f.contents })),
      { name: 'meta.json', contents: Buffer.from(JSON.stringify(result.metafile)) },
    ];
    if (built) keepBuild(storeDir(), built.key, files);
    return land(files);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * buildGate, blocking: for a module loader's resolve hook, which cannot wait on a promise. It runs this file as a
 * child, which holds the build to its time limit as buildGate does (esbuild's own buildSync takes none); the child's
 * own limit, a little longer, is for a child that hangs before its build starts.
 */
export function buildGateSync() {
  const ms = buildTimeoutMs();
  const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { encoding: 'utf8', timeout: ms + 30_000, killSignal: 'SIGKILL' });
  if (child.error) throw new Error(child.error.message);
  if (child.status !== 0) throw new Error(child.stderr.trim().split('\n')[0] || `the build ended with ${child.signal ?? `exit ${child.status}`}`);
}

/**
 * Writes a build into dist, each file aside and then renamed over its old self, the metafile last; the names of the
 * bundles and maps it wrote.
 * @param {{ name: string, contents: Uint8Array }[]} files
 */
function land(files) {
  mkdirSync(DIST, { recursive: true });
  const suffix = `.${process.pid}.tmp`;
  const ordered = [...files.filter((f) => f.name !== 'meta.json'), ...files.filter((f) => f.name === 'meta.json')];
  for (const { name, contents } of ordered) {
    writeFileSync(join(DIST, name) + suffix, contents);
    renameSync(join(DIST, name) + suffix, join(DIST, name));
  }
  return ordered.filter((f) => f.name !== 'meta.json').map((f) => f.name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(
      'usage: npm run build:gate\n\nBuilds the gate into policy-tests/dist with esbuild (skipped while nothing it was built from changed).\n',
    );
    process.exit(0);
  }
  if (args.length > 0) {
    process.stderr.write(`build:gate: unexpected argument "${args[0]}" (usage: npm run build:gate)\n`);
    process.exit(2);
  }
  buildGate().then(
    (files) => process.stdout.write(`built ${files.join(', ')} in ${DIST}\n`),
    (err) => {
      process.stderr.write(`build: ${String(err.message).split('\n')[0]}\n`);
      process.exitCode = 1;
    },
  );
}
