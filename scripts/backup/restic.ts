/** Off-site copies in a restic repository (RESTIC_REPOSITORY / RESTIC_PASSWORD from the environment). */
import { execFileSync } from 'node:child_process';

export function resticBackup(path: string, target: string, env: NodeJS.ProcessEnv): void {
  execFileSync('restic', ['backup', '--quiet', '--tag', `target=${target}`, path], { env, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Paths of the snapshots tagged for `target`. */
export function resticPaths(target: string, env: NodeJS.ProcessEnv): string[] {
  const out = execFileSync('restic', ['snapshots', '--json', '--tag', `target=${target}`], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return ((JSON.parse(out) ?? []) as { paths: string[] }[]).flatMap((s) => s.paths);
}
