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

/** One target's off-site repository, bound to its name and the environment that reaches it. */
export interface ResticTarget {
  /** The repository's address: the configured base and the target's name. */
  readonly repository: string;
  /**
   * Removes the repository's stale locks: restic removes only locks older than 30 minutes or held by a process of
   * this host that is gone, never one a live run holds.
   */
  unlock(): Promise<void>;
  /** Backs up a published backup folder as a snapshot taken at `time`, tagged with the target. */
  backup(path: string, time: Date): Promise<void>;
  /**
   * Applies the retention to the target's snapshots and frees their data. Grouped by tag: every backup is a
   * different folder, and restic's default grouping by path would make each snapshot the newest of its own group.
   */
  forget(days: number): Promise<void>;
  /** Paths of the snapshots tagged for the target. */
  paths(): Promise<string[]>;
}

export function resticTarget(target: string, env: NodeJS.ProcessEnv): ResticTarget {
  const o = { env: envFor(env, target) };
  const tag = `target=${target}`;
  return {
    repository: targetRepository(env, target),
    unlock: async () => void (await run('restic', ['unlock', '--quiet'], o)),
    async backup(path, time) {
      const at = time.toISOString().replace('T', ' ').slice(0, 19);
      // What restic gets is already zstd-compressed (the published backup): compressing it again costs CPU and saves nothing.
      await run('restic', ['backup', '--quiet', '--compression', 'off', '--tag', tag, '--time', at, path], o);
    },
    forget: async (days) => void (await run('restic', ['forget', '--quiet', '--tag', tag, '--group-by', 'tags', '--keep-within', `${days}d`, '--prune'], o)),
    async paths() {
      const out = await run('restic', ['snapshots', '--json', '--tag', tag], o);
      return ((JSON.parse(out) ?? []) as { paths: string[] }[]).flatMap((s) => s.paths);
    },
  };
}
