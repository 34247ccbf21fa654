/**
 * backup and backup-check, engine-neutral: a sentinel written into the
 * source (and recorded in the ledger), a consistent online copy verified by
 * the engine's integrity check, a compressed and checksummed backup published
 * atomically, 14 days kept, and a restic copy off-site.
 */
import { dirname } from 'node:path';
import { engineOf } from './engines/index.ts';
import type { EngineContext, Target } from './engines/types.ts';
import { COMPRESSED_SUFFIX } from './compress.ts';
import { isNoSpace, ScratchSpaceError, withScratch } from './scratch.ts';
import { oneLine } from '../lib/exec.ts';
import { resticTarget } from './restic.ts';
import { newSentinel } from './sentinel.ts';
import { listBackups, MAX_AGE_HOURS, prune, publish, RETENTION_DAYS, recordSentinel, unpack, verifyManifest, type StoredBackup } from './store.ts';
import { manifestKey } from './integrity.ts';

export interface BackupOptions {
  /** Where finished backups live (BACKUP_DIR). */
  backupDir: string;
  /** Prefix for SQLite paths, for running outside the app's pod (BACKUP_SOURCE_ROOT). */
  sourceRoot?: string;
  env: NodeJS.ProcessEnv;
  now?: Date;
  log?: (line: string) => void;
}

export const contextOf = (o: BackupOptions, faultInsideSwap = false): EngineContext => ({
  env: o.env,
  sourceRoot: o.sourceRoot,
  log: o.log ?? (() => undefined),
  now: o.now ?? new Date(),
  faultInsideSwap,
});

const requireRestic = (env: NodeJS.ProcessEnv) => {
  if (!env.RESTIC_REPOSITORY || !(env.RESTIC_PASSWORD || env.RESTIC_PASSWORD_FILE))
    throw new Error('off-site copy not configured: set RESTIC_REPOSITORY and RESTIC_PASSWORD');
};

/** Why restic failed, with what to run when the repository was never initialised. */
function offsiteProblem(err: unknown, repository: string): string {
  const message = oneLine(err);
  if (/unable to open config file|Is there a repository/.test(message)) {
    return `no restic repository at ${repository}: create it once with "restic -r ${repository} init" (RESTIC_PASSWORD set as for the backup), then run the backup again`;
  }
  return message;
}

export { withScratch } from './scratch.ts';

export async function runBackup(target: Target, o: BackupOptions): Promise<{ path: string; pruned: string[] }> {
  requireRestic(o.env);
  // Before any work: a backup nobody can verify is not taken.
  const key = manifestKey(o.env);
  const engine = engineOf(target);
  // One clock reading for the whole run: the engine's context, the sentinel, the backup's name and its snapshot.
  const ctx = contextOf(o);
  const { now } = ctx;
  const sentinel = newSentinel(now);
  const offsite = resticTarget(target.name, o.env);
  // Clearing stale locks needs nothing of today's copy: restic starts (its key derivation, its lock scan) while
  // the copy is taken, instead of after. Settled either way, so it is awaited on every path and never unhandled.
  const unlocked = offsite.unlock().then(
    () => undefined,
    (err: unknown) => err,
  );
  try {
    return await withScratch(`backup-${target.name}`, async (work) => {
      recordSentinel(o.backupDir, target.name, sentinel);
      await engine.writeSentinel(target, sentinel, ctx);
      const files = await engine.dump(target, work, ctx);
      // The engine's integrity check and the compression read the same copies: they run side by side, and the
      // backup is renamed into place only once every copy is verified.
      const verified = (async () => {
        for (const file of files) {
          const problem = await engine.verify(file, ctx);
          if (problem) throw new Error(`the copy ${file.slice(work.length + 1)} ${problem}; nothing was published`);
        }
      })();
      const path = await publish({ root: o.backupDir, target: target.name, engine: target.engine, now, sentinel, files, key, verified });
      recordSentinel(o.backupDir, target.name, sentinel, 'published');
      const pruned = prune(o.backupDir, target.name, now);
      try {
        const unlockFailure = await unlocked;
        if (unlockFailure) throw unlockFailure;
        await offsite.backup(path, now);
        await offsite.forget(RETENTION_DAYS);
      } catch (err) {
        // The local copy is sound and stays published; only the off-site copy is missing.
        throw new Error(`local copy kept at ${path}, but the off-site copy failed: ${offsiteProblem(err, offsite.repository)}`);
      }
      return { path, pruned };
    });
  } finally {
    await unlocked;
  }
}

/**
 * Verifies one stored backup (checksums, decompression, the engine's
 * integrity check) and unpacks it into `dir`; throws one line when it
 * cannot be trusted.
 */
export async function unpackVerified(target: Target, backup: StoredBackup, dir: string, ctx: EngineContext): Promise<ReadonlyMap<string, string>> {
  const allowed = new Set(
    engineOf(target)
      .fileNames(target)
      .map((name) => `${name}${COMPRESSED_SUFFIX}`),
  );
  const problem = verifyManifest(backup.path, allowed, manifestKey(ctx.env), target.name);
  if (problem) throw new Error(`refusing ${backup.name}: ${problem}`);
  let files: Map<string, string>;
  try {
    files = await unpack(backup.path, dir);
  } catch (err) {
    // A full TMPDIR says nothing about the backup: name the real cause, and do not call the backup corrupt.
    if (isNoSpace(err))
      throw new ScratchSpaceError(
        `cannot unpack ${backup.name}: TMPDIR (${dirname(dir)}) is full (${oneLine(err).replace(/^.* does not decompress: /, '')}); the backup was not judged`,
      );
    throw new Error(`refusing ${backup.name}: ${oneLine(err)}`);
  }
  for (const [name, file] of files) {
    const bad = await engineOf(target).verify(file, ctx);
    if (bad) throw new Error(`refusing ${backup.name}: ${name} ${bad}`);
  }
  return files;
}

/** The newest backup's problems, as one line each; empty when it is sound. */
export async function checkBackup(target: Target, o: BackupOptions): Promise<string[]> {
  const now = o.now ?? new Date();
  const newest = listBackups(o.backupDir, target.name)[0];
  if (!newest) return [`${target.name}: no backup at all in ${o.backupDir}`];
  const ageHours = (now.getTime() - newest.time.getTime()) / 3_600_000;
  if (ageHours > MAX_AGE_HOURS) return [`${target.name}: the newest backup (${newest.name}) is ${ageHours.toFixed(1)} h old, over ${MAX_AGE_HOURS} h`];
  try {
    await withScratch(`check-${target.name}`, (dir) => unpackVerified(target, newest, dir, contextOf(o)));
  } catch (err) {
    return [`${target.name}: ${oneLine(err).replace(/^refusing /, '')}`];
  }
  try {
    requireRestic(o.env);
    if (!(await resticTarget(target.name, o.env).paths()).includes(newest.path)) return [`${target.name}: ${newest.name} is not in the restic repository`];
  } catch (err) {
    return [`${target.name}: restic: ${oneLine(err).replace(/^restic: /, '')}`];
  }
  return [];
}
