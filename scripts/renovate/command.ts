/**
 * npm run renovate:check: Renovate's own validator on .github/renovate.json5
 * (--strict), then Renovate's own extraction of the repository, compared with
 * every pin the scanner finds. A pin no manager matches, and no exemption
 * explains, is one line with its file:line. Exit 0 when all is covered, 1 when
 * not (or when Renovate cannot run), 2 on a usage error.
 */

import { resolve } from 'node:path';
import { runCommand, type CommandIo } from '../lib/command.ts';
import { EXEMPTIONS_FILE } from './coverage.ts';
import { RENOVATE_CONFIG_FILE } from './renovate.ts';

const REPO_ROOT = new URL('../..', import.meta.url).pathname;

export async function main(argv: string[], io?: CommandIo): Promise<number> {
  const write = (line: string) => (io ? io.stdout(`${line}\n`) : process.stdout.write(`${line}\n`));
  return runCommand(
    {
      name: 'renovate:check',
      usage: 'renovate:check [--root DIR]',
      help: `Validates ${RENOVATE_CONFIG_FILE} with Renovate's own validator (--strict), runs
Renovate's own extraction on the repository (offline: --platform=local
--dry-run=extract), and checks that every pinned version string in the
repository is matched by a Renovate manager or exempted in ${EXEMPTIONS_FILE}
with its reason, that images released together (releasedWith in the
image facts) move in one pull request, and that every name a package rule
gives is a dependency Renovate extracts.

  --root DIR   the repository to check (default: this one)

Exit status: 0 when the config is valid and every pin is covered, 1 when not
(each problem is one line with its file:line), 2 on a usage error.`,
      options: { root: { type: 'string' } },
      positionals: { min: 0, max: 0 },
      // Progress goes to stderr, so the report on stdout stays what scripts read.
      // The gate and Renovate's runs, loaded past the command's contract: --help and a wrong argument answer without them.
      run: async ({ values }) =>
        (await import('./inspect.ts')).checkRenovate(resolve((values.root as string | undefined) ?? REPO_ROOT), write, (line) =>
          io ? io.stderr(`renovate:check: ${line}\n`) : process.stderr.write(`renovate:check: ${line}\n`),
        ),
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
