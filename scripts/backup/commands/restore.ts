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
import { runCommand } from '../../lib/command.ts';
import { ENV_HELP, nameWithTarget, optionsFromEnv, targetNamed } from '../cli.ts';
import { kubectlScaler, restore } from '../restore.ts';
import { RETENTION_DAYS } from '../store.ts';

const argv = process.argv.slice(2);
process.exitCode = await runCommand(
  {
    name: nameWithTarget('restore', argv),
    usage: 'restore <target> [--from latest|<backup name or ISO time>] [--dry-run] [--app-stopped]',
    help: `Verifies the chosen backup and refuses a corrupt one (live data untouched),
scales the app to zero, swaps the data in atomically keeping an undo copy, and
scales the app back. --app-stopped: the operator stopped the app already
(a restore run in a pod that mounts the volume, without kubectl).

${ENV_HELP}`,
    options: {
      from: { type: 'string', default: 'latest' },
      'dry-run': { type: 'boolean', default: false },
      'app-stopped': { type: 'boolean', default: false },
    },
    positionals: { min: 1, max: 1 },
    async run({ values, positionals: [name] }) {
      const target = await targetNamed(name!);
      const say = (line: string) => process.stdout.write(`restore ${name}: ${line}\n`);
      const dryRun = values['dry-run'] === true;
      const result = await restore(target, {
        ...optionsFromEnv(),
        from: String(values.from),
        dryRun,
        scaler: values['app-stopped'] ? undefined : kubectlScaler(target),
        log: say,
      });
      say(dryRun ? `dry run of ${result.backup}, nothing changed` : `restored ${result.backup} (${result.replaced.join(', ')})`);
      if (result.undo.length) say(`undo copies, kept ${RETENTION_DAYS} days: ${result.undo.join(', ')}`);
      return 0;
    },
  },
  argv,
);
