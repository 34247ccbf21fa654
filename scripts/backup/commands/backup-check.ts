/** npm run backup-check -- <target>: is the newest backup sound? */
import { loadTarget } from '../../../policy-tests/model/backup-targets.ts';
import { runCommand } from '../../lib/command.ts';
import { ENV_HELP, nameWithTarget, optionsFromEnv, REPO_ROOT } from '../cli.ts';
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
      const problems = await checkBackup(loadTarget(REPO_ROOT, name!), optionsFromEnv());
      process.stdout.write(problems.length ? `backup-check ${problems[0]}\n` : `backup-check ${name}: ok\n`);
      return problems.length ? 1 : 0;
    },
  },
  argv,
);
