/** npm run backup-check -- <target>: is the newest backup sound? */
import { runCommand } from '../../lib/command.ts';
import { ENV_HELP, nameWithTarget, optionsFromEnv, targetNamed } from '../cli.ts';
import { checkBackup } from '../run.ts';

const argv = process.argv.slice(2);
process.exitCode = await runCommand(
  {
    name: nameWithTarget('backup-check', argv),
    usage: 'backup-check <target>',
    help: `Exit 0 when the newest backup is younger than 26 h, matches its checksums,
passes the engine's integrity check and is in restic; otherwise 1 with one
clear line.

${ENV_HELP}`,
    options: {},
    positionals: { min: 1, max: 1 },
    async run({ positionals: [name] }) {
      const problems = await checkBackup(await targetNamed(name!), optionsFromEnv());
      process.stdout.write(problems.length ? `backup-check ${problems[0]}\n` : `backup-check ${name}: ok\n`);
      return problems.length ? 1 : 0;
    },
  },
  argv,
);
