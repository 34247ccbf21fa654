/**
 * A chart archive extracted as Argo CD's repo-server extracts it before it renders a chart from a chart repository
 * (util/helm/client.go ExtractChart, then util/io/files/tar.go untar, v3.5.1): folders and regular files written, a
 * symbolic link kept where what it names stays inside the extraction and failing the source where it does not
 * ("illegal filepath in symlink"), anything else (hard links, devices, contiguous files) passed over, files 0644. Helm then
 * renders the folder the Application's chart name gives, and reads it as a folder: through its links, by its
 * `.helmignore`, without dot files in `templates/`. The gate renders that same folder, so what Helm reads from it is
 * what Argo CD applies, whatever tool packed the archive.
 *
 * A kustomization's Helm chart is unpacked the other way Helm unpacks one, as kustomize's own `helm pull --untar`
 * would put it where kustomize looks for it (`expand`, below).
 *
 * Each is kept in the chart cache beside the archives, by the rules it was unpacked by and the archive's digest
 * (`.extracted/<rules>/<digest>/`, `.expanded/<rules>/<digest>/`), written under a scratch name, then renamed into
 * place, so a run killed halfway leaves nothing a later run reads. `charts:pull` unpacks each chart it holds to the
 * lock, and every source of the chart, every pass and every run render from that; a render that finds none makes it.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, posix, relative } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { list, type ReadEntry } from 'tar';
import { chartCacheDir } from './charts.ts';
import { keptInFolder } from './helmignore.ts';
import { inside, unpackedTooLarge, type RenderRefused } from './limits.ts';

/** Extractions under way in this process, by folder: two sources of one chart in one pass share one. */
const underWay = new Map<string, Promise<string>>();

/**
 * How an archive is unpacked: as Argo CD's repo-server extracts a chart it renders (`argocd`), or as `helm pull
 * --untar` expands one, as kustomize's Helm inflation pulls a chart it does not find (`helm-pull`).
 */
export type Unpacking = 'argocd' | 'helm-pull';

/** The chart cache's folder of each unpacking. */
export const UNPACKING_FOLDERS: Record<Unpacking, string> = { argocd: '.extracted', 'helm-pull': '.expanded' };

/**
 * The rules each unpacking follows, by the upstream release it follows and the gate's revision of it: named in the
 * folder an archive is unpacked to, and in every key read from that folder (a render, a chart's scope), so what a
 * gate whose rules differ unpacked is never read and never rendered from. A change to what a rule writes is a new name.
 */
export const UNPACKING_RULES: Record<Unpacking, string> = { argocd: 'argocd-3.5.1-untar.2', 'helm-pull': 'helm-4.2.3-expand.1' };

/** What a key read from an unpacking holds of it: the archive, and the rules it was unpacked by. */
export const unpackingKey = (digest: string, how: Unpacking): string => `${digest}-${UNPACKING_RULES[how]}`;

/** Where an archive of this digest is unpacked to by these rules. */
export function unpackedFolder(env: NodeJS.ProcessEnv, digest: string, how: Unpacking, rules = UNPACKING_RULES[how]): string {
  return join(chartCacheDir(env), UNPACKING_FOLDERS[how], rules, digest.replace(/^sha256:/, ''));
}

/** The folder a chart archive of this digest is unpacked to, unpacked first where it is not yet. */
export function extractedChart(
  env: NodeJS.ProcessEnv,
  { archive, digest }: { archive: string; digest: string },
  { unpackedLimit, how = 'argocd' }: { unpackedLimit: number; how?: Unpacking },
): Promise<string> {
  const folder = unpackedFolder(env, digest, how);
  if (existsSync(folder)) return Promise.resolve(folder);
  let pending = underWay.get(folder);
  if (!pending) {
    pending = extractInto(folder, archive, unpackedLimit, how).finally(() => underWay.delete(folder));
    underWay.set(folder, pending);
  }
  return pending;
}

/** How old a scratch extraction must be to be taken for one a killed run left: no extraction takes that long. */
const ABANDONED_MS = 60 * 60 * 1000;

/** Scratch extractions that killed runs left behind, swept when another is made. */
function sweepAbandoned(folder: string): void {
  for (const name of readdirSync(dirname(folder))) {
    if (!name.includes('.partial-')) continue;
    const path = join(dirname(folder), name);
    try {
      if (Date.now() - statSync(path).mtimeMs > ABANDONED_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already: another run swept it.
    }
  }
}

async function extractInto(folder: string, archive: string, unpackedLimit: number, how: Unpacking): Promise<string> {
  mkdirSync(dirname(folder), { recursive: true });
  sweepAbandoned(folder);
  const scratch = mkdtempSync(`${folder}.partial-`);
  try {
    await (how === 'argocd' ? untar : expand)(scratch, archive, { left: unpackedLimit, limit: unpackedLimit });
    try {
      renameSync(scratch, folder);
    } catch (err) {
      // Another run extracted the same archive first: its folder holds the same files.
      if (!existsSync(folder)) throw err;
    }
    return folder;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** What an archive may still unpack to, of its limit. */
interface Budget {
  left: number;
  limit: number;
}

/** tar's block: every header is one, and content is written in whole ones. */
const TAR_BLOCK = 512;

/** Counts an entry against the budget: a small archive can unpack to gigabytes, and is stopped at the limit. */
function overBudget(budget: Budget, size: number | undefined, archive: string): RenderRefused | undefined {
  // Counted as tar's stream counts it, as Argo CD's limit reader does: a header of 512 bytes, and the content in
  // blocks of 512. An archive of a million empty files unpacks to no content, but to a million files.
  budget.left -= TAR_BLOCK + Math.ceil((size ?? 0) / TAR_BLOCK) * TAR_BLOCK;
  return budget.left < 0 ? unpackedTooLarge(basename(archive), budget.limit) : undefined;
}

/**
 * Each entry of an archive, in its order, counted against the budget: `visit` passes over it (returns nothing) or
 * returns what takes its content. The first error `visit` or a taker throws, or the budget, stops the reading.
 */
async function readEntries(archive: string, budget: Budget, visit: (entry: ReadEntry) => ((data: Buffer) => void) | void): Promise<void> {
  let failed: Error | undefined;
  const guarded = <T>(step: () => T): T | undefined => {
    try {
      return step();
    } catch (err) {
      failed = err as Error;
      return undefined;
    }
  };
  // tar reads the archive; what is written is each unpacking's own rule (tar's own extraction, with rules of its own
  // for links and modes, took three times as long for the lock's charts).
  await list({
    file: archive,
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      if (!failed) failed = overBudget(budget, entry.size, archive);
      const take = failed ? undefined : guarded(() => visit(entry));
      if (!take) {
        entry.resume();
        return;
      }
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => {
        if (!failed) guarded(() => take(Buffer.concat(chunks)));
      });
    },
  });
  if (failed) throw failed;
}

/** Makes a file's folder once: most files share one. */
function writer(): (target: string, data: Buffer) => void {
  const made = new Set<string>();
  return (target, data) => {
    const parent = dirname(target);
    if (!made.has(parent)) {
      mkdirSync(parent, { recursive: true });
      made.add(parent);
    }
    writeFileSync(target, data, { mode: 0o644 });
  };
}

/** Argo CD's untar (util/io/files/tar.go), into `scratch`: the archive as it stands, each entry by untar's switch. */
async function untar(scratch: string, archive: string, budget: Budget): Promise<void> {
  const write = writer();
  const fails = (path: string, err: unknown) => new Error(`chart archive ${basename(archive)}: ${path}: ${(err as Error).message}; Argo CD fails the source`);
  await readEntries(archive, budget, (entry) => {
    if (entry.path === '.' || entry.path === './') return;
    const target = join(scratch, entry.path);
    // Go's filepath.Join and Inbound: a `..` or an absolute name that leaves the extraction fails it.
    if (!inside(scratch, target))
      throw new Error(`chart archive ${basename(archive)} holds ${entry.path}, outside the chart; Argo CD fails the source: illegal filepath in archive`);
    if (entry.type === 'Directory') {
      try {
        mkdirSync(target, { recursive: true });
      } catch (err) {
        throw fails(entry.path, err);
      }
      return;
    }
    // Made in the archive's order, as untar makes it (tar hands on an entry once the one before has ended): what a
    // link names is checked through the links made before it, and a file after it may be written through it.
    if (entry.type === 'SymbolicLink') {
      makeLink(scratch, { path: entry.path, linkpath: entry.linkpath ?? '' }, archive);
      return;
    }
    // Untar has no case for a hard link, a device or a contiguous file; Go's reader hands '\0' on as a regular file.
    if (entry.type !== 'File' && entry.type !== 'OldFile') return;
    return (data) => {
      try {
        write(target, data);
      } catch (err) {
        throw fails(entry.path, err);
      }
    };
  });
}

/** A Windows drive at the start of a path, which Helm's archive loader refuses. */
const DRIVE_PATH = /^[a-zA-Z]:\//;
const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * `helm pull --untar` into `scratch` (Helm 4.2: pkg/chart/v2/util/expand.go Expand over pkg/chart/loader/archive
 * LoadArchiveFiles): every entry but a folder is a file (a link or a hard link one with no content), its path after
 * the archive's first segment, checked as the loader checks it, a byte-order mark dropped; all of them written, in
 * the archive's order, under the folder the last Chart.yaml names.
 */
async function expand(scratch: string, archive: string, budget: Budget): Promise<void> {
  const refuse = (why: string) => new Error(`chart archive ${basename(archive)}: ${why}; helm pull --untar refuses it, so kustomize's inflation fails`);
  const files: { name: string; data: Buffer }[] = [];
  await readEntries(archive, budget, (entry) => {
    if (entry.type === 'Directory' || entry.path.endsWith('/')) return;
    // An archive made on Windows may use `\`; the name is normalized to `/`.
    const delimiter = entry.path.includes('\\') ? '\\' : '/';
    const parts = entry.path.split(delimiter);
    const joined = parts.slice(1).join('/');
    const name = posix.normalize(joined).replace(/\/+$/, '') || '.';
    if (joined.startsWith('/')) throw refuse('chart illegally contains absolute paths');
    if (name === '.') throw refuse(`chart illegally contains content outside the base directory: "${entry.path}"`);
    if (name.startsWith('..')) throw refuse('chart illegally references parent directory');
    if (DRIVE_PATH.test(name)) throw refuse('chart contains illegally named files');
    if (parts[0] === 'Chart.yaml') throw refuse('chart yaml not in base directory');
    return (data) => void files.push({ name, data: data.subarray(0, 3).equals(UTF8_BOM) ? data.subarray(3) : data });
  });
  if (files.length === 0) throw refuse('no files in chart archive');
  let chartName = '';
  for (const file of files.filter((f) => f.name === 'Chart.yaml')) {
    try {
      const meta = parseYaml(file.data.toString('utf8')) as { name?: unknown } | null;
      chartName = typeof meta?.name === 'string' ? meta.name : '';
    } catch (err) {
      throw refuse(`cannot load Chart.yaml: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (chartName === '') throw refuse('chart name not specified');
  if (chartName === '.' || chartName === '..') throw refuse(`chart name "${chartName}" is not allowed`);
  if (chartName.includes('/')) throw refuse(`chart name "${chartName}" must not contain path separators`);
  const write = writer();
  for (const { name, data } of files) {
    try {
      write(join(scratch, chartName, name), data);
    } catch (err) {
      throw refuse(`${name}: ${(err as Error).message}`);
    }
  }
}

/**
 * A symbolic link as untar makes one: what it names joined to its folder (an absolute name too, as Go's
 * filepath.Join joins it), through the links already there, must stay inside the extraction, and the link is made
 * to that, relative to its folder; a name that does not exist (yet) is taken as written.
 */
function makeLink(root: string, { path, linkpath }: { path: string; linkpath: string }, archive: string): void {
  const at = join(root, path);
  const named = join(dirname(at), linkpath);
  let real = named;
  try {
    real = realpathSync.native(named);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`chart archive ${basename(archive)}: ${path}: ${(err as Error).message}`);
  }
  if (!inside(realpathSync.native(root), real) && !inside(root, real))
    throw new Error(`chart archive ${basename(archive)} holds a link out of the chart (${path}); Argo CD fails the source: illegal filepath in symlink`);
  try {
    symlinkSync(relative(dirname(at), real), at);
  } catch (err) {
    throw new Error(`chart archive ${basename(archive)}: ${path}: ${(err as Error).message}; Argo CD fails the source: error creating symlink`);
  }
}

/**
 * A chart folder's files as Helm's loader walks it (pkg/chart/v2/loader/directory.go with internal/sympath): links
 * followed, a folder its `.helmignore` ignores skipped whole, and dot files in `templates/` dropped. Each as `[path in
 * the chart, path on disk]`, as chartScopeFromFolder takes them. A link that names nothing fails, as Helm's load does.
 */
export function loadedFiles(chart: string): [string, string][] {
  const files: [string, string][] = [];
  const seen = new Set<string>();
  const walk = (dir: string, under: string): void => {
    const real = realpathSync.native(dir);
    // A link back up the tree would be walked forever; Helm's walk would too, and then fail.
    if (seen.has(real)) throw new Error(`chart ${basename(chart)}: ${under || '.'} links back into itself`);
    seen.add(real);
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = `${under}${name}`;
      let stat;
      try {
        stat = statSync(path);
      } catch {
        throw new Error(`chart ${basename(chart)}: ${rel} is a link to nothing, which Helm cannot load`);
      }
      if (stat.isDirectory()) walk(path, `${rel}/`);
      else files.push([rel, path]);
    }
    seen.delete(real);
  };
  walk(chart, '');
  const kept = new Set(
    keptInFolder(
      chart,
      files.map(([rel]) => rel),
    ),
  );
  return files.filter(([rel]) => kept.has(rel));
}
