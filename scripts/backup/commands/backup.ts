/**
 * npm run backup -- <target>
 * Env: BACKUP_DIR, RESTIC_REPOSITORY, RESTIC_PASSWORD; BACKUP_SOURCE_ROOT when
 * not run inside the app's pod; PGHOST/PGPORT/PGUSER/PGPASSWORD for PostgreSQL
 * targets; TALOS_NODE for etcd.
 */
import { main, optionsFromEnv, REPO_ROOT } from '../cli.ts';
import { runBackup } from '../run.ts';
import { loadTarget } from '../../../policy-tests/model/backup-targets.ts';

const [name] = process.argv.slice(2);
await main(`backup ${name ?? ''}`.trim(), async () => {
  if (!name) throw new Error('usage: backup <target>');
  const { path, pruned } = await runBackup(loadTarget(REPO_ROOT, name), optionsFromEnv());
  process.stdout.write(`backup ${name}: ${path}${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}\n`);
  return 0;
});
