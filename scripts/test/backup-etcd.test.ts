/**
 * backup, backup-check and the drill of the etcd target, against a real etcd (Debian's etcd-server, started on
 * 127.0.0.1 by the test) with etcdctl, zstd and a real restic repository (the harness: etcd-harness.ts). What the
 * job asks of the cluster: backup-etcd-requests.test.ts; restore and the drill's failures: backup-etcd-drill.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressFile, sha256File } from '../backup/compress.ts';
import { run } from '../lib/exec.ts';
import { restoreTest } from '../backup/restore.ts';
import { checkBackup, runBackup } from '../backup/run.ts';
import { readManifest } from '../backup/store.ts';
import { resign } from './backup-helpers.ts';
import { FAKES, useEtcdHarness } from './etcd-harness.ts';

const h = await useEtcdHarness();

describe.skipIf(h.skip)('etcd backup', () => {
  it('snapshots etcd with its sentinel ConfigMap; backup-check and the drill (a throwaway etcd on the restored data) pass', async () => {
    const { path } = await runBackup(h.target, h.o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'etcd', engine: 'etcd', files: [{ name: 'etcd.snapshot.zst' }] });
    expect(await h.etcdctl('get', '/registry/configmaps/backups/backup-sentinel', '--print-value-only')).toContain(manifest.sentinel.id);
    expect(await checkBackup(h.target, h.o)).toEqual([]);
    expect(await restoreTest(h.target, h.o)).toEqual([]);
  });

  it('needs TALOS_NODE, and says so in one line', async () => {
    await expect(runBackup(h.target, { ...h.o, env: { ...h.o.env, TALOS_NODE: '' } })).rejects.toThrow(/^TALOS_NODE is not set/);
  });

  it('backup-check detects a damaged snapshot behind a matching checksum', async () => {
    const path = h.seeded();
    const manifest = readManifest(path);
    const snapshot = join(h.dir, 'etcd.snapshot');
    await run('zstd', ['-q', '-d', join(path, 'etcd.snapshot.zst'), '-o', snapshot]);
    writeFileSync(snapshot, readFileSync(snapshot).subarray(0, 8192));
    await compressFile(snapshot, join(path, 'etcd.snapshot.zst'));
    manifest.files[0] = { name: 'etcd.snapshot.zst', ...sha256File(join(path, 'etcd.snapshot.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(h.target, h.o)).toEqual([expect.stringMatching(/^etcd: .*etcd\.snapshot fails etcd(ctl|utl) snapshot status/)]);
  });

  it("reads and restores the snapshot with etcdutl wherever there is one, as the image's etcd 3.6 has no etcdctl snapshot status or restore", async () => {
    await runBackup(h.target, h.o); // the newest backup carries the live sentinel, whatever an earlier test left there
    const log = join(h.dir, 'etcdutl.log');
    const env = { ...h.o.env, ETCDUTL: join(FAKES, 'etcdutl.mjs'), FAKE_ETCDUTL_LOG: log };
    expect(await checkBackup(h.target, { ...h.o, env })).toEqual([]);
    expect(await restoreTest(h.target, { ...h.o, env })).toEqual([]);
    expect(readFileSync(log, 'utf8')).toBe('snapshot status\nsnapshot status\nsnapshot restore\n');
  });
});
