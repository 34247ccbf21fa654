/**
 * The external watchdog worker as the repository deploys it (monitoring/watchdog/): its wrangler configuration, the
 * limits it bundles, and the public sites it checks, read as the worker reads them (its `SITES` var, split on commas
 * and whitespace by monitoring/watchdog/src/config.ts).
 */
import { dig } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import type { DataFile, Repo } from '../repository/repo.ts';

export const WRANGLER_FILE = 'monitoring/watchdog/wrangler.toml';
/** The worker's limits as data: the worker bundles the same file (monitoring/watchdog/src/limits.ts). */
export const LIMITS_FILE = 'monitoring/watchdog/facts/limits.json';

const SITES_PATH: Path = ['vars', 'SITES'];

/** The URLs the worker checks, with where they are set; undefined when the configuration or its SITES var is missing. */
export function workerSites(repo: Repo): { file: DataFile; path: Path; urls: string[] } | undefined {
  const file = repo.dataFiles.get(WRANGLER_FILE);
  const sites = dig(file?.data, SITES_PATH);
  if (!file || typeof sites !== 'string') return undefined;
  return { file, path: SITES_PATH, urls: sites.split(/[\s,]+/).filter(Boolean) };
}
