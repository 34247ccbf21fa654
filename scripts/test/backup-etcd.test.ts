/**
 * backup, backup-check, restore and restore-test of the etcd target, against a
 * real etcd (Debian's etcd-server, started on 127.0.0.1 by the test) with
 * etcdctl, zstd and a real restic repository. talosctl and kubectl cannot reach
 * a Talos node or an API server here: the contract fakes in ./fakes stand in
 * for the one call each makes, backed by the real etcd.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { compressFile, sha256File } from '../backup/compress.ts';
import { run } from '../lib/exec.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { checkBackup, runBackup, type BackupOptions } from '../backup/run.ts';
import { readManifest } from '../backup/store.ts';
import { loadTarget } from '../../policy-tests/model/apps/backup-targets.ts';
import { fakeScaler, flipByte, missingTools, startLoopbackEtcd, seedBackup, useGoldenBackup, useResticRepository, resign } from './backup-helpers.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

const skip = skipForMissing(await missingTools('restic', 'zstd', 'etcd', 'etcdctl'), 'etcd backups');
const resticEnv = useResticRepository(skip, ['etcd']);
const target = loadTarget(REPO_ROOT, 'etcd');
const FAKES = join(REPO_ROOT, 'test-support/fakes');

let etcdDir: string;
let etcd: Awaited<ReturnType<typeof startLoopbackEtcd>> | undefined;
let endpoint: string;
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

function etcdctlAt(at: string, ...args: string[]): Promise<string> {
  return run('etcdctl', [`--endpoints=${at}`, ...args], { env: { ...process.env, ETCDCTL_API: '3' } });
}

const etcdctl = (...args: string[]) => etcdctlAt(endpoint, ...args);

/** Whether a process still runs: a zombie (exited, not yet reaped by whoever adopted it) does not. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

let dir: string;
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

/** The golden snapshot's backup copied into this test's folder, dated `ageMs` ago. */
const seeded = (ageMs = 0) => seedBackup(join(golden(), 'backups'), o.backupDir, 'etcd', ageMs);

describe.skipIf(skip)('etcd backup', () => {
  it('snapshots etcd with its sentinel ConfigMap; backup-check and the drill (a throwaway etcd on the restored data) pass', async () => {
    const { path } = await runBackup(target, o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'etcd', engine: 'etcd', files: [{ name: 'etcd.snapshot.zst' }] });
    expect(await etcdctl('get', '/registry/configmaps/backups/backup-sentinel', '--print-value-only')).toContain(manifest.sentinel.id);
    expect(await checkBackup(target, o)).toEqual([]);
    expect(await restoreTest(target, o)).toEqual([]);
  });

  it("reaches the Talos API through TALOS_NODE itself, the one address the job's network policy opens", async () => {
    const log = join(dir, 'endpoints-of-this-test.log');
    await runBackup(target, { ...o, env: { ...o.env, FAKE_TALOS_ENDPOINTS_LOG: log } });
    expect(readFileSync(log, 'utf8')).toBe('10.0.0.10\n');
  });

  it('needs TALOS_NODE, and says so in one line', async () => {
    await expect(runBackup(target, { ...o, env: { ...o.env, TALOS_NODE: '' } })).rejects.toThrow(/^TALOS_NODE is not set/);
  });

  it('backup-check detects a damaged snapshot behind a matching checksum', async () => {
    const path = seeded();
    const manifest = readManifest(path);
    const snapshot = join(dir, 'etcd.snapshot');
    await run('zstd', ['-q', '-d', join(path, 'etcd.snapshot.zst'), '-o', snapshot]);
    writeFileSync(snapshot, readFileSync(snapshot).subarray(0, 8192));
    await compressFile(snapshot, join(path, 'etcd.snapshot.zst'));
    manifest.files[0] = { name: 'etcd.snapshot.zst', ...sha256File(join(path, 'etcd.snapshot.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/^etcd: .*etcd\.snapshot fails etcd(ctl|utl) snapshot status/)]);
  });

  it("reads and restores the snapshot with etcdutl wherever there is one, as the image's etcd 3.6 has no etcdctl snapshot status or restore", async () => {
    await runBackup(target, o); // the newest backup carries the live sentinel, whatever an earlier test left there
    const log = join(dir, 'etcdutl.log');
    const env = { ...o.env, ETCDUTL: join(FAKES, 'etcdutl.mjs'), FAKE_ETCDUTL_LOG: log };
    expect(await checkBackup(target, { ...o, env })).toEqual([]);
    expect(await restoreTest(target, { ...o, env })).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe('snapshot status\nsnapshot status\nsnapshot restore\n');
  });
});

describe.skipIf(skip)('etcd restore and drill', () => {
  it('restore verifies the snapshot and hands it over for talosctl bootstrap --recover-from, scaling nothing', async () => {
    seeded();
    const { calls, scaler } = fakeScaler();
    const lines: string[] = [];
    const result = await restore(target, { ...o, scaler, log: (l) => lines.push(l) });
    expect(result.replaced).toEqual([join(dir, 'restored-etcd.snapshot')]);
    expect(existsSync(result.replaced[0]!)).toBe(true);
    expect(calls).toEqual([]);
    expect(lines.join('\n')).toMatch(/bootstrap --recover-from=/);
  });

  it('restore refuses a corrupt snapshot and writes nothing', async () => {
    const path = seeded();
    writeFileSync(join(path, 'etcd.snapshot.zst'), flipByte(readFileSync(join(path, 'etcd.snapshot.zst'))));
    await expect(restore(target, { ...o, scaler: fakeScaler().scaler })).rejects.toThrow(/refusing .*SHA-256/);
    expect(existsSync(join(dir, 'restored-etcd.snapshot'))).toBe(false);
  });

  it('the drill fails when the cluster carries a newer sentinel than the newest snapshot', async () => {
    seeded(3_600_000);
    const later = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'backup-sentinel', namespace: 'backups' },
      data: { sentinel: `later-backup ${new Date().toISOString()}` },
    };
    await run(join(FAKES, 'kubectl.mjs'), ['apply', '-f', '-'], { env: o.env, input: JSON.stringify(later) });
    expect(await restoreTest(target, o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
  });

  /** An etcd whose first `failures` starts exit at once saying `words`, as etcd does; later starts are the real etcd. */
  function etcdFailingFirst(failures: number, words: string): { ETCD: string; starts: () => number } {
    const counter = join(dir, 'etcd-starts');
    const wrapper = join(dir, 'etcd-wrapper.sh');
    writeFileSync(counter, '');
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho started >> '${counter}'\nif [ "$(wc -l < '${counter}')" -le ${failures} ]; then echo '${words}' >&2; exit 1; fi\nexec etcd "$@"\n`,
      { mode: 0o755 },
    );
    return { ETCD: wrapper, starts: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
  }

  it('the drill starts etcd again on other ports, on a fresh restore, when another process bound one first', async () => {
    await runBackup(target, o); // the newest backup carries the live sentinel, whatever an earlier test left there
    const etcd = etcdFailingFirst(2, 'listen tcp 127.0.0.1:2380: bind: address already in use');
    expect(await restoreTest(target, { ...o, env: { ...o.env, ETCD: etcd.ETCD } })).toEqual([]);
    expect(etcd.starts()).toBe(3);
  });

  it('the drill stops a read in flight when its etcd exits, rather than leaving the read to its own timeout', async () => {
    seeded();
    // etcdctl's get writes its pid and hangs; the restore's etcdctl calls are the real one. etcd exits once the get runs.
    const getPid = join(dir, 'etcdctl-get.pid');
    const hangingGet = join(dir, 'etcdctl-hanging-get.sh');
    writeFileSync(hangingGet, `#!/bin/sh\ncase " $* " in *" get "*) echo $$ > '${getPid}'; exec sleep 600;; esac\nexec etcdctl "$@"\n`, { mode: 0o755 });
    const exitsMidRead = join(dir, 'etcd-exits-mid-read.sh');
    writeFileSync(exitsMidRead, `#!/bin/sh\nwhile [ ! -s '${getPid}' ]; do sleep 0.05; done\necho 'etcd exits mid-read' >&2\nexit 1\n`, { mode: 0o755 });
    expect(await restoreTest(target, { ...o, env: { ...o.env, ETCD: exitsMidRead, ETCDCTL: hangingGet } })).toEqual([
      'etcd: the restored etcd did not serve: etcd exits mid-read',
    ]);
    expect(running(Number(readFileSync(getPid, 'utf8')))).toBe(false);
  });

  it("the drill fails with etcd's own last line when it exits for another cause, or when every start found a port taken", async () => {
    seeded();
    const broken = etcdFailingFirst(9, 'member drill has already been bootstrapped');
    expect(await restoreTest(target, { ...o, env: { ...o.env, ETCD: broken.ETCD } })).toEqual([
      'etcd: the restored etcd did not serve: member drill has already been bootstrapped',
    ]);
    expect(broken.starts()).toBe(1);
    const taken = etcdFailingFirst(9, 'bind: address already in use');
    expect(await restoreTest(target, { ...o, env: { ...o.env, ETCD: taken.ETCD } })).toEqual([
      'etcd: the restored etcd did not serve: bind: address already in use',
    ]);
    expect(taken.starts()).toBe(3);
  });
});
