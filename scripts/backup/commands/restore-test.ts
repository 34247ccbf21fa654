/**
 * npm run restore-test -- [target...]   (every declared target by default)
 * The monthly drill. One line per target, `PASS <target>` or
 * `FAIL <target>: <why>`; exit 1 when any fails. Run as the restore-test
 * CronJob, that exit status is what the RestoreTestFailed alert reads
 * (kube_cronjob_status_last_successful_time of the CronJob `restore-test`).
 */
import { main, optionsFromEnv, REPO_ROOT } from '../cli.ts';
import { restoreTest } from '../restore.ts';
import { loadTargets } from '../../../policy-tests/model/backup-targets.ts';

await main('restore-test', async () => {
  const targets = loadTargets(REPO_ROOT);
  const names = process.argv.slice(2).length ? process.argv.slice(2) : [...targets.keys()];
  const options = optionsFromEnv();
  let failed = 0;
  for (const name of names) {
    const target = targets.get(name);
    const problems = target ? await restoreTest(target, options) : [`${name}: unknown target`];
    process.stdout.write(problems.length ? `FAIL ${problems[0]}\n` : `PASS ${name}\n`);
    if (problems.length) failed++;
  }
  return failed ? 1 : 0;
});
