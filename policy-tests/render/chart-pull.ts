/**
 * The chart cache's pull (`chartCache(env).pull`, what `npm run charts:pull` runs): every chart the Applications pin
 * is pulled with the pinned Helm into the cache and held to charts.lock.json, and every remote kustomize base is
 * fetched and held to it, so that what the gate renders offline is the bytes a person recorded. It returns the lock
 * to write and how many were refused; writing the checkout is the caller's.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import type { Repo } from '../model/repository/repo.ts';
import {
  CHART_LOCK_FILE,
  PULL_COMMAND,
  cachedChartPath,
  cachedDigest,
  chartId,
  digestOf,
  formatLock,
  isOciRepo,
  lockEntryFor,
  pendingEntryFor,
  pinnedCharts,
  pinnedUnpackings,
  readLock,
  remoteEntryFor,
  type ChartLock,
  type ChartRef,
  type LockEntry,
} from './charts.ts';
import { firstLines, helmHomes } from './context.ts';
import { extractedChart } from './chart-extract.ts';
import { assertChartRef, renderLimits } from './limits.ts';
import { assertAllowedHost, fetchRemote, pinnedRemotes, remoteDigest, type RemoteEntry } from './remote-bases.ts';
import { renderTools } from './tools.ts';

const execFileAsync = promisify(execFile);

/** A remote base or an index.yaml is a few megabytes; a minute covers a slow link. */
const REMOTE_TIMEOUT_MS = 60_000;
const REMOTE_MAX_BYTES = 64 * 1024 * 1024;
/** A hang guard for one `helm pull`, not a speed limit: the largest chart here is a few megabytes. */
const HELM_PULL_TIMEOUT_MS = 10 * 60_000;

export interface PullOptions {
  /** The checkout whose charts.lock.json the pull holds the archives to. */
  root: string;
  /** Pull every chart by name and version from this one chart repository (http(s) or oci://) instead of each repoURL. */
  mirror?: string;
  /** Re-record the digests (after a person reviewed the change). */
  updateLock: boolean;
  /** Refuse any chart the lock does not already record: CI trusts only digests a person committed. */
  frozen?: boolean;
  /**
   * Like frozen for every chart the lock records; one it lacks (an update bot's bump) is pulled and recorded only
   * when its archive's sha256 is the digest its chart repository publishes in index.yaml.
   */
  verifyIndex?: boolean;
  /** One line per chart and remote: what was done with it. */
  out: (line: string) => void;
}

export interface PullOutcome {
  /** charts.lock.json after the pull; unchanged text when nothing changed. */
  lock: string;
  /** Charts and remotes refused or not pulled (the others are pulled and recorded). */
  refused: number;
}

/** The `helm pull` arguments for one chart, from its own repository or from one mirror. */
export function pullArgs(ref: ChartRef, destination: string, mirror?: string): string[] {
  const from = mirror ?? ref.repoURL;
  const common = ['--version', ref.version, '--destination', destination];
  if (isOciRepo(from)) return ['pull', `oci://${from.replace(/^oci:\/\//, '').replace(/\/+$/, '')}/${ref.chart}`, ...common];
  return ['pull', ref.chart, '--repo', from, ...common];
}

/** The digest a chart repository publishes for a chart version in its index.yaml (Helm's index `digest`), or why there is none. */
export async function publishedDigest(ref: ChartRef, env: NodeJS.ProcessEnv, mirror?: string): Promise<{ digest: string } | { why: string }> {
  const base = (mirror ?? ref.repoURL).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(base)) return { why: `${base} is an OCI registry: it publishes no index.yaml digest, so a person records this chart` };
  let index: unknown;
  try {
    index = parse((await fetchRemote(`${base}/index.yaml`, { env, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: REMOTE_MAX_BYTES })).toString('utf8'), {
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

/** One `helm pull` into the empty folder `scratch`; the archive it left there. Helm's own words (its first lines) when it fails. */
async function helmPull(helm: string, args: string[], scratch: string, env: NodeJS.ProcessEnv): Promise<string> {
  try {
    await execFileAsync(helm, args, { env, timeout: HELM_PULL_TIMEOUT_MS, killSignal: 'SIGKILL' });
  } catch (err) {
    const e = err as { stderr?: string; message: string; killed?: boolean };
    throw new Error(e.killed ? `did not finish within ${HELM_PULL_TIMEOUT_MS / 60_000} min; killed` : firstLines(e.stderr || e.message));
  }
  const pulled = readdirSync(scratch).find((f) => f.endsWith('.tgz'));
  if (!pulled) throw new Error('helm pull left no archive');
  return join(scratch, pulled);
}

/** Why a pinned chart is not pulled at all under --frozen (the lock has no digest for it), or undefined when it may be. */
function frozenRefusal(ref: ChartRef, lock: ChartLock): string | undefined {
  if (lockEntryFor(lock, ref)) return undefined;
  const pending = pendingEntryFor(lock, ref);
  if (pending)
    return `PENDING  ${chartId(ref)}: ${CHART_LOCK_FILE} has no digest for it yet (${pending.reason}); a person with network runs ${PULL_COMMAND} -- --update-lock, reads the rendered diff, and commits the lock`;
  return `REFUSED  ${chartId(ref)}: not in ${CHART_LOCK_FILE}, and --frozen records nothing; pull it locally with ${PULL_COMMAND}, review the rendered diff, and commit the lock`;
}

/** Why a pulled archive is not taken into the cache, or undefined when it is the bytes the lock (or the index) vouches for. */
async function pulledRefusal(pulled: { ref: ChartRef; digest: string }, lock: ChartLock, o: PullOptions, env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const { ref, digest } = pulled;
  const locked = lockEntryFor(lock, ref);
  if (o.verifyIndex && !locked) {
    // A version nobody recorded: trusted only as the bytes its repository publishes (Helm itself never checks them).
    const published = await publishedDigest(ref, env, o.mirror);
    if ('why' in published) return published.why;
    if (published.digest !== digest)
      return `its archive has digest ${digest}, but its repository's index.yaml publishes ${published.digest}: the bytes served are not the ones published`;
  }
  if (locked && locked.digest !== digest && !o.updateLock)
    return `its archive has digest ${digest}, but ${CHART_LOCK_FILE} records ${locked.digest}; review the change, then run ${PULL_COMMAND} -- --update-lock`;
  return undefined;
}

/** Each pinned chart pulled (or found cached) and held to the lock: the entries to record, and how many were refused. */
async function pullPinnedCharts(pinned: readonly ChartRef[], lock: ChartLock, o: PullOptions, env: NodeJS.ProcessEnv) {
  const { helm } = await renderTools(env);
  const helmEnv = { ...env, ...helmHomes(env) };
  const entries = new Map<string, LockEntry>(lock.charts.map((c) => [chartId(c), c]));
  let refused = 0;
  for (const ref of pinned) {
    // A name or version from a pull request names a cache file: one that is a path is refused, and the others pulled.
    try {
      assertChartRef(ref.chart, ref.version);
    } catch (err) {
      o.out(`REFUSED  ${chartId(ref)}: ${(err as Error).message}`);
      refused++;
      continue;
    }
    const locked = lockEntryFor(lock, ref);
    const frozen = o.frozen ? frozenRefusal(ref, lock) : undefined;
    if (frozen !== undefined) {
      o.out(frozen);
      refused++;
      continue;
    }
    if (!o.updateLock && locked !== undefined && cachedDigest(ref, env) === locked.digest) {
      o.out(`cached   ${chartId(ref)}`);
      continue;
    }
    // A version the lock lacks, cached by an earlier run (an update bot's pull request, pushed again): the index's
    // digest vouches for it as for a fresh pull, so only the index is read again.
    const kept = o.verifyIndex && !locked ? cachedDigest(ref, env) : undefined;
    if (kept !== undefined) {
      const published = await publishedDigest(ref, env, o.mirror);
      if (!('why' in published) && published.digest === kept) {
        entries.set(chartId(ref), { ...ref, digest: kept });
        o.out(`cached   ${chartId(ref)} ${kept}, the digest its repository's index.yaml publishes`);
        continue;
      }
    }
    const scratch = mkdtempSync(join(tmpdir(), 'homelab-chart-'));
    try {
      let archive: string;
      try {
        archive = await helmPull(helm, pullArgs(ref, scratch, o.mirror), scratch, helmEnv);
      } catch (err) {
        // One unreachable repository does not stop the others; the run still fails.
        o.out(`FAILED   ${chartId(ref)}: helm pull: ${(err as Error).message}`);
        refused++;
        continue;
      }
      const digest = digestOf(readFileSync(archive));
      const why = await pulledRefusal({ ref, digest }, lock, o, env);
      if (why !== undefined) {
        o.out(`REFUSED  ${chartId(ref)}: ${why}`);
        refused++;
        continue;
      }
      const cached = cachedChartPath(ref, env);
      mkdirSync(dirname(cached), { recursive: true });
      renameSync(archive, cached);
      entries.set(chartId(ref), { ...ref, digest });
      o.out(`${locked?.digest === digest ? 'pulled  ' : locked ? 'updated ' : o.verifyIndex ? 'verified' : 'locked  '} ${chartId(ref)} ${digest}`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  return { entries, refused };
}

/**
 * Each remote kustomize base, fetched and held to its lock entry as the gate holds it: recorded on first pull,
 * refused when it serves other bytes (until --update-lock), refused under --frozen when the lock has no entry,
 * and refused outright on a host the cluster facts do not list.
 */
async function pullRemotes(repo: Repo, lock: ChartLock, o: PullOptions, env: NodeJS.ProcessEnv): Promise<{ remotes: RemoteEntry[]; refused: number }> {
  const remotes: RemoteEntry[] = [];
  let refused = 0;
  for (const { url } of pinnedRemotes(repo)) {
    const locked = remoteEntryFor(lock, url);
    try {
      assertAllowedHost(url, repo.facts?.remoteBases ?? []);
      if ((o.frozen || o.verifyIndex) && !locked)
        throw new Error(`not in ${CHART_LOCK_FILE}, and --frozen records nothing; pull it locally, read what it serves, and commit the lock`);
      const digest = remoteDigest(await fetchRemote(url, { env, timeoutMs: REMOTE_TIMEOUT_MS, maxBytes: REMOTE_MAX_BYTES }));
      if (locked && locked.digest !== digest && !o.updateLock)
        throw new Error(
          `it serves content with digest ${digest}, but ${CHART_LOCK_FILE} records ${locked.digest}; review the change, then run ${PULL_COMMAND} -- --update-lock`,
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

/**
 * The lock after a pull: exactly the charts pinned (those with an entry), the pending ones not yet recorded, and the
 * remotes. A pending chart stays named until a pull records its digest, and goes when nothing pins it.
 */
function recordedLock(pinned: readonly ChartRef[], entries: ReadonlyMap<string, LockEntry>, lock: ChartLock, remotes: RemoteEntry[]): string {
  const wanted = new Set(pinned.map(chartId));
  return formatLock({
    charts: [...entries.values()].filter((c) => wanted.has(chartId(c))),
    pending: (lock.pending ?? []).filter((p) => wanted.has(chartId(p)) && !entries.has(chartId(p))),
    remotes,
  });
}

/**
 * Each chart the lock records, whose archive in the cache is those bytes, unpacked as the render tier renders it
 * (chart-extract.ts: extracted as Argo CD extracts an Application's chart, expanded as kustomize's `helm pull --untar`
 * expands a kustomization's), so the first render after a pull starts from the folders. An archive that cannot be
 * unpacked is left for the render to refuse, with its reason.
 */
async function unpackPulled(repo: Repo, entries: Iterable<LockEntry>, env: NodeJS.ProcessEnv): Promise<void> {
  const { unpackedBytes } = renderLimits(env);
  const ways = pinnedUnpackings(repo);
  for (const entry of entries) {
    if (cachedDigest(entry, env) !== entry.digest) continue;
    for (const how of ways.get(chartId(entry)) ?? [])
      await extractedChart(env, { archive: cachedChartPath(entry, env), digest: entry.digest }, { unpackedLimit: unpackedBytes, how }).catch(() => undefined);
  }
}

/** Pulls what is missing or asked for, into the cache `env` names; the lock to write and how many were refused. */
export async function pullInto(repo: Repo, o: PullOptions, env: NodeJS.ProcessEnv): Promise<PullOutcome> {
  const lock = readLock(o.root);
  const pinned = pinnedCharts(repo);
  const charts = await pullPinnedCharts(pinned, lock, o, env);
  const remotes = await pullRemotes(repo, lock, o, env);
  await unpackPulled(repo, charts.entries.values(), env);
  return { lock: recordedLock(pinned, charts.entries, lock, remotes.remotes), refused: charts.refused + remotes.refused };
}
