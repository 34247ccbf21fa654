/**
 * Restoring a target from a verified backup, and the monthly drill. The
 * backup is verified before anything live is touched; the engine swaps the
 * data in atomically, keeping the replaced data; the app is scaled back to its
 * former replica count whatever happens.
 */
import { engineOf } from './engines/index.ts';
import type { Target } from './engines/types.ts';
import { oneLine, run } from '../lib/exec.ts';
import { contextOf, unpackVerified, withScratch, type BackupOptions } from './run.ts';
import { isNewer } from './sentinel.ts';
import { lastRecordedSentinel, ledgerStates, listBackups, readManifest } from './store.ts';

export interface Scaler {
  /** Scales the app's workload and waits until it has that many ready replicas (0: none running). */
  scale(replicas: number): Promise<void>;
  replicas(): Promise<number>;
}

export interface RestoreOptions extends BackupOptions {
  from?: string;
  dryRun?: boolean;
  /** Scales the app; undefined when the operator stopped it already (`--app-stopped`, for a restore run in a pod). */
  scaler: Scaler | undefined;
  /**
   * Test hook: throw at a named step ("staged", "kept", "swapped", or
   * "inside-swap" for the engine's atomic swap), as a crash there would; with
   * "kill:" before the step, the process kills itself there (SIGKILL), as a
   * node losing power would.
   */
  crashAt?: string;
  /** Called at each event of a restore, in order: "scale 0", the engine's steps, "scale <n>". */
  onEvent?: (event: string) => void;
}

function pickBackup(o: BackupOptions, target: Target, from = 'latest') {
  const backups = listBackups(o.backupDir, target.name);
  const chosen = from === 'latest' ? backups[0] : backups.find((b) => b.name === from || b.time.toISOString() === from);
  if (!chosen) throw new Error(`${target.name}: no backup ${from === 'latest' ? 'at all' : `named ${from}`} in ${o.backupDir}`);
  return chosen;
}

export async function restore(target: Target, o: RestoreOptions): Promise<{ backup: string; replaced: string[]; undo: string[] }> {
  const log = o.log ?? (() => undefined);
  const engine = engineOf(target);
  const ctx = contextOf(o, o.crashAt === 'inside-swap');
  const backup = pickBackup(o, target, o.from);
  return withScratch(`restore-${target.name}`, async (work) => {
    const files = await unpackVerified(target, backup, work, ctx);
    log(`verified ${backup.name} (sentinel ${readManifest(backup.path).sentinel.id})`);
    if (o.dryRun) {
      log(
        `would replace the live data of ${target.name} with ${backup.name}, keeping the replaced data${engine.scalesApp ? `, with ${target.deployment} scaled to 0 meanwhile` : ''}`,
      );
      return { backup: backup.name, replaced: [], undo: [] };
    }
    const event = o.onEvent ?? (() => undefined);
    const step = (name: string) => {
      event(name);
      if (o.crashAt === `kill:${name}`) process.kill(process.pid, 'SIGKILL');
      if (o.crashAt === name) throw new Error(`simulated crash at ${name}`);
    };
    const swap = async () => {
      const swapped = await engine.swapIn(target, files, ctx, step);
      return { backup: backup.name, replaced: swapped.map((s) => s.replaced), undo: swapped.flatMap((s) => (s.undo ? [s.undo] : [])) };
    };
    if (!engine.scalesApp) return swap();
    if (!o.scaler) {
      log(`not scaling ${target.deployment}: stopped by the operator (--app-stopped)`);
      return swap();
    }
    const before = await o.scaler.replicas();
    event('scale 0');
    await o.scaler.scale(0);
    log(`scaled ${target.deployment} to 0`);
    try {
      // Awaited here, inside the try: the app must not start until the swap has ended, whatever its end.
      return await swap();
    } finally {
      event(`scale ${before}`);
      await o.scaler.scale(before);
      log(`scaled ${target.deployment} back to ${before}`);
    }
  });
}

/**
 * The monthly drill: restore the newest backup into a scratch location,
 * check it, and prove it is the newest: its sentinel must equal the newest
 * backup's, and neither the live source nor the sentinel ledger may carry a
 * newer sentinel (a later backup that never became visible). Returns the
 * problems, one line each.
 */
export async function restoreTest(target: Target, o: BackupOptions): Promise<string[]> {
  const newest = listBackups(o.backupDir, target.name)[0];
  if (!newest) return [`${target.name}: no backup to restore in ${o.backupDir}`];
  const ctx = contextOf(o);
  const engine = engineOf(target);
  return withScratch(`restore-test-${target.name}`, async (work) => {
    const problems: string[] = [];
    try {
      const expected = readManifest(newest.path).sentinel;
      const restored = await engine.restoredSentinel(target, await unpackVerified(target, newest, work, ctx), work, ctx);
      if (restored?.id !== expected.id)
        problems.push(`${target.name}: the restored data carries sentinel ${restored?.id ?? 'none'}, not the newest backup's ${expected.id}`);
      const ledger = ledgerStates(o.backupDir, target.name);
      for (const [where, seen] of [
        ['the source', await engine.liveSentinel(target, ctx)],
        ['the sentinel ledger', lastRecordedSentinel(o.backupDir, target.name)],
      ] as const) {
        if (!isNewer(seen, expected)) continue;
        const states = ledger.get(seen!.id);
        // Started and never published: a run killed before it published, so no later backup exists.
        if (states?.has('started') && !states.has('published')) continue;
        problems.push(
          `${target.name}: ${where} has a newer sentinel (${seen!.at}) than the newest backup (${expected.at}): a later backup was taken but is not the one restored`,
        );
      }
    } catch (err) {
      problems.push(`${target.name}: ${oneLine(err)}`);
    }
    return problems;
  });
}

/** kubectl scale on the target's Deployment, waiting for its pods to go or to be ready. */
export function kubectlScaler(target: Target, kubectl = process.env.KUBECTL || 'kubectl'): Scaler {
  const inNamespace = (...args: string[]) => run(kubectl, ['-n', target.namespace, ...args], { env: process.env });
  return {
    replicas: async () => Number(await inNamespace('get', `deployment/${target.deployment}`, '-o', 'jsonpath={.spec.replicas}')),
    async scale(replicas) {
      await inNamespace('scale', `deployment/${target.deployment}`, `--replicas=${replicas}`);
      if (replicas === 0) await inNamespace('wait', '--for=delete', 'pod', '-l', `app.kubernetes.io/name=${target.deployment}`, '--timeout=120s');
      else await inNamespace('rollout', 'status', `deployment/${target.deployment}`, '--timeout=300s');
    },
  };
}
