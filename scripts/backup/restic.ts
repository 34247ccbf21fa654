/** Off-site copies in a restic repository (RESTIC_REPOSITORY / RESTIC_PASSWORD from the environment). */
import { run } from './exec.ts';

/** restic reads --time in the local zone; it runs in UTC so the snapshot time is the backup's own. */
const utc = (env: NodeJS.ProcessEnv) => ({ ...env, TZ: 'UTC' });

export async function resticBackup(path: string, target: string, env: NodeJS.ProcessEnv, time = new Date()): Promise<void> {
  const at = time.toISOString().replace('T', ' ').slice(0, 19);
  await run('restic', ['backup', '--quiet', '--tag', `target=${target}`, '--time', at, path], { env: utc(env) });
}

/**
 * Applies the retention to the target's snapshots and frees their data.
 * Grouped by tag: every backup is a different folder, and restic's default
 * grouping by path would make each snapshot the newest of its own group.
 */
export async function resticForget(target: string, env: NodeJS.ProcessEnv, days: number): Promise<void> {
  await run('restic', ['forget', '--quiet', '--tag', `target=${target}`, '--group-by', 'tags', '--keep-within', `${days}d`, '--prune'], { env: utc(env) });
}

/** Paths of the snapshots tagged for `target`. */
export async function resticPaths(target: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out = await run('restic', ['snapshots', '--json', '--tag', `target=${target}`], { env });
  return ((JSON.parse(out) ?? []) as { paths: string[] }[]).flatMap((s) => s.paths);
}
