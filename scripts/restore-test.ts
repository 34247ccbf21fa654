/**
 * npm run restore-test -- [target...]   (all SQLite targets by default)
 * The monthly drill. One line per target, PASS or FAIL; exit 1 when any
 * fails. Run as the restore-test CronJob, its exit status is what the
 * RestoreTestFailed alert reads (kube_cronjob_status_last_successful_time).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { restoreTest } from './backup/restore.ts';
import { loadTarget, TARGETS_FILE } from './backup/run.ts';

const root = new URL('..', import.meta.url).pathname;
const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys((parse(readFileSync(join(root, TARGETS_FILE), 'utf8')) as { targets: object }).targets);
let failed = 0;
for (const name of names) {
  try {
    if (!process.env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set');
    const problems = restoreTest(loadTarget(root, name), { backupDir: process.env.BACKUP_DIR, sourceRoot: process.env.BACKUP_SOURCE_ROOT, env: process.env });
    process.stdout.write(problems.length ? `FAIL ${problems[0]}\n` : `PASS ${name}\n`);
    failed += problems.length ? 1 : 0;
  } catch (err) {
    process.stdout.write(`FAIL ${name}: ${(err as Error).message.split('\n')[0]}\n`);
    failed++;
  }
}
process.exitCode = failed ? 1 : 0;
