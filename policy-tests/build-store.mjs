/**
 * Builds kept by what they were built from (build.mjs): a fresh checkout of sources this machine has built before (a
 * worktree, a workflow job's checkout in the workflow tests, a clone for a benchmark) takes the bundles from the store
 * instead of building them again, about a second and a half each time. The key is a digest of every file the build
 * may read (the gate's sources under policy-tests/, package.json), esbuild's version and this build's own code; an
 * entry is used only where every input its metafile lists is among those files, and each of its files still has the
 * digest it was kept with (a truncated or altered entry is built again, and replaced). The store lives in the gate's
 * cache (model/stores/cache-root.ts, outside the checkout), and keeps the last few builds.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';

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
  const names = files.map((f) => relative(root, f).split(sep).join('/')).sort();
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
