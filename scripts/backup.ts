/**
 * npm run backup -- <target>
 * Env: BACKUP_DIR, RESTIC_REPOSITORY, RESTIC_PASSWORD; BACKUP_SOURCE_ROOT when not run inside the app's pod.
 */
import { loadTarget, runBackup } from './backup/run.ts';

const [name] = process.argv.slice(2);
try {
  if (!name) throw new Error('usage: backup <target>');
  if (!process.env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set');
  const { path, pruned } = runBackup(loadTarget(new URL('..', import.meta.url).pathname, name), { backupDir: process.env.BACKUP_DIR, sourceRoot: process.env.BACKUP_SOURCE_ROOT, env: process.env });
  process.stdout.write(`backup ${name}: ${path}${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}\n`);
} catch (err) {
  process.stderr.write(`backup ${name ?? ''}: ${(err as Error).message.split('\n')[0]}\n`);
  process.exitCode = 1;
}
