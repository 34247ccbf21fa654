/**
 * Off-site copies in restic. RESTIC_REPOSITORY is a base: each target has its
 * own repository under it (<base>/<target>), so a lock left by a killed run
 * stops only that target, never the others (they shared one repository, and a
 * killed pod's lock failed every backup for 30 minutes).
 */
import { run } from '../lib/exec.ts';

/** The repository of one target under the configured base. */
export const targetRepository = (env: NodeJS.ProcessEnv, target: string) => `${(env.RESTIC_REPOSITORY ?? '').replace(/\/+$/, '')}/${target}`;

/** restic reads --time in the local zone; it runs in UTC so the snapshot time is the backup's own. */
const envFor = (env: NodeJS.ProcessEnv, target: string) => ({ ...env, RESTIC_REPOSITORY: targetRepository(env, target), TZ: 'UTC' });

/**
 * Removes the target repository's stale locks: restic removes only locks
 * older than 30 minutes or held by a process of this host that is gone, never
 * one a live run holds.
 */
export async function resticUnlock(target: string, env: NodeJS.ProcessEnv): Promise<void> {
  await run('restic', ['unlock', '--quiet'], { env: envFor(env, target) });
}

export async function resticBackup(path: string, target: string, env: NodeJS.ProcessEnv, time = new Date()): Promise<void> {
  const at = time.toISOString().replace('T', ' ').slice(0, 19);
  // What restic gets is already zstd-compressed (the published backup): compressing it again costs CPU and saves nothing.
  await run('restic', ['backup', '--quiet', '--compression', 'off', '--tag', `target=${target}`, '--time', at, path], { env: envFor(env, target) });
}

/**
 * Applies the retention to the target's snapshots and frees their data.
 * Grouped by tag: every backup is a different folder, and restic's default
 * grouping by path would make each snapshot the newest of its own group.
 */
export async function resticForget(target: string, env: NodeJS.ProcessEnv, days: number): Promise<void> {
  await run('restic', ['forget', '--quiet', '--tag', `target=${target}`, '--group-by', 'tags', '--keep-within', `${days}d`, '--prune'], {
    env: envFor(env, target),
  });
}

/** Paths of the snapshots tagged for `target`. */
export async function resticPaths(target: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await run('restic', ['snapshots', '--json', '--tag', `target=${target}`], { env: envFor(env, target) });
  return ((JSON.parse(out) ?? []) as { paths: string[] }[]).flatMap((s) => s.paths);
}
