/**
 * npm run fork -- --repo URL: makes this repository a fork's own. Every place
 * that names the repository (the cluster facts, the root app, every
 * Application, the projects' sourceRepos, docs and tests) is rewritten; what
 * only the fork's owner can decide (the images built from this repository,
 * the LAN addresses, the public and LAN host names) is listed with its
 * file:line; then the gate runs, through its front door, and its verdict is
 * the exit status.
 */
import { readFileSync } from 'node:fs';
import { checkoutWriteRefusal, writeInCheckout } from './lib/checkout-write.ts';
import { join } from 'node:path';
import { frontDoor } from './lib/front-door.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';

/** The images built from this repository's Dockerfiles. */
const BUILT_HERE = ['portfolio-api', 'homelab-backup'];

/** Where a fork has to decide for itself, and why. */
const DECISIONS: { what: string; pattern: () => RegExp; why: string }[] = [
  {
    what: 'image',
    // The images this repository builds (portfolio-api/Dockerfile, scripts/backup/Dockerfile), in whatever registry.
    pattern: () => new RegExp(`(?:[\\w-]+\\.[\\w.-]+|localhost)(?::\\d+)?/[\\w./-]*\\b(?:${BUILT_HERE.join('|')})(?::[\\w.-]+)?(?:@sha256:[0-9a-f]{64})?`, 'g'),
    why: 'built from this repository: build and push it to your registry, or keep using this one',
  },
  {
    what: 'LAN address',
    pattern: () => /\b(?:10|192\.168|172\.(?:1[6-9]|2\d|3[01]))(?:\.\d{1,3}){2,3}(?:\/\d{1,2})?(?:-(?:\d{1,3}\.){3}\d{1,3})?\b/g,
    why: "an address of this home's network: use your own",
  },
  {
    what: 'host name',
    pattern: () => /\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:example\.net|lan)\b/g,
    why: "a name of this home's: use your domain and your LAN's names",
  },
];

/** The folders a fork's cluster is described in: where the decisions are. */
const MANIFEST_DIRS = ['clusters/', 'apps/', 'monitoring/', 'security/', 'portfolio-api/deploy/'];

export interface ForkPlan {
  rewrites: { file: string; text: string; places: number }[];
  decisions: { file: string; line: number; what: string; value: string; why: string }[];
}

const bare = (url: string) => url.replace(/\.git$/, '').replace(/\/+$/, '');

/** What a fork to `repo` changes, and what it leaves to its owner, in the tracked files given. */
export function forkPlan(files: readonly { file: string; text: string }[], from: string, to: string): ForkPlan {
  const [fromGit, toGit, fromBare, toBare] = [`${bare(from)}.git`, `${bare(to)}.git`, bare(from), bare(to)];
  const plan: ForkPlan = { rewrites: [], decisions: [] };
  for (const { file, text } of files) {
    const places = text.split(fromBare).length - 1;
    if (places > 0) plan.rewrites.push({ file, text: text.replaceAll(fromGit, toGit).replaceAll(fromBare, toBare), places });
    // The cluster's description only: manifests, values, Dockerfiles and the watchdog's config, not docs or tests.
    if (!MANIFEST_DIRS.some((d) => file.startsWith(d)) || file.includes('/test') || !/(\.ya?ml|\.toml|Dockerfile)$/.test(file)) continue;
    text.split('\n').forEach((line, i) => {
      if (line.trimStart().startsWith('#')) return;
      for (const d of DECISIONS) for (const m of line.matchAll(d.pattern())) plan.decisions.push({ file, line: i + 1, what: d.what, value: m[0], why: d.why });
    });
  }
  return plan;
}

function checkedURL(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--repo ${url}: not a URL; give the fork's clone URL, such as https://github.com/alice/lab.git`);
  }
  if (!['https:', 'http:', 'ssh:'].includes(parsed.protocol) || parsed.pathname.split('/').filter(Boolean).length < 2)
    throw new UsageError(`--repo ${url}: expected https://host/owner/name(.git)`);
  return url;
}

export function forkCommand(argv: string[], io?: CommandIo): Promise<number> {
  const print = io?.stdout ?? ((t: string) => void process.stdout.write(t));
  return runCommand(
    {
      name: 'fork',
      usage: 'fork --repo <clone URL> [--dry-run] [--root DIR]',
      help: `Makes this repository a fork's own: rewrites every place that names the
repository (the cluster facts' repoURL, the root app, every Application, the
projects' sourceRepos, docs and tests), lists with file:line what only you can
decide (images built from this repository, LAN addresses, host names), then
runs the gate.
  --repo URL    the fork's clone URL, e.g. https://github.com/alice/lab.git
  --dry-run     print what would change; write nothing, run no gate
  --root DIR    the checkout to change (default: this one)
Exit status: 0 when the gate passes after the rewrite, 1 when it does not (or a
file cannot be written), 2 on a usage error. Reads no environment variables.`,
      options: { repo: { type: 'string' }, 'dry-run': { type: 'boolean', default: false }, root: { type: 'string' } },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        if (!values.repo) throw new UsageError('--repo <clone URL> is required');
        const to = checkedURL(String(values.repo));
        const { REPO_ROOT, allFindings, renderReport, runGate, facts } = await frontDoor();
        const root = (values.root as string | undefined) ?? REPO_ROOT;
        const from = facts.factsRepoURL(root);
        if (facts.normalizeRepoURL(from) === facts.normalizeRepoURL(to)) throw new UsageError(`--repo ${to}: this checkout already names it`);
        // git's tracked and unignored files, or a walk outside git; binary files are left alone.
        const files = (await facts.checkoutPaths(root)).paths.flatMap((file) => {
          let text: string;
          try {
            text = readFileSync(join(root, file), 'utf8');
          } catch {
            return []; // listed by git, deleted in the work tree
          }
          return text.includes('\0') ? [] : [{ file, text }];
        });
        const plan = forkPlan(files, from, to);
        for (const r of plan.rewrites) print(`${values['dry-run'] ? 'would rewrite' : 'rewrote'} ${r.file} (${r.places} place${r.places === 1 ? '' : 's'})\n`);
        for (const d of plan.decisions) print(`DECIDE ${d.file}:${d.line}: ${d.what} ${d.value}: ${d.why}\n`);
        print(`${plan.rewrites.length} files name ${bare(from)}; ${plan.decisions.length} places are yours to decide\n`);
        if (values['dry-run']) return 0;
        // Every refusal first: a committed symlink among the files stops the fork before it writes anything.
        const refusal = plan.rewrites.map((r) => checkoutWriteRefusal(root, r.file)).find(Boolean);
        if (refusal) throw new Error(`refusing to fork: ${refusal}`);
        for (const r of plan.rewrites) writeInCheckout(root, r.file, r.text);
        const result = await runGate({ root, cwd: root });
        print(`${renderReport(result, 'text', { summary: true, verbose: false })}\n`);
        return allFindings(result).length > 0 || result.summary.invalid + result.summary.errors > 0 ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await forkCommand(process.argv.slice(2));
