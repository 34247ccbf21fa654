/**
 * npm run restore -- <target> [--from latest|<backup name or ISO time>] [--dry-run] [--app-stopped]
 * Verifies the backup first and refuses a corrupt one (live data untouched),
 * scales the app to zero, swaps the data in atomically (the replaced data kept
 * as <db>.pre-restore-<UTC time>, or <db>_pre_restore_<UTC time>, one per
 * restore, kept for the retention), and scales the app back.
 * --app-stopped: the operator scaled the app to zero already and scales it
 * back afterwards (a restore run in a pod that mounts the volume, without kubectl).
 * Env: BACKUP_DIR; BACKUP_SOURCE_ROOT when not run where the volume is mounted;
 * KUBECTL; PG* for PostgreSQL targets; RESTORE_OUT_DIR for etcd.
 */
import { parseArgs } from 'node:util';
import { main, optionsFromEnv, REPO_ROOT } from '../cli.ts';
import { kubectlScaler, restore } from '../restore.ts';
import { RETENTION_DAYS } from '../store.ts';
import { loadTarget } from '../../../policy-tests/model/backup-targets.ts';

await main('restore', async () => {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: 'string', default: 'latest' }, 'dry-run': { type: 'boolean', default: false }, 'app-stopped': { type: 'boolean', default: false } } });
  const [name] = positionals;
  if (!name || positionals.length > 1) throw new Error('usage: restore <target> [--from latest|<timestamp>] [--dry-run] [--app-stopped]');
  const target = loadTarget(REPO_ROOT, name);
  const say = (line: string) => process.stdout.write(`restore ${name}: ${line}\n`);
  const result = await restore(target, { ...optionsFromEnv(), from: values.from, dryRun: values['dry-run'], scaler: values['app-stopped'] ? undefined : kubectlScaler(target), log: say });
  say(values['dry-run'] ? `dry run of ${result.backup}, nothing changed` : `restored ${result.backup} (${result.replaced.join(', ')})`);
  if (result.undo.length) say(`undo copies, kept ${RETENTION_DAYS} days: ${result.undo.join(', ')}`);
  return 0;
});
