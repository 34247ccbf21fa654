/**
 * The backup image's entry point: `<command> [args]`, where command is backup,
 * backup-check, restore or restore-test; the same commands npm runs from a checkout.
 */
const COMMANDS: Record<string, () => Promise<unknown>> = {
  backup: () => import('./commands/backup.ts'),
  'backup-check': () => import('./commands/backup-check.ts'),
  restore: () => import('./commands/restore.ts'),
  'restore-test': () => import('./commands/restore-test.ts'),
};

const [command] = process.argv.splice(2, 1);
const load = command ? COMMANDS[command] : undefined;
if (!load) {
  process.stderr.write(`usage: <${Object.keys(COMMANDS).join('|')}> [args]\n`);
  process.exitCode = 2;
} else {
  await load();
}
