/**
 * The backup image's entry point: `<command> [args]`, where command is backup,
 * backup-check, restore or restore-test; the same commands npm runs from a checkout.
 */
import { quietWarnings } from '../quiet-warnings.mjs';

// As run.mjs does for npm's scripts: a tool killed at its time limit is one line, not zx's lookup's warning too.
quietWarnings();

const COMMANDS: Record<string, () => Promise<unknown>> = {
  backup: () => import('./commands/backup.ts'),
  'backup-check': () => import('./commands/backup-check.ts'),
  restore: () => import('./commands/restore.ts'),
  'restore-test': () => import('./commands/restore-test.ts'),
};

const USAGE = `usage: <${Object.keys(COMMANDS).join('|')}> [args]
  backup <target>          take a consistent copy, check it, publish it, copy it off-site
  backup-check <target>    check the newest backup: age, hash, contents
  restore <target>         put a verified backup back, keeping what it replaces
  restore-test <target>... the monthly drill
Each command takes --help.
`;

const [command] = process.argv.splice(2, 1);
const load = command ? COMMANDS[command] : undefined;
if (command === '--help' || command === '-h') process.stdout.write(USAGE);
else if (!load) {
  process.stderr.write(USAGE.split('\n')[0] + '\n');
  process.exitCode = 2;
} else {
  await load();
}
