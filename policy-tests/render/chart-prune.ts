/**
 * What `charts:pull --prune` takes out of the chart cache: every archive and every unpacking the lock no longer pins.
 * The cache only grows otherwise: each chart bump leaves the old version's archive and its two unpackings behind, a
 * chart no Application pins stays, and a gate whose unpacking rules changed leaves the old rules' folders whole.
 * The render tier's caches (`renders/`, `scopes/`), keyed by digests of everything a render reads, cannot say which
 * entries a lock still needs: an entry there goes once no run has read it for UNREAD_DAYS (a read marks it).
 * Only what the caches themselves write is touched (archives in a repository's folder, folders under `.extracted/` and
 * `.expanded/`); a scratch unpacking of the current rules may be another run's under way, and is left to its sweep.
 */
import { lstatSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cacheRoot } from '../model/stores/cache-root.ts';
import { pruneUnread } from './cache.ts';
import { UNPACKING_FOLDERS, UNPACKING_RULES, unpackedFolder, type Unpacking } from './chart-extract.ts';
import { cachedChartPath, chartCacheDir, type ChartLock } from './charts.ts';

export interface Pruned {
  /** Each archive or unpacking removed, its path inside the chart cache. */
  removed: string[];
  /** Each of the render tier's caches, with how many entries no run had read for UNREAD_DAYS were taken out of it. */
  unread: { folder: string; entries: number }[];
  /** Each folder an older gate wrote under the cache root and no gate reads (RETIRED_FOLDERS): what went, and why. */
  retired: { folder: string; entries: number; why: string }[];
  /** What they all held on disk. */
  bytes: number;
}

/**
 * What an older gate wrote under the cache root and no gate reads any more, with the names it gave its entries and
 * what they held: nothing else ever takes them out. The first layout kept each chart's extraction there
 * (`extracted/<digest>/`), before the extractions moved beside their archives, under the rules that made them
 * (chart-extract.ts). Only entries of that name go, so a folder of the user's that happens to share the name
 * (a cache root set to a folder of their own) loses nothing.
 */
export const RETIRED_FOLDERS: Readonly<Record<string, { entry: RegExp; why: string }>> = {
  extracted: { entry: /^[0-9a-f]{64}$/, why: "chart extractions of an older gate's layout, which no gate reads" },
};

/** Each unpacking by the chart cache's folder it is kept in. */
const UNPACKINGS = new Map(Object.entries(UNPACKING_FOLDERS).map(([how, folder]) => [folder, how as Unpacking]));

/** The bytes a file or folder holds, links counted as themselves. */
function sizeOf(path: string): number {
  const stat = lstatSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

const list = (dir: string) => readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));

/**
 * Removes from the chart cache every archive and unpacking `lock` does not pin (its recorded and its pending charts),
 * and from the render tier's caches every entry no run has read for a while (cache.ts pruneUnread).
 */
export function pruneChartCache(env: NodeJS.ProcessEnv, lock: ChartLock): Pruned {
  const dir = chartCacheDir(env);
  const unread = pruneUnread(env);
  const pruned: Pruned = {
    removed: [],
    unread: unread.map(({ folder, entries }) => ({ folder, entries })),
    retired: [],
    bytes: unread.reduce((sum, u) => sum + u.bytes, 0),
  };
  /** Removes a file or folder, counting what it held. */
  const take = (path: string) => {
    pruned.bytes += sizeOf(path);
    rmSync(path, { recursive: true, force: true });
  };
  for (const [folder, { entry, why }] of Object.entries(RETIRED_FOLDERS)) {
    const path = join(cacheRoot(env), folder);
    // A folder as the older gate made it; a link or a file of that name is someone else's.
    if (!lstatSync(path, { throwIfNoEntry: false })?.isDirectory()) continue;
    const made = list(path).filter((e) => e.isDirectory() && entry.test(e.name));
    for (const e of made) take(join(path, e.name));
    if (readdirSync(path).length === 0) rmdirSync(path);
    if (made.length) pruned.retired.push({ folder, entries: made.length, why });
  }
  let entries;
  try {
    entries = list(dir);
  } catch {
    return pruned;
  }
  const archives = new Set([...lock.charts, ...(lock.pending ?? [])].map((ref) => cachedChartPath(ref, env)));
  const unpackings = new Set(lock.charts.flatMap((entry) => [...UNPACKINGS.values()].map((how) => unpackedFolder(env, entry.digest, how))));
  const remove = (path: string) => {
    take(path);
    pruned.removed.push(relative(dir, path));
  };
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    const folder = join(dir, entry.name);
    const how = UNPACKINGS.get(entry.name);
    if (how) {
      for (const rules of list(folder)) {
        // Another gate's rules (or the layout before rules were named): nothing this gate reads.
        if (rules.name !== UNPACKING_RULES[how]) remove(join(folder, rules.name));
        else
          for (const unpacked of list(join(folder, rules.name))) {
            const path = join(folder, rules.name, unpacked.name);
            if (!unpacked.name.includes('.partial-') && !unpackings.has(path)) remove(path);
          }
      }
      continue;
    }
    if (entry.name.startsWith('.')) continue;
    for (const file of list(folder)) {
      const path = join(folder, file.name);
      if (file.isFile() && file.name.endsWith('.tgz') && !archives.has(path)) remove(path);
    }
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  }
  return pruned;
}
