/**
 * Scratch folders for a backup, check or restore run, under TMPDIR. A run
 * killed halfway cannot remove its own (they are as large as the database),
 * so each holds the PID of its run, and the next run removes every scratch
 * folder whose run is gone. A full TMPDIR is named as the cause, never
 * blamed on the backup being read.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRATCH = 'homelab-backup-';
const OWNER = '.owner-pid';
const OWNERLESS_GRACE_MS = 60 * 60_000;

/** Raised when TMPDIR has no room: the run failed, the backup was not judged. */
export class ScratchSpaceError extends Error {}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The PID a scratch folder's owner file holds; undefined when there is none yet, or not a whole one yet. */
function ownerOf(dir: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(dir, OWNER), 'utf8').trim() || NaN);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the scratch folders of runs that are gone; returns them. */
export function removeAbandonedScratch(root = tmpdir()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    if (!name.startsWith(SCRATCH)) continue;
    const dir = join(root, name);
    const pid = ownerOf(dir);
    if (pid === undefined) {
      // No owner yet: a run between creating its folder and writing its PID (the file is created empty, then
      // written, so an empty one is a run starting, not a dead one), or one killed right then. Only an old one is
      // abandoned; a young one may belong to a run starting beside this one. A folder another run removed
      // meanwhile is simply gone.
      const mtime = statSync(dir, { throwIfNoEntry: false })?.mtimeMs;
      if (mtime === undefined || Date.now() - mtime < OWNERLESS_GRACE_MS) continue;
    } else if (alive(pid)) continue;
    rmSync(dir, { recursive: true, force: true });
    removed.push(dir);
  }
  return removed;
}

/** Free bytes in TMPDIR. */
export function scratchFreeBytes(root = tmpdir()): number {
  const s = statfsSync(root);
  return s.bavail * s.bsize;
}

/** Refuses to start a run that needs more room than TMPDIR has. */
export function requireScratchSpace(bytes: number, root = tmpdir()): void {
  const free = scratchFreeBytes(root);
  if (free < bytes)
    throw new ScratchSpaceError(
      `TMPDIR (${root}) has ${mib(free)} free, and this run needs about ${mib(bytes)}: free space there, or point TMPDIR at a larger volume`,
    );
}

const mib = (n: number) => `${Math.round(n / 1024 / 1024).toLocaleString('en-US')} MiB`;

/** Whether an error means the disk is full. */
export const isNoSpace = (err: unknown) =>
  (err as NodeJS.ErrnoException)?.code === 'ENOSPC' || /No space left on device/i.test(String((err as Error)?.message ?? err));

/** Runs `body` with a private scratch folder that is always removed, after removing those of runs that are gone. */
export async function withScratch<T>(prefix: string, body: (dir: string) => Promise<T>, root = tmpdir()): Promise<T> {
  removeAbandonedScratch(root);
  const dir = mkdtempSync(join(root, `${SCRATCH}${prefix}-`));
  writeFileSync(join(dir, OWNER), String(process.pid));
  try {
    return await body(dir);
  } catch (err) {
    if (isNoSpace(err) && !(err instanceof ScratchSpaceError))
      throw new ScratchSpaceError(
        `TMPDIR (${root}) ran out of space during the run (${(err as Error).message.split('\n')[0]}): free space there, or point TMPDIR at a larger volume`,
      );
    throw err;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
