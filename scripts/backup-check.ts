/**
 * npm run backup-check -- <target>
 * Exit 0 when the newest backup is younger than 26 h, matches its checksums,
 * passes integrity_check and is in restic; otherwise 1 with one clear line.
 */
import { checkBackup, loadTarget } from './backup/run.ts';

const [name] = process.argv.slice(2);
try {
  if (!name) throw new Error('usage: backup-check <target>');
  if (!process.env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set');
  const problems = checkBackup(loadTarget(new URL('..', import.meta.url).pathname, name), { backupDir: process.env.BACKUP_DIR, env: process.env });
  process.stdout.write(problems.length ? `${problems[0]}\n` : `backup-check ${name}: ok\n`);
  process.exitCode = problems.length ? 1 : 0;
} catch (err) {
  process.stderr.write(`backup-check ${name ?? ''}: ${(err as Error).message.split('\n')[0]}\n`);
  process.exitCode = 1;
}
