/** What the four backup commands share: the repository root, options from the environment, and their names in errors. */
import type { Target } from './engines/types.ts';
import { UsageError } from '../lib/command.ts';
import type { BackupOptions } from './run.ts';

/** The repository root (or, in the backup image, the folder holding the bundled scripts' targets files). */
export const REPO_ROOT = new URL(process.env.BACKUP_REPO_ROOT ? `file://${process.env.BACKUP_REPO_ROOT}/` : '../..', import.meta.url).pathname;

export function optionsFromEnv(env = process.env): BackupOptions {
  if (!env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set: where the backups live');
  return { backupDir: env.BACKUP_DIR, sourceRoot: env.BACKUP_SOURCE_ROOT, env };
}

/** "backup sonarr": the command and its target, so a line in a job log says which target failed. */
export const nameWithTarget = (command: string, argv: readonly string[]) => {
  const target = argv.find((a) => !a.startsWith('-'));
  return target ? `${command} ${target}` : command;
};

export const ENV_HELP = `Environment: BACKUP_DIR (where the backups live); BACKUP_MANIFEST_KEY or
BACKUP_MANIFEST_KEY_FILE (the key that signs and verifies each manifest;
required); RESTIC_REPOSITORY and RESTIC_PASSWORD or RESTIC_PASSWORD_FILE (the
off-site copy); BACKUP_SOURCE_ROOT (prefix of the SQLite paths when not run in
the app's pod); PGHOST, PGPORT, PGUSER, PGPASSWORD (PostgreSQL targets);
TALOS_NODE, TALOSCONFIG (etcd); KUBECTL (the kubectl a restore scales the app
with); RESTORE_OUT_DIR (where an etcd restore writes its snapshot); BACKUP_REPO_ROOT (where
the backup-targets files are, in the image).`;

/** The declared targets by name, the gate's model loaded when a command runs (targets.ts): --help answers without it. */
export async function declaredTargets(): Promise<Map<string, Target>> {
  return (await import('./targets.ts')).loadDeclaredTargets(REPO_ROOT);
}

/** The declared target `name`; an unknown name is a wrong argument (exit 2), naming the declared ones. */
export async function targetNamed(name: string): Promise<Target> {
  const targets = await declaredTargets();
  const target = targets.get(name);
  if (!target) throw new UsageError(`unknown target "${name}"; declared: ${[...targets.keys()].join(', ')}`);
  return target;
}
