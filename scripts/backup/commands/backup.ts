/** npm run backup -- <target>: one consistent, verified, compressed copy, published locally and copied off-site. */
import { runCommand } from '../../lib/command.ts';
import { ENV_HELP, nameWithTarget, optionsFromEnv, targetNamed } from '../cli.ts';
import { runBackup } from '../run.ts';

const argv = process.argv.slice(2);
process.exitCode = await runCommand(
  {
    name: nameWithTarget('backup', argv),
    usage: 'backup <target>',
    help: `Takes a consistent copy of one declared target (SQLite, PostgreSQL or etcd),
verifies it, publishes it under BACKUP_DIR/<target>/<UTC time>, and copies it
into restic; then applies the 14-day retention to both.
Exit 0 when both copies are made, 1 with one line when anything fails.

${ENV_HELP}`,
    options: {},
    positionals: { min: 1, max: 1 },
    async run({ positionals: [name] }) {
      const { path, pruned } = await runBackup(await targetNamed(name!), optionsFromEnv());
      process.stdout.write(`backup ${name}: ${path}${pruned.length ? `; pruned ${pruned.join(', ')}` : ''}\n`);
      return 0;
    },
  },
  argv,
);
