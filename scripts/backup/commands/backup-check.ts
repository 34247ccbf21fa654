/**
 * npm run backup-check -- <target>
 * Exit 0 when the newest backup is younger than 26 h, matches its checksums,
 * passes the engine's integrity check and is in restic; otherwise 1 with one
 * clear line.
 */
import { main, optionsFromEnv, REPO_ROOT } from '../cli.ts';
import { checkBackup } from '../run.ts';
import { loadTarget } from '../../../policy-tests/model/backup-targets.ts';

const [name] = process.argv.slice(2);
await main(`backup-check ${name ?? ''}`.trim(), async () => {
  if (!name) throw new Error('usage: backup-check <target>');
  const problems = await checkBackup(loadTarget(REPO_ROOT, name), optionsFromEnv());
  process.stdout.write(problems.length ? `backup-check ${problems[0]}\n` : `backup-check ${name}: ok\n`);
  return problems.length ? 1 : 0;
});
