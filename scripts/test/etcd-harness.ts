/**
 * What the etcd target's tests share, one of each per file: a real etcd (Debian's etcd-server) on 127.0.0.1, a
 * restic repository, the golden backup taken from that etcd, and for each test a fresh folder with the backup's
 * options. talosctl and kubectl cannot reach a Talos node or an API server here: the contract fakes in
 * test-support/fakes stand in for the one call each makes, backed by the real etcd.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { loadTarget } from '../../policy-tests/model/apps/backup-targets.ts';
import { run } from '../lib/exec.ts';
import { runBackup, type BackupOptions } from '../backup/run.ts';
import { missingTools, startLoopbackEtcd, seedBackup, useGoldenBackup, useResticRepository } from './backup-helpers.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

export const FAKES = join(REPO_ROOT, 'test-support/fakes');

export interface EtcdHarness {
  /** Set when a tool the tests need is missing: the file's describes skip, loudly. */
  skip: boolean;
  target: ReturnType<typeof loadTarget>;
  /** The running test's folder and the backup's options in it (the backups there, the fakes' environment). */
  readonly dir: string;
  readonly o: BackupOptions;
  /** etcdctl against the test's etcd. */
  etcdctl(...args: string[]): Promise<string>;
  /** The golden backup copied into the running test's folder, dated `ageMs` ago; returns its path. */
  seeded(ageMs?: number): string;
}

/** Registers the file's hooks (call it at the top of a test file) and returns what its tests read. */
export async function useEtcdHarness(): Promise<EtcdHarness> {
  const skip = skipForMissing(await missingTools('restic', 'zstd', 'etcd', 'etcdctl'), 'etcd backups');
  const resticEnv = useResticRepository(skip, ['etcd']);
  const target = loadTarget(REPO_ROOT, 'etcd');
  let etcdDir = '';
  let etcd: Awaited<ReturnType<typeof startLoopbackEtcd>> | undefined;
  let endpoint = '';
  const etcdctlAt = (at: string, ...args: string[]) => run('etcdctl', [`--endpoints=${at}`, ...args], { env: { ...process.env, ETCDCTL_API: '3' } });

  beforeAll(async () => {
    if (skip) return;
    etcdDir = mkdtempSync(join(tmpdir(), 'etcd-test-'));
    // Ready when it takes the first write, on fresh ports again if another process bound one first (as the drill's).
    etcd = await startLoopbackEtcd({
      bin: 'etcd',
      name: 'test',
      what: "the test's etcd",
      // No deadline of its own: the suite's hang guard ends a stuck one, and a busy machine is only slower.
      readyMs: Number.POSITIVE_INFINITY,
      starts: 3,
      async prepare(start) {
        return join(etcdDir, `data-${start}`);
      },
      ready: (at) => etcdctlAt(at, 'put', '/registry/namespaces/backups', '{"kind":"Namespace"}'),
    });
    endpoint = etcd.endpoint;
  });
  afterAll(async () => {
    await etcd?.stop();
    if (etcdDir) rmSync(etcdDir, { recursive: true, force: true });
  });

  let dir = '';
  let o: BackupOptions;
  const golden = useGoldenBackup(
    skip,
    () => {
      dir = mkdtempSync(join(tmpdir(), 'backup-etcd-test-'));
      const env = {
        ...resticEnv(),
        FAKE_ETCD_ENDPOINT: endpoint,
        TALOSCTL: join(FAKES, 'talosctl.mjs'),
        KUBECTL: join(FAKES, 'kubectl.mjs'),
        TALOS_NODE: '10.0.0.10',
        FAKE_TALOS_ENDPOINTS_LOG: join(dir, 'talos-endpoints.log'),
        RESTORE_OUT_DIR: dir,
      };
      o = { backupDir: join(dir, 'backups'), env };
      return dir;
    },
    () => runBackup(target, o),
  );

  return {
    skip,
    target,
    get dir() {
      return dir;
    },
    get o() {
      return o;
    },
    etcdctl: (...args) => etcdctlAt(endpoint, ...args),
    seeded: (ageMs = 0) => seedBackup(join(golden(), 'backups'), o.backupDir, 'etcd', ageMs),
  };
}

/** Whether a process still runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
