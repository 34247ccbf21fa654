/**
 * npm run restore-test -- [target...]   (every declared target by default)
 * The monthly drill. One line per target, `PASS <target>` or
 * `FAIL <target>: <why>`; exit 1 when any fails. Run as the restore-test
 * CronJob, that exit status is what the RestoreTestFailed alert reads
 * (kube_cronjob_status_last_successful_time of the CronJob `restore-test`).
 */
import { runCommand, UsageError } from '../../lib/command.ts';
import { declaredTargets, ENV_HELP, optionsFromEnv } from '../cli.ts';
import { restoreTest } from '../restore.ts';

const argv = process.argv.slice(2);
process.exitCode = await runCommand(
  {
    name: 'restore-test',
    usage: 'restore-test [target...]',
    help: `The monthly drill: restores the newest backup of each target (every declared
target by default) into scratch space and checks it carries the sentinel the
backup wrote. One line per target, PASS or FAIL; exit 1 when any fails.

${ENV_HELP}`,
    options: {},
    positionals: { min: 0, max: Infinity },
    async run({ positionals }) {
      const targets = await declaredTargets();
      const unknown = positionals.filter((n) => !targets.has(n));
      if (unknown.length) throw new UsageError(`unknown target ${unknown.join(', ')}; declared: ${[...targets.keys()].join(', ')}`);
      const names = positionals.length ? positionals : [...targets.keys()];
      const options = optionsFromEnv();
      let failed = 0;
      for (const name of names) {
        const problems = await restoreTest(targets.get(name)!, options);
        process.stdout.write(problems.length ? `FAIL ${problems[0]}\n` : `PASS ${name}\n`);
        if (problems.length) failed++;
      }
      return failed ? 1 : 0;
    },
  },
  argv,
);
