/**
 * Vitest's global setup: the tests' scratch space (os.tmpdir(), which every
 * test, PostgreSQL, restic and git use for their copies) goes in memory when
 * the machine has a memory-backed /dev/shm and the caller has not chosen a
 * TMPDIR. The suite creates and deletes tens of thousands of files (a copy of
 * the repository per mutation list, a PostgreSQL cluster, restic
 * repositories); on ext4 the inode allocator alone was about 7 % of the
 * suite's CPU time. Workers start after this runs, so they and every process
 * they start inherit it. The folder is removed when the run ends.
 */
import { chmodSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';

/** Linux's magic number for tmpfs (statfs(2)). */
const TMPFS_MAGIC = 0x01021994;
const SHM = '/dev/shm';

function memoryBacked(dir: string): boolean {
  try {
    return statfsSync(dir).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env.TMPDIR || !memoryBacked(SHM)) return undefined;
  let dir: string | undefined;
  try {
    dir = mkdtempSync(join(SHM, 'homelab-tests-'));
    // As /tmp: the PostgreSQL tests run the server as its own user, which must reach its folder in here.
    chmodSync(dir, 0o1777);
  } catch {
    if (dir) rmSync(dir, { recursive: true, force: true });
    return undefined; // not usable here: the usual temp folder it is
  }
  const scratch = dir;
  process.env.TMPDIR = scratch;
  return () => {
    delete process.env.TMPDIR;
    rmSync(scratch, { recursive: true, force: true });
  };
}
