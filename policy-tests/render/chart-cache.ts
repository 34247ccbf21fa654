/**
 * The chart cache as one object, held to the lock: what the render tier asks of it (is this chart's archive the
 * bytes the lock records?) and what `npm run charts:pull` does with it (take a pulled archive in, record the lock).
 * The file layout and the lock's format stay in charts.ts.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CHART_LOCK_FILE,
  PULL_COMMAND,
  cachedChartPath,
  chartCacheDir,
  chartId,
  digestOf,
  formatLock,
  lockEntryFor,
  pendingEntryFor,
  type ChartLock,
  type ChartRef,
  type LockEntry,
} from './charts.ts';
import type { RemoteEntry } from './remote-bases.ts';

/** Why a chart cannot be rendered from the cache: not there at all, or there but not what the lock records. */
export interface Unverified {
  why: string;
  notCached: boolean;
}

export interface ChartCache {
  /** The folder the archives sit in. */
  readonly dir: string;
  /** Where a chart's archive sits (cached or not). */
  path(ref: ChartRef): string;
  /** The digest of the cached archive, or undefined when it is not cached. */
  cachedDigest(ref: ChartRef): string | undefined;
  /** The cached archive, when it is the bytes the lock records; otherwise why not, in the words a person acts on. */
  verify(ref: ChartRef, lock: ChartLock): { path: string; digest: string } | Unverified;
  /** A pulled archive taken into the cache (renamed into place); the lock entry that records it. */
  admit(ref: ChartRef, archive: string, digest: string): LockEntry;
  /** The lock after a pull, as text: exactly the charts pinned (those with an entry), the pending ones not yet recorded, and the remotes. */
  record(pinned: readonly ChartRef[], entries: ReadonlyMap<string, LockEntry>, lock: ChartLock, remotes: RemoteEntry[]): string;
}

export function chartCache(env: NodeJS.ProcessEnv = process.env): ChartCache {
  const path = (ref: ChartRef) => cachedChartPath(ref, env);
  const cachedDigest = (ref: ChartRef) => (existsSync(path(ref)) ? digestOf(readFileSync(path(ref))) : undefined);
  return {
    dir: chartCacheDir(env),
    path,
    cachedDigest,
    verify(ref, lock) {
      const digest = cachedDigest(ref);
      if (digest === undefined) return { why: `not in the chart cache: run ${PULL_COMMAND}`, notCached: true };
      const locked = lockEntryFor(lock, ref);
      const pending = pendingEntryFor(lock, ref);
      if (!locked && pending)
        return {
          why: `chart ${chartId(ref)} has no digest in ${CHART_LOCK_FILE} yet (${pending.reason}): run ${PULL_COMMAND} -- --update-lock with network to record it`,
          notCached: false,
        };
      if (!locked) return { why: `chart ${chartId(ref)} has no entry in ${CHART_LOCK_FILE}: run ${PULL_COMMAND} to record its digest`, notCached: false };
      if (locked.digest !== digest)
        return {
          why: `cached chart ${path(ref)} has digest ${digest}, but ${CHART_LOCK_FILE} records ${locked.digest}: delete it and run ${PULL_COMMAND}`,
          notCached: false,
        };
      return { path: path(ref), digest };
    },
    admit(ref, archive, digest) {
      mkdirSync(dirname(path(ref)), { recursive: true });
      renameSync(archive, path(ref));
      return { ...ref, digest };
    },
    record(pinned, entries, lock, remotes) {
      const wanted = new Set(pinned.map(chartId));
      return formatLock({
        charts: [...entries.values()].filter((c) => wanted.has(chartId(c))),
        // A pending chart stays named until a pull records its digest, and goes when nothing pins it.
        pending: (lock.pending ?? []).filter((p) => wanted.has(chartId(p)) && !entries.has(chartId(p))),
        remotes,
      });
    },
  };
}
