/**
 * Contract fakes of actions/cache/restore and actions/cache/save v5.0.5 (their action.yml, `src/restoreImpl.ts`,
 * `src/saveImpl.ts`, `src/stateProvider.ts` and `src/utils/actionUtils.ts` at that tag, over @actions/cache):
 *
 * - an entry is immutable, kept by its key and its version (the paths as given: @actions/cache's getCacheVersion
 *   hashes them), in the scope of the ref whose run saved it; the repository's entries outlive the run, so they are
 *   kept beside the run's origin (github.com's copy of the repository);
 * - a restore looks in its own ref's scope, then the base branch's (a pull request's) and the default branch's, for
 *   the key, then for the key and each restore key in order as a prefix, the newest entry first, and puts the files back where
 *   they were relative to the workspace (the cache's tar holds them so, `../` and all); `cache-hit` is `true` on the
 *   key itself (compared without case, as `isExactKeyMatch`), `false` on a restore key, and left unset on a miss,
 *   which only fails the step with `fail-on-cache-miss`; `cache-primary-key` and `cache-matched-key` are set as
 *   restore-only's state provider sets them;
 * - a save of a key the scope already holds, or of paths that match no file, says why and warns that the cache
 *   save failed, and does not fail the step.
 *
 * Paths are patterns as @actions/glob reads them: one a line, `~` the runner's home. Not modelled: `lookup-only`,
 * the 10 GB eviction, Windows' cross-OS archives, and a ref without a branch or tag (the workflows run on both).
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, globSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { RunState, StepIo } from './run-state.ts';

interface Entry {
  key: string;
  version: string;
  /** When it was saved, to find the newest entry a prefix matches. */
  saved: number;
  /** Each file's path relative to the workspace it was saved from; its bytes are `files/<index>`. */
  paths: string[];
}

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** Where the repository's caches are kept: beside github.com's copy of it, so every run of the test's origin shares them. */
const storeOf = (run: RunState) => `${run.origin}.caches`;

const scopeFolder = (run: RunState, ref: string) => join(storeOf(run), sha(ref).slice(0, 16));

/** The paths input, a pattern a line (`getInputAsArray`: trimmed, empty lines dropped). */
const pathsOf = (io: StepIo) =>
  (io.inputs.path ?? '')
    .split('\n')
    .map((s) => s.replace(/^!\s+/, '!').trim())
    .filter((s) => s !== '');

/** What @actions/cache keys an entry's version by: the paths as given and the compression (always zstd here). */
const versionOf = (paths: string[]) => sha([...paths, 'zstd-without-long'].join('|'));

/** The refs whose entries a run may restore, its own first (the service's scoping). */
function scopes(io: StepIo): string[] {
  const own = io.env.GITHUB_REF ?? '';
  const base = io.env.GITHUB_BASE_REF ? `refs/heads/${io.env.GITHUB_BASE_REF}` : '';
  return [...new Set([own, base, 'refs/heads/main'].filter(Boolean))];
}

function entriesIn(folder: string): (Entry & { folder: string })[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((name) => existsSync(join(folder, name, 'entry.json')))
    .map((name) => ({ ...(JSON.parse(readFileSync(join(folder, name, 'entry.json'), 'utf8')) as Entry), folder: join(folder, name) }));
}

/** Every file the patterns match, each with its path relative to the workspace, as the cache's tar lists it. */
function matchedFiles(io: StepIo, paths: string[]): string[] {
  const home = io.env.HOME ?? '';
  const files = new Set<string>();
  const below = (path: string): string[] => (statSync(path).isDirectory() ? readdirSync(path).flatMap((name) => below(join(path, name))) : [path]);
  for (const pattern of paths) {
    if (pattern.startsWith('!')) throw new Error(`cache fake: exclusion patterns are not modelled (${pattern})`);
    const absolute = resolve(io.workspace, pattern.replace(/^~(?=\/|$)/, home));
    for (const match of globSync(absolute)) for (const file of below(match)) files.add(relative(io.workspace, file));
  }
  return [...files].sort();
}

function validateKey(key: string): void {
  if (key.length > 512) throw new Error(`Key Validation Error: ${key} cannot be larger than 512 characters.`);
  if (key.includes(',')) throw new Error(`Key Validation Error: ${key} cannot contain commas.`);
}

export async function restoreCache(run: RunState, io: StepIo): Promise<void> {
  const key = io.inputs.key ?? '';
  if (!key) throw new Error('Input required and not supplied: key');
  const paths = pathsOf(io);
  if (paths.length === 0) throw new Error('Input required and not supplied: path');
  const restoreKeys = (io.inputs['restore-keys'] ?? '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean);
  const keys = [key, ...restoreKeys];
  if (keys.length > 10) throw new Error(`Key Validation Error: Keys are limited to a maximum of 10.`);
  keys.forEach(validateKey);
  const setOutput = (name: string, value: string) => writeFileSync(io.env.GITHUB_OUTPUT!, `${name}=${value}\n`, { flag: 'a' });
  setOutput('cache-primary-key', key);
  const version = versionOf(paths);
  let found: (Entry & { folder: string }) | undefined;
  for (const ref of scopes(io)) {
    const entries = entriesIn(scopeFolder(run, ref))
      .filter((e) => e.version === version)
      .sort((a, b) => b.saved - a.saved);
    // GitHub's order: the key, the key as a prefix, then each restore key as a prefix; then the next scope.
    found = entries.find((e) => e.key === key) ?? [key, ...restoreKeys].map((prefix) => entries.find((e) => e.key.startsWith(prefix))).find(Boolean);
    if (found) break;
  }
  if (!found) {
    if (io.inputs['fail-on-cache-miss'] === 'true') throw new Error(`Failed to restore cache entry. Exiting as fail-on-cache-miss is set. Input key: ${key}`);
    io.log(`Cache not found for input keys: ${keys.join(', ')}`);
    return;
  }
  found.paths.forEach((path, i) => {
    const to = resolve(io.workspace, path);
    mkdirSync(dirname(to), { recursive: true });
    cpSync(join(found.folder, 'files', String(i)), to);
  });
  setOutput('cache-matched-key', found.key);
  setOutput('cache-hit', String(found.key.localeCompare(key, undefined, { sensitivity: 'accent' }) === 0));
  io.log(`Cache restored from key: ${found.key}`);
}

export async function saveCache(run: RunState, io: StepIo): Promise<void> {
  // saveImpl's own warnings are info lines marked `[warning]` (utils.logWarning); save-only then warns once more
  // whenever nothing was saved (saveOnlyRun: cache id -1).
  const failed = (line: string) => {
    io.log(line);
    io.log('Warning: Cache save failed.');
  };
  const key = io.inputs.key ?? '';
  if (!key) return io.log('[warning]Key is not specified.');
  const paths = pathsOf(io);
  if (paths.length === 0) throw new Error('Input required and not supplied: path');
  try {
    validateKey(key);
  } catch (err) {
    return failed(`[warning]${(err as Error).message}`);
  }
  const files = matchedFiles(io, paths);
  if (files.length === 0)
    return failed('[warning]Path Validation Error: Path(s) specified in the action for caching do(es) not exist, hence no cache is being saved.');
  const folder = scopeFolder(run, io.env.GITHUB_REF ?? '');
  const version = versionOf(paths);
  // The service refuses the entry (in words of its own, not modelled); @actions/cache says so as info.
  const taken = () => failed(`Failed to save: Unable to reserve cache with key ${key}, another job may be creating this cache.`);
  if (entriesIn(folder).some((e) => e.key === key && e.version === version)) return taken();
  // Made aside, then put in place whole: a restore beside it never sees half an entry.
  const scratch = join(folder, `.saving-${process.pid}-${process.hrtime.bigint()}`);
  mkdirSync(join(scratch, 'files'), { recursive: true });
  files.forEach((file, i) => cpSync(join(io.workspace, file), join(scratch, 'files', String(i))));
  // Later than every entry the scope holds, however quick the saves: the newest is the one a prefix finds.
  const saved = Math.max(Date.now(), ...entriesIn(folder).map((e) => e.saved + 1));
  const entry: Entry = { key, version, saved, paths: files };
  writeFileSync(join(scratch, 'entry.json'), JSON.stringify(entry));
  try {
    renameSync(scratch, join(folder, sha(`${key}\0${version}`).slice(0, 16)));
  } catch {
    rmSync(scratch, { recursive: true, force: true });
    return taken();
  }
  io.log(`Cache saved with key: ${key}`);
}
