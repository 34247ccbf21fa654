/**
 * The arguments of the API's own entry points (the server, the status writer), which take none: --help prints
 * what they read and exits 0 without starting; anything else is one line and exit 2, as every script of the
 * repository behaves. Standalone, because the production image holds only the API.
 */
export function entryArgs(name: string, help: string, argv: readonly string[] = process.argv.slice(2)): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`usage: ${name}\n\n${help.trim()}\n`);
    process.exit(0);
  }
  if (argv.length > 0) {
    process.stderr.write(`${name}: unexpected argument "${argv[0]}" (usage: ${name}; configuration comes from the environment, see --help)\n`);
    process.exit(2);
  }
}
