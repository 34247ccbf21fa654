/**
 * npm run charts:pull: `helm pull` every chart the Applications pin into the
 * cache outside git, so the gate can render them offline. The committed
 * charts.lock.json records each archive's digest on first pull; a later pull
 * whose archive differs under the same version is refused (a chart
 * repository that re-publishes a version, or a tampered proxy) until a
 * person reviews it and runs with --update-lock.
 */
import { writeInCheckout } from './lib/checkout-write.ts';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parse } from 'yaml';
import { join } from 'node:path';
import { loadRepo, REPO_ROOT, type Repo, charts, render } from '../policy-tests/index.ts';
import { runCommand, UsageError, type CommandIo } from './lib/command.ts';
import { run } from './lib/exec.ts';

/** The `helm pull` arguments for one chart, from its own repository or from one mirror. */
export function pullArgs(ref: charts.ChartRef, destination: string, mirror?: string): string[] {
  const from = mirror ?? ref.repoURL;
  const common = ['--version', ref.version, '--destination', destination];
  if (charts.isOciRepo(from)) return ['pull', `oci://${from.replace(/^oci:\/\//, '').replace(/\/+$/, '')}/${ref.chart}`, ...common];
  return ['pull', ref.chart, '--repo', from, ...common];
}

/** A remote base is a manifest of a few megabytes; a minute covers a slow link. */
const REMOTE_TIMEOUT_MS = 60_000;
const REMOTE_MAX_BYTES = 64 * 1024 * 1024;

export interface PullOptions {
  root: string;
  env: NodeJS.ProcessEnv;
  mirror?: string;
  updateLock: boolean;
  /** Refuse any chart the lock does not already record: CI trusts only digests a person committed. */
  frozen?: boolean;
  /**
   * Like frozen for every chart the lock records; one it lacks (an update bot's bump) is pulled and recorded only
   * when its archive's sha256 is the digest its chart repository publishes in index.yaml.
   */
  verifyIndex?: boolean;
  out: (line: string) => void;
}

/**
 * Each remote kustomize base, fetched and held to its lock entry as the gate holds it: recorded on first pull,
 * refused when it serves other bytes (until --update-lock), refused under --frozen when the lock has no entry,
 * and refused outright on a host the cluster facts do not list.
 */
async function pullRemotes(o: PullOptions, repo: Repo, lock: charts.ChartLock): Promise<{ remotes: charts.RemoteEntry[]; refused: number }> {
  const remotes: charts.RemoteEntry[] = [];
  let refused = 0;
  for (const { url } of charts.pinnedRemotes(repo)) {
    const locked = charts.remoteEntryFor(lock, url);
    try {
      charts.assertAllowedHost(url, repo.facts?.remoteBases ?? []);
      if ((o.frozen || o.verifyIndex) && !locked)
        throw new Error(`not in ${charts.CHART_LOCK_FILE}, and --frozen records nothing; pull it locally, read what it serves, and commit the lock`);
      const digest = charts.remoteDigest(await charts.fetchRemote(url, { env: o.env, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: REMOTE_MAX_BYTES }));
      if (locked && locked.digest !== digest && !o.updateLock)
        throw new Error(
          `it serves content with digest ${digest}, but ${charts.CHART_LOCK_FILE} records ${locked.digest}; review the change, then run npm run charts:pull -- --update-lock`,
        );
      remotes.push({ url, digest });
      o.out(`${locked?.digest === digest ? 'checked ' : locked ? 'updated ' : 'locked  '} ${url} ${digest}`);
    } catch (err) {
      o.out(`REFUSED  ${url}: ${(err as Error).message.split('\n')[0]}`);
      refused++;
      if (locked) remotes.push(locked);
    }
  }
  return { remotes, refused };
}

/** Pulls what is missing; returns the number of charts refused or not pulled (the lock keeps what was pulled). */
/** The digest a chart repository publishes for a chart version in its index.yaml (Helm's index `digest`), or why there is none. */
export async function publishedDigest(ref: charts.ChartRef, env: NodeJS.ProcessEnv, mirror?: string): Promise<{ digest: string } | { why: string }> {
  const base = (mirror ?? ref.repoURL).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) return { why: `${base} is an OCI registry: it publishes no index.yaml digest, so a person records this chart` };
  let index: unknown;
  try {
    index = parse((await charts.fetchRemote(`${base}/index.yaml`, { env, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: REMOTE_MAX_BYTES })).toString('utf8'), {
      maxAliasCount: 100,
    });
  } catch (err) {
    return { why: `its repository's index.yaml cannot be read: ${(err as Error).message.split('\n')[0]}` };
  }
  const entries = (index as { entries?: Record<string, { version?: unknown; digest?: unknown }[]> } | null)?.entries?.[ref.chart];
  const entry = (Array.isArray(entries) ? entries : []).find((e) => String(e.version) === ref.version || `v${String(e.version)}` === ref.version);
  if (!entry) return { why: `its repository's index.yaml lists no ${ref.chart} ${ref.version}` };
  if (typeof entry.digest !== 'string' || !/^[0-9a-f]{64}$/.test(entry.digest))
    return { why: `its repository's index.yaml gives ${ref.chart} ${ref.version} no sha256 digest` };
  return { digest: `sha256:${entry.digest}` };
}

/** The lock after a pull (the cache's record), written unless frozen or unchanged. */
function writeLock(o: PullOptions, next: string): void {
  const path = join(o.root, charts.CHART_LOCK_FILE);
  if (!o.frozen && (!existsSync(path) || readFileSync(path, 'utf8') !== next)) writeInCheckout(o.root, charts.CHART_LOCK_FILE, next);
}

export async function pullCharts(o: PullOptions): Promise<number> {
  const repo = await loadRepo(o.root);
  const tools = await render.renderTools(o.env);
  const lock = charts.readLock(o.root);
  const pinned = charts.pinnedCharts(repo);
  const helmHome = join(render.cacheRoot(o.env), 'helm-home');
  const env = { ...o.env, HELM_CACHE_HOME: join(helmHome, 'cache'), HELM_CONFIG_HOME: join(helmHome, 'config'), HELM_DATA_HOME: join(helmHome, 'data') };
  const cache = charts.chartCache(o.env);
  const entries = new Map<string, charts.LockEntry>(lock.charts.map((c) => [charts.chartId(c), c]));
  let refused = 0;
  for (const ref of pinned) {
    const locked = charts.lockEntryFor(lock, ref);
    const pending = charts.pendingEntryFor(lock, ref);
    if (o.frozen && !locked && pending) {
      o.out(
        `PENDING  ${charts.chartId(ref)}: ${charts.CHART_LOCK_FILE} has no digest for it yet (${pending.reason}); a person with network runs npm run charts:pull -- --update-lock, reads the rendered diff, and commits the lock`,
      );
      refused++;
      continue;
    }
    if (o.frozen && !locked) {
      o.out(
        `REFUSED  ${charts.chartId(ref)}: not in ${charts.CHART_LOCK_FILE}, and --frozen records nothing; pull it locally with npm run charts:pull, review the rendered diff, and commit the lock`,
      );
      refused++;
      continue;
    }
    if (!o.updateLock && locked !== undefined && cache.cachedDigest(ref) === locked.digest) {
      o.out(`cached   ${charts.chartId(ref)}`);
      continue;
    }
    const scratch = mkdtempSync(join(tmpdir(), 'homelab-chart-'));
    try {
      try {
        await run(tools.helm, pullArgs(ref, scratch, o.mirror), { env });
      } catch (err) {
        // One unreachable repository does not stop the others; the run still fails.
        o.out(`FAILED   ${charts.chartId(ref)}: ${(err as Error).message.replace(`${tools.helm}: `, 'helm pull: ')}`);
        refused++;
        continue;
      }
      const pulled = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
      if (!pulled) throw new Error(`helm pull left no archive for ${charts.chartId(ref)}`);
      const digest = charts.digestOf(readFileSync(join(scratch, pulled)));
      if (o.verifyIndex && !locked) {
        // A version nobody recorded: trusted only as the bytes its repository publishes (Helm itself never checks them).
        const published = await publishedDigest(ref, o.env, o.mirror);
        if ('why' in published || published.digest !== digest) {
          o.out(
            `REFUSED  ${charts.chartId(ref)}: ${'why' in published ? published.why : `its archive has digest ${digest}, but its repository's index.yaml publishes ${published.digest}: the bytes served are not the ones published`}`,
          );
          refused++;
          continue;
        }
      }
      if (locked && locked.digest !== digest && !o.updateLock) {
        o.out(
          `REFUSED  ${charts.chartId(ref)}: its archive has digest ${digest}, but ${charts.CHART_LOCK_FILE} records ${locked.digest}; review the change, then run npm run charts:pull -- --update-lock`,
        );
        refused++;
        continue;
      }
      entries.set(charts.chartId(ref), cache.admit(ref, join(scratch, pulled), digest));
      o.out(`${locked?.digest === digest ? 'pulled  ' : locked ? 'updated ' : o.verifyIndex ? 'verified' : 'locked  '} ${charts.chartId(ref)} ${digest}`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  const { remotes, refused: remotesRefused } = await pullRemotes(o, repo, lock);
  refused += remotesRefused;
  writeLock(o, cache.record(pinned, entries, lock, remotes));
  return refused;
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env, io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ? io.stdout(`${line}\n`) : process.stdout.write(`${line}\n`));
  return runCommand(
    {
      name: 'charts:pull',
      usage: 'charts:pull [--mirror URL] [--update-lock | --frozen | --verify-index]',
      help: `Pulls every chart the Applications pin (helm pull) into the cache outside git
(${charts.chartCacheDir(env)}), so npm run validate renders them offline.
${charts.CHART_LOCK_FILE} records each archive's digest on first pull; a later archive
with another digest is refused.

  --mirror URL     pull every chart by name and version from this one chart
                   repository (http(s) or oci://) instead of each repoURL
  --update-lock    re-record the digests (after reviewing the change)
  --frozen         refuse every chart the lock does not record, and never
                   write the lock: so a chart version nobody reviewed is
                   never rendered or trusted
  --verify-index   as --frozen for every chart the lock records; a version
                   it lacks (an update bot's bump) is pulled and recorded
                   only if its sha256 is the digest its chart repository
                   publishes in index.yaml: what CI runs on a pull request

Environment: HELM_BIN (your own Helm 4), HOMELAB_CACHE_DIR (the cache folder),
HOMELAB_CHART_CACHE (the charts alone), HTTPS_PROXY, HTTP_PROXY, NO_PROXY,
SSL_CERT_FILE and SSL_CERT_DIR (reach Helm and the remote-base fetch).
Exit status: 0 every chart cached, 1 a chart refused or a pull failed (the others are
still pulled and locked), 2 a usage error.`,
      options: {
        mirror: { type: 'string' },
        'update-lock': { type: 'boolean', default: false },
        frozen: { type: 'boolean', default: false },
        'verify-index': { type: 'boolean', default: false },
      },
      positionals: { min: 0, max: 0 },
      async run({ values }) {
        const modes = ['frozen', 'update-lock', 'verify-index'].filter((m) => values[m] === true);
        if (modes.length > 1) throw new UsageError(`--${modes[0]} and --${modes[1]} contradict each other`);
        const refused = await pullCharts({
          root: env.HOMELAB_REPO_ROOT ?? REPO_ROOT,
          env,
          mirror: values.mirror as string | undefined,
          updateLock: values['update-lock'] === true,
          frozen: values.frozen === true,
          verifyIndex: values['verify-index'] === true,
          out,
        });
        return refused ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
