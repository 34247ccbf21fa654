/**
 * The chart cache as one object, held to the lock: what the render tier asks of it (is this chart's archive the
 * bytes the lock records?), what `npm run charts:pull` does with it (pull every pinned chart and remote base, and
 * say what the lock becomes: chart-pull.ts; take out what the lock no longer pins: chart-prune.ts), and what a
 * benchmark asks (which pinned charts are not cached). The file layout and the lock's format stay in charts.ts.
 */
import { existsSync } from 'node:fs';
import type { Repo } from '../model/repository/repo.ts';
import { pullInto, type PullOptions, type PullOutcome } from './chart-pull.ts';
import { pruneChartCache, type Pruned } from './chart-prune.ts';
import {
  CHART_LOCK_FILE,
  PULL_COMMAND,
  cachedChartPath,
  cachedDigest,
  chartCacheDir,
  chartId,
  lockEntryFor,
  pendingEntryFor,
  pinnedCharts,
  readLock,
  type ChartLock,
  type ChartRef,
} from './charts.ts';

export type { PullOptions, PullOutcome, Pruned };

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
  /** The cached archive, when it is the bytes the lock records; otherwise why not, in the words a person acts on. */
  verify(ref: ChartRef, lock: ChartLock): { path: string; digest: string } | Unverified;
  /** Every chart the repository pins pulled into the cache and held to the lock, with every remote base: the lock to write. */
  pull(repo: Repo, o: PullOptions): Promise<PullOutcome>;
  /** The charts the repository pins that are not in the cache. */
  missing(repo: Repo): ChartRef[];
  /** Every archive and unpacking the lock in this checkout does not pin taken out of the cache (chart-prune.ts). */
  prune(root: string): Pruned;
}

export function chartCache(env: NodeJS.ProcessEnv = process.env): ChartCache {
  const path = (ref: ChartRef) => cachedChartPath(ref, env);
  return {
    dir: chartCacheDir(env),
    path,
    verify(ref, lock) {
      const digest = cachedDigest(ref, env);
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
    pull: (repo, o) => pullInto(repo, o, env),
    missing: (repo) => pinnedCharts(repo).filter((ref) => !existsSync(path(ref))),
    prune: (root) => pruneChartCache(env, readLock(root)),
  };
}
