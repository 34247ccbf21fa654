/**
 * npm run diff -- <base-ref> [<head-ref>]: what a change does to the
 * cluster. Both refs are rendered with the gate's render tier (the base, and
 * a head ref, from a git worktree; no head ref means the working tree), then
 * compared per Application and per resource, with the risky changes flagged.
 * Exit status: 0 no risk, 2 a risk is flagged, 1 an error (a render failure
 * on either side included).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { $ } from 'zx';
import { REPO_ROOT } from '../../policy-tests/model/repo.ts';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { compare, needsPerson, risks, type Snapshot } from './changes.ts';
import { json, markdown, text } from './report.ts';
import { snapshot } from './snapshot.ts';

interface Worktree {
  parent: string;
  dir: string;
}

/** Checks out `ref` into a throwaway worktree; a ref git does not know is a usage error. */
async function checkout(root: string, ref: string): Promise<Worktree> {
  const parent = mkdtempSync(join(tmpdir(), 'homelab-diff-'));
  const dir = join(parent, 'tree');
  try {
    await $({ cwd: root, quiet: true })`git worktree add --detach ${dir} ${ref}`;
    return { parent, dir };
  } catch (err) {
    rmSync(parent, { recursive: true, force: true });
    throw new UsageError(`no such ref "${ref}": ${String((err as { stderr?: string }).stderr ?? err).trim().split('\n').pop()}`);
  }
}

async function remove(root: string, tree: Worktree): Promise<void> {
  await $({ cwd: root, quiet: true, nothrow: true })`git worktree remove --force ${tree.dir}`;
  rmSync(tree.parent, { recursive: true, force: true });
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = (t: string) => (io ? io.stdout(t) : process.stdout.write(t));
  return runCommand(
    {
      name: 'diff',
      usage: 'diff <base-ref> [<head-ref>] [-o text|markdown|json] [--output-file FILE] [--versions-expected]',
      help: `Renders both refs with the gate's render tier and compares what each Application
applies, resource by resource: added, removed, changed fields with old and new
values. Helm's checksum annotations, chart-version labels and key order are
noise and stripped. Risks are flagged with their reason: deletes under prune,
immutable fields, RBAC that grows, image and chart versions (majors named),
what an ExternalSecret writes, CRD versions removed.

  -o FORMAT            text (default), markdown (a PR comment, at most 60 KB) or json
  --output-file FILE   write the report there instead of stdout
  --versions-expected  a version change that moves no major does not make the
                       exit status 2 (it is still reported): for an update
                       bot's pull request, where the version is the point

Exit status: 0 no risk, 2 a risk is flagged, 1 an error.`,
      options: { output: { type: 'string', short: 'o', default: 'text' }, 'output-file': { type: 'string' }, 'versions-expected': { type: 'boolean', default: false } },
      positionals: { min: 1, max: 2 },
      async run({ values, positionals }) {
        const format = String(values.output);
        if (!['text', 'markdown', 'json'].includes(format)) throw new UsageError(`-o must be text, markdown or json, got "${format}"`);
        const root = env.HOMELAB_REPO_ROOT ?? REPO_ROOT;
        const [baseRef, headRef] = positionals as [string, string | undefined];
        const baseTree = await checkout(root, baseRef);
        // The head's checkout (git writing files) runs while the base renders (this process computing).
        const headTree = headRef ? checkout(root, headRef) : undefined;
        headTree?.catch(() => undefined);
        let base: Snapshot, head: Snapshot;
        try {
          base = await snapshot(baseTree.dir, env, baseRef);
          head = headTree ? await snapshot((await headTree).dir, env, headRef) : await snapshot(root, env, 'the working tree');
        } finally {
          await remove(root, baseTree);
          const made = await headTree?.catch(() => undefined);
          if (made) await remove(root, made);
        }
        const changes = compare(base, head);
        const flagged = risks(changes, base, head);
        const report = format === 'json' ? json(changes, flagged) : format === 'markdown' ? markdown(changes, flagged) : text(changes, flagged);
        if (values['output-file']) writeFileSync(String(values['output-file']), `${report}\n`);
        else out(`${report}\n`);
        const counted = values['versions-expected'] === true ? flagged.filter(needsPerson) : flagged;
        return counted.length ? 2 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
