/**
 * npm run diff -- <base-ref> [<head-ref>]: what a change does to the
 * cluster. Both refs are rendered with the gate's render tier (the base, and
 * a head ref, from a git worktree; no head ref means the working tree), then
 * compared per Application and per resource, with the risky changes flagged.
 * An Application that cannot be rendered on a side is listed as not judged,
 * with its cause; the rest is always reported.
 * Exit status: 0 nothing to review, 3 a risk to review, 2 a usage error, 1 an error, or an Application
 * that could not be rendered although its inputs changed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { $ } from 'zx';
import { frontDoor } from '../lib/front-door.ts';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import type { Snapshot } from './changes.ts';

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
    throw new UsageError(
      `no such ref "${ref}": ${String((err as { stderr?: string }).stderr ?? err)
        .trim()
        .split('\n')
        .pop()}`,
    );
  }
}

async function remove(root: string, tree: Worktree): Promise<void> {
  await $({ cwd: root, quiet: true, nothrow: true })`git worktree remove --force ${tree.dir}`;
  rmSync(tree.parent, { recursive: true, force: true });
}

/** Both refs' snapshots, each from its own worktree (the head's is the working tree when no head ref is given), removed after. */
async function snapshots(root: string, baseRef: string, headRef: string | undefined, env: NodeJS.ProcessEnv): Promise<{ base: Snapshot; head: Snapshot }> {
  const { snapshot } = await frontDoor();
  const baseTree = await checkout(root, baseRef);
  // The head's checkout (git writing files) runs while the base renders (this process computing).
  const headTree = headRef ? checkout(root, headRef) : undefined;
  headTree?.catch(() => undefined);
  try {
    // A chart that reads the API versions is rendered again with the built-in ones only where its inputs changed.
    const base = await snapshot(baseTree.dir, env, { judgeApis: () => false });
    const changed = { judgeApis: (app: string, fingerprint: string) => base.fingerprints?.get(app) !== fingerprint };
    const head = await snapshot(headTree ? (await headTree).dir : root, env, { ...changed, base });
    return { base, head };
  } finally {
    await remove(root, baseTree);
    const made = await headTree?.catch(() => undefined);
    if (made) await remove(root, made);
  }
}

const HELP = `Renders both refs with the gate's render tier and compares what each Application
applies, resource by resource: added, removed, changed fields with old and new
values. Helm's checksum annotations, chart-version labels and key order are
noise and stripped, and a Secret's values are never shown, only whether they
changed. The report opens with a plan (per Application: created, updated,
deleted, replaced, refused), then the updates the cluster refuses (an
immutable field, a claim that cannot grow, a CRD transition rule: judged as
the API server judges an update of the base's object, and as Argo CD's sync
writes it), then the risks, most severe first: RBAC that grows (what is added
and removed), deletes under prune, objects the sync deletes and creates
(Force=true), a Talos or Kubernetes move of the cluster facts (judged as talosctl
judges it: one Kubernetes minor at a time), CRD versions removed, what an ExternalSecret writes, images from
another registry or publisher, a chart's repoURL moved, image and chart
versions (majors named). An Application that cannot be rendered on a side
is listed as not judged, with its cause.

  -o FORMAT            text (default), markdown (a PR comment, kept under
                       GitHub's limit: past it, the plan and every risk stay
                       and the per-resource changes fold into the full report)
                       or json
  --output-file FILE   write the report there instead of stdout
  --full-report DIR    also write the whole report, never cut, as
                       DIR/rendered-diff.md, DIR/rendered-diff.html and
                       DIR/rendered-diff.json (one run, every format)
  --artifact-url URL   where the full report will be (the comment links it)
  --versions-expected  accepted for the workflows that pass it: a version
                       change inside its major is a note for every pull
                       request now, never a risk to review

Risks come in three kinds: refused (the API server refuses the update, so
Argo CD's sync fails at the object), review (a person must look: RBAC grows,
privilege is added, reach widens, a delete under prune, an object the sync
replaces, an immutable field the diff cannot judge, a registry or repository
moves, a major version, a CRD version removed, a chart reading the API
versions changed, a Talos or
Kubernetes minor or a path talosctl refuses) and note (news only: a version
inside its major, a patch of the cluster's versions, a policy that only
narrows).

Exit status, distinct as argocd app diff's are: 0 nothing to review; 3 a
risk to review; 4 an update the cluster refuses; 2 a usage error; 1 an error,
or an Application that could not
be rendered although its inputs changed (the rest is still reported).

Environment: HOMELAB_REPO_ROOT (the repository, default this checkout),
HOMELAB_CACHE_DIR (the render and chart cache), HTTPS_PROXY, HTTP_PROXY,
NO_PROXY, SSL_CERT_FILE (to fetch a pinned remote base).`;

/** The exit status of a diff that flags a risk: apart from a failure (1) and a usage error (2). */
export const RISK_FLAGGED = 3;
/** The exit status of a diff with an update the cluster refuses: Argo CD's sync would fail at it. */
export const REFUSED = 4;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = (t: string) => (io ? io.stdout(t) : process.stdout.write(t));
  return runCommand(
    {
      name: 'diff',
      usage: 'diff <base-ref> [<head-ref>] [-o text|markdown|json] [--output-file FILE] [--full-report DIR] [--artifact-url URL] [--versions-expected]',
      help: HELP,
      options: {
        output: { type: 'string', short: 'o', default: 'text' },
        'output-file': { type: 'string' },
        'full-report': { type: 'string' },
        'artifact-url': { type: 'string' },
        'versions-expected': { type: 'boolean', default: false },
      },
      positionals: { min: 1, max: 2 },
      async run({ values, positionals }) {
        const format = String(values.output);
        if (!['text', 'markdown', 'json'].includes(format)) throw new UsageError(`-o must be text, markdown or json, got "${format}"`);
        // The gate and the comparison, loaded past the command's contract: --help and a wrong argument answer without them.
        const [
          { REPO_ROOT },
          { compare, isRefused, needsPerson, notJudged, risks, without },
          { heldBack },
          { chartBumps },
          { htmlPage, json, markdown, text },
        ] = await Promise.all([frontDoor(), import('./changes.ts'), import('./held-back.ts'), import('./chart-bumps.ts'), import('./report.ts')]);
        const root = env.HOMELAB_REPO_ROOT ?? REPO_ROOT;
        const [baseRef, headRef] = positionals as [string, string | undefined];
        const { base, head } = await snapshots(root, baseRef, headRef, env);
        // An Application one side cannot render is judged on neither: its objects leave both snapshots.
        const unjudged = notJudged(base, head);
        const skip = new Set(unjudged.map((n) => n.app));
        const [b, h] = [without(base, skip), without(head, skip)];
        const changes = compare(b, h);
        const flagged = risks(changes, b, h);
        const data = { changes, risks: flagged, notJudged: unjudged, chartBumps: chartBumps(b, h), heldBack: heldBack(changes, b, h) };
        const artifact = values['artifact-url'] === undefined ? undefined : String(values['artifact-url']);
        const report = format === 'json' ? json(data) : format === 'markdown' ? markdown(data, undefined, artifact) : text(data);
        if (values['output-file']) writeFileSync(String(values['output-file']), `${report}\n`);
        else out(`${report}\n`);
        if (values['full-report']) {
          const dir = String(values['full-report']);
          mkdirSync(dir, { recursive: true });
          writeFileSync(join(dir, 'rendered-diff.md'), `${markdown(data, Infinity)}\n`);
          writeFileSync(join(dir, 'rendered-diff.html'), htmlPage(data));
          writeFileSync(join(dir, 'rendered-diff.json'), `${json(data)}\n`);
        }
        if (unjudged.some((n) => n.inputsChanged)) return 1;
        if (flagged.some(isRefused)) return REFUSED;
        // Only what a person must review sets the status; a note is news (a version inside its major, a narrowing policy).
        return flagged.some(needsPerson) ? RISK_FLAGGED : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
