/**
 * Builds the gate into policy-tests/dist with esbuild, so that it starts
 * without compiling TypeScript at run time. Plain JavaScript, because it runs
 * before anything is built. The build is skipped while no input it was made
 * from (esbuild's metafile lists them) is newer than it, and taken from the
 * store where this machine built the same sources before (the store below).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  // The same sources built before on this machine (the store below): taken from the store, not built again.
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

/**
 * The store of builds: a fresh checkout of sources this machine has built before (a
 * worktree, a workflow job's checkout in the workflow tests, a clone for a benchmark) takes the bundles from the store
 * instead of building them again, about a second and a half each time. The key is a digest of every file the build
 * may read (the gate's sources under policy-tests/, package.json), esbuild's version and this build's own code; an
 * entry is used only where every input its metafile lists is among those files, and each of its files still has the
 * digest it was kept with (a truncated or altered entry is built again, and replaced). The store lives in the gate's
 * cache (model/stores/cache-root.ts, outside the checkout), and keeps the last few builds.
 */

/** How many builds the store keeps: a developer's edits make a new key each, and only the latest few are taken again. */
const KEPT = 8;
/** What the build may read of the gate's tree: its modules and the data they import. */
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|json)$/;
/** What it never reads: its own output, the tests, installed packages. */
const NEVER = new Set(['dist', 'test', 'node_modules']);

/** The store's folder: the gate's cache root, as model/stores/cache-root.ts says it (this file runs before anything is built). */
export function storeDir(env = process.env) {
  return join(env.HOMELAB_CACHE_DIR || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'homelab-gitops'), 'gate-builds');
}

/** @param {string} dir @param {string[]} out */
function walk(dir, out) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || NEVER.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else if (entry.isFile() && SOURCE.test(entry.name)) out.push(path);
  }
}

/**
 * The key of a build of `root`'s gate (`here`, its policy-tests folder) by this build file, and the files it covers
 * (relative to `root`, with `/`).
 * @param {string} root @param {string} here @param {string} buildFile
 */
export function buildKey(root, here, buildFile) {
  const files = [join(root, 'package.json')];
  walk(here, files);
  const names = files.map((f) => relative(root, f).split(sep).join('/')).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const hash = createHash('sha256');
  const esbuild = createRequire(buildFile).resolve('esbuild/package.json');
  hash.update(`esbuild ${JSON.parse(readFileSync(esbuild, 'utf8')).version}\0${readFileSync(buildFile, 'utf8')}\0`);
  for (const name of names) {
    const bytes = readFileSync(join(root, name));
    hash.update(`${name}\0${bytes.length}\0`).update(bytes);
  }
  return { key: hash.digest('hex'), files: new Set(names) };
}

const sha256 = (/** @type {Uint8Array} */ bytes) => createHash('sha256').update(bytes).digest('hex');

/**
 * The files a kept build of `key` holds, each with its bytes, or undefined where there is none this build may take.
 * @param {string} store @param {{ key: string, files: Set<string> }} built
 * @returns {{ name: string, contents: Buffer }[] | undefined}
 */
export function keptBuild(store, { key, files }) {
  const dir = join(store, key);
  let index;
  try {
    index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
  } catch {
    return undefined;
  }
  const out = [];
  for (const [name, digest] of Object.entries(index.files ?? {})) {
    let contents;
    try {
      contents = readFileSync(join(dir, name));
    } catch {
      return undefined;
    }
    if (name.includes('/') || sha256(contents) !== digest) return undefined;
    out.push({ name, contents });
  }
  const meta = out.find((f) => f.name === 'meta.json');
  // Made from files this key does not cover (an import from outside policy-tests/): its key cannot vouch for it.
  if (!meta || !Object.keys(JSON.parse(meta.contents.toString('utf8')).inputs ?? {}).every((input) => files.has(input))) return undefined;
  // Taken again: the newest in the store, the last the pruning drops.
  const now = new Date();
  utimesSync(dir, now, now);
  return out;
}

/**
 * Keeps a build under its key (written aside, then renamed in whole: a run killed halfway leaves no entry), and
 * drops the oldest beyond the last few. A store that cannot be written is no error: the next run builds again.
 * @param {string} store @param {string} key @param {{ name: string, contents: Uint8Array }[]} files
 */
export function keepBuild(store, key, files) {
  const aside = join(store, `${key}.${process.pid}.tmp`);
  try {
    mkdirSync(aside, { recursive: true });
    for (const { name, contents } of files) writeFileSync(join(aside, name), contents);
    writeFileSync(join(aside, 'index.json'), JSON.stringify({ files: Object.fromEntries(files.map((f) => [f.name, sha256(f.contents)])) }));
    rmSync(join(store, key), { recursive: true, force: true });
    renameSync(aside, join(store, key));
    const entries = readdirSync(store).map((name) => ({ name, at: statSync(join(store, name)).mtimeMs }));
    const kept = entries.filter((e) => /^[0-9a-f]{64}$/.test(e.name)).sort((a, b) => b.at - a.at);
    // What a run killed while keeping its build left aside, an hour on.
    const abandoned = entries.filter((e) => e.name.endsWith('.tmp') && e.at < Date.now() - 3_600_000);
    for (const { name } of [...kept.slice(KEPT), ...abandoned]) rmSync(join(store, name), { recursive: true, force: true });
  } catch {
    rmSync(aside, { recursive: true, force: true });
  }
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
