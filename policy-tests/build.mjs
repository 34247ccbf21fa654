/**
 * Builds the gate into policy-tests/dist with esbuild, so that it starts
 * without compiling TypeScript at run time. Plain JavaScript, because it runs
 * before anything is built. The build is skipped while no input it was made
 * from (esbuild's metafile lists them) is newer than it.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
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

/** Builds the bundles; each lands with a rename, so a concurrent run never reads half a file. */
export async function buildGate() {
  // Loaded here, not at the top: the gate's own start-up imports this file only to ask whether it is stale.
  const { build } = await import('esbuild');
  return landed(await build(OPTIONS));
}

/** buildGate, blocking: for a module loader's resolve hook, which cannot wait on a promise. */
export function buildGateSync() {
  const { buildSync } = /** @type {typeof import('esbuild')} */ (createRequire(import.meta.url)('esbuild'));
  return landed(buildSync(OPTIONS));
}

/** @param {import('esbuild').BuildResult<{ metafile: true, write: false }>} result */
function landed(result) {
  mkdirSync(DIST, { recursive: true });
  const suffix = `.${process.pid}.tmp`;
  for (const file of result.outputFiles) {
    writeFileSync(file.path + suffix, file.contents);
    renameSync(file.path + suffix, file.path);
  }
  writeFileSync(META + suffix, JSON.stringify(result.metafile));
  renameSync(META + suffix, META);
  return result.outputFiles.map((f) => basename(f.path));
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
