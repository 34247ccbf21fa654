/**
 * Vitest's global setup: the tests' scratch space (os.tmpdir(), which every
 * test, PostgreSQL, restic and git use for their copies) goes in memory when
 * the machine has a memory-backed /dev/shm and the caller has not chosen a
 * TMPDIR. The suite creates and deletes tens of thousands of files (a copy of
 * the repository per mutation list, a PostgreSQL cluster, restic
 * repositories); on ext4 the inode allocator alone was about 7 % of the
 * suite's CPU time. Workers start after this runs, so they and every process
 * they start inherit it. The folder is removed when the run ends, and a
 * folder a killed run left is removed by the next run.
 */
import { chmodSync, mkdtempSync, readdirSync, rmSync, statfsSync } from 'node:fs';
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

const PREFIX = 'homelab-tests-';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A run killed before its teardown leaves its folder in memory: each run removes those of runs no longer alive. */
function removeAbandoned(): void {
  for (const name of readdirSync(SHM)) {
    const pid = name.startsWith(PREFIX) ? Number(name.slice(PREFIX.length).split('-')[0]) : NaN;
    if (Number.isInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(SHM, name), { recursive: true, force: true });
  }
}

export default function setup(): (() => void) | undefined {
  if (process.env.TMPDIR || !memoryBacked(SHM)) return undefined;
  let dir: string | undefined;
  try {
    removeAbandoned();
    dir = mkdtempSync(join(SHM, `${PREFIX}${process.pid}-`));
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
