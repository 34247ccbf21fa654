/**
 * npm run restore -- <target> [--from latest|<backup name or ISO time>] [--dry-run]
 * Verifies the backup first and refuses a corrupt one (live data untouched),
 * scales the app to zero, swaps the data in with one rename (the replaced data
 * kept as *.pre-restore), and scales the app back.
 * Env: BACKUP_DIR; BACKUP_SOURCE_ROOT when not run where the volume is mounted; KUBECTL.
 */
import { parseArgs } from 'node:util';
import { kubectlScaler, restore } from './backup/restore.ts';
import { loadTarget } from './backup/run.ts';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: 'string', default: 'latest' }, 'dry-run': { type: 'boolean', default: false } } });
const [name] = positionals;
try {
  if (!name) throw new Error('usage: restore <target> [--from latest|<timestamp>] [--dry-run]');
  if (!process.env.BACKUP_DIR) throw new Error('BACKUP_DIR is not set');
  const target = loadTarget(new URL('..', import.meta.url).pathname, name);
  const result = restore(target, {
    backupDir: process.env.BACKUP_DIR,
    sourceRoot: process.env.BACKUP_SOURCE_ROOT,
    env: process.env,
    from: values.from,
    dryRun: values['dry-run'],
    scaler: kubectlScaler('media', name),
    log: (line) => process.stdout.write(`restore ${name}: ${line}\n`),
  });
  process.stdout.write(values['dry-run'] ? `restore ${name}: dry run of ${result.backup}, nothing changed\n` : `restore ${name}: restored ${result.backup} (${result.replaced.join(', ')})\n`);
} catch (err) {
  process.stderr.write(`restore ${name ?? ''}: ${(err as Error).message.split('\n')[0]}\n`);
  process.exitCode = 1;
}
