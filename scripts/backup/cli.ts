/** What the four backup commands share: the repository root, options from the environment, and one-line failures. */
import { oneLine } from './exec.ts';
import type { BackupOptions } from './run.ts';

/** The repository root (or, in the backup image, the folder holding the bundled scripts' targets files). */
export const REPO_ROOT = new URL(process.env.BACKUP_REPO_ROOT ? `file://${process.env.BACKUP_REPO_ROOT}/` : '../..', import.meta.url).pathname;

export function optionsFromEnv(env = process.env): BackupOptions {
  if (!env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set: where the backups live');
  return { backupDir: env.BACKUP_DIR, sourceRoot: env.BACKUP_SOURCE_ROOT, env };
}

/** Runs a command's body; any error becomes one line on stderr and exit status 1. */
export async function main(command: string, body: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await body();
  } catch (err) {
    process.stderr.write(`${command}: ${oneLine(err)}\n`);
    process.exitCode = 1;
  }
}
