/** Off-site copies in a restic repository (RESTIC_REPOSITORY / RESTIC_PASSWORD from the environment). */
import { run } from './exec.ts';

export function resticBackup(path: string, target: string, env: NodeJS.ProcessEnv): void {
  run('restic', ['backup', '--quiet', '--tag', `target=${target}`, path], { env });
}

/** Paths of the snapshots tagged for `target`. */
export function resticPaths(target: string, env: NodeJS.ProcessEnv): string[] {
  const out = run('restic', ['snapshots', '--json', '--tag', `target=${target}`], { env });
  return ((JSON.parse(out) ?? []) as { paths: string[] }[]).flatMap((s) => s.paths);
}
