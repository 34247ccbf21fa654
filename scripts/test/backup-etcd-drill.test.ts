/**
 * restore and restore-test (the drill: a throwaway etcd on the restored data) of the etcd target, and the drill's
 * failures, against a real etcd on 127.0.0.1 and a real restic repository (the harness: etcd-harness.ts). The backup
 * itself: backup-etcd.test.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../lib/exec.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { runBackup } from '../backup/run.ts';
import { fakeScaler, flipByte } from './backup-helpers.ts';
import { FAKES, running, useEtcdHarness } from './etcd-harness.ts';

const h = await useEtcdHarness();

describe.skipIf(h.skip)('etcd restore and drill', () => {
  it('restore verifies the snapshot and hands it over for talosctl bootstrap --recover-from, scaling nothing', async () => {
    h.seeded();
    const { calls, scaler } = fakeScaler();
    const lines: string[] = [];
    const result = await restore(h.target, { ...h.o, scaler, log: (l) => lines.push(l) });
    expect(result.replaced).toEqual([join(h.dir, 'restored-etcd.snapshot')]);
    expect(existsSync(result.replaced[0]!)).toBe(true);
    expect(calls).toEqual([]);
    expect(lines.join('\n')).toMatch(/bootstrap --recover-from=/);
  });

  it('restore refuses a corrupt snapshot and writes nothing', async () => {
    const path = h.seeded();
    writeFileSync(join(path, 'etcd.snapshot.zst'), flipByte(readFileSync(join(path, 'etcd.snapshot.zst'))));
    await expect(restore(h.target, { ...h.o, scaler: fakeScaler().scaler })).rejects.toThrow(/refusing .*SHA-256/);
    expect(existsSync(join(h.dir, 'restored-etcd.snapshot'))).toBe(false);
  });

  it('the drill fails when the cluster carries a newer sentinel than the newest snapshot', async () => {
    h.seeded(3_600_000);
    const later = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'backup-sentinel', namespace: 'backups' },
      data: { sentinel: `later-backup ${new Date().toISOString()}` },
    };
    await run(join(FAKES, 'kubectl.mjs'), ['apply', '-f', '-'], { env: h.o.env, input: JSON.stringify(later) });
    expect(await restoreTest(h.target, h.o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
  });

  /** An etcd whose first `failures` starts exit at once saying `words`, as etcd does; later starts are the real etcd. */
  function etcdFailingFirst(failures: number, words: string): { ETCD: string; starts: () => number } {
    const counter = join(h.dir, 'etcd-starts');
    const wrapper = join(h.dir, 'etcd-wrapper.sh');
    writeFileSync(counter, '');
    writeFileSync(
      wrapper,
      `#!/bin/sh\necho started >> '${counter}'\nif [ "$(wc -l < '${counter}')" -le ${failures} ]; then echo '${words}' >&2; exit 1; fi\nexec etcd "$@"\n`,
      { mode: 0o755 },
    );
    return { ETCD: wrapper, starts: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length };
  }

  it('the drill starts etcd again on other ports, on a fresh restore, when another process bound one first', async () => {
    await runBackup(h.target, h.o); // the newest backup carries the live sentinel, whatever an earlier test left there
    const etcd = etcdFailingFirst(2, 'listen tcp 127.0.0.1:2380: bind: address already in use');
    expect(await restoreTest(h.target, { ...h.o, env: { ...h.o.env, ETCD: etcd.ETCD } })).toEqual([]);
    expect(etcd.starts()).toBe(3);
  });

  it('the drill stops a read in flight when its etcd exits, rather than leaving the read to its own timeout', async () => {
    h.seeded();
    // etcdctl's get writes its pid and hangs; the restore's etcdctl calls are the real one. etcd exits once the get runs.
    const getPid = join(h.dir, 'etcdctl-get.pid');
    const hangingGet = join(h.dir, 'etcdctl-hanging-get.sh');
    writeFileSync(hangingGet, `#!/bin/sh\ncase " $* " in *" get "*) echo $$ > '${getPid}'; exec sleep 600;; esac\nexec etcdctl "$@"\n`, { mode: 0o755 });
    const exitsMidRead = join(h.dir, 'etcd-exits-mid-read.sh');
    writeFileSync(exitsMidRead, `#!/bin/sh\nwhile [ ! -s '${getPid}' ]; do sleep 0.05; done\necho 'etcd exits mid-read' >&2\nexit 1\n`, { mode: 0o755 });
    expect(await restoreTest(h.target, { ...h.o, env: { ...h.o.env, ETCD: exitsMidRead, ETCDCTL: hangingGet } })).toEqual([
      'etcd: the restored etcd did not serve: etcd exits mid-read',
    ]);
    expect(running(Number(readFileSync(getPid, 'utf8')))).toBe(false);
  });

  it("the drill fails with etcd's own last line when it exits for another cause, or when every start found a port taken", async () => {
    h.seeded();
    const broken = etcdFailingFirst(9, 'member drill has already been bootstrapped');
    expect(await restoreTest(h.target, { ...h.o, env: { ...h.o.env, ETCD: broken.ETCD } })).toEqual([
      'etcd: the restored etcd did not serve: member drill has already been bootstrapped',
    ]);
    expect(broken.starts()).toBe(1);
    const taken = etcdFailingFirst(9, 'bind: address already in use');
    expect(await restoreTest(h.target, { ...h.o, env: { ...h.o.env, ETCD: taken.ETCD } })).toEqual([
      'etcd: the restored etcd did not serve: bind: address already in use',
    ]);
    expect(taken.starts()).toBe(3);
  });
});
