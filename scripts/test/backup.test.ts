/**
 * Taking a backup of a SQLite target, with the real sqlite3 CLI, zstd and a real restic repository on local disk
 * (sqlite-lab.ts): what it publishes and keeps, a backup beside a writer, a lock another host left. A run that cannot
 * finish: backup-failures.test.ts; reading a backup back (backup-check, restore, restore-test): restore.test.ts.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { compressFile, sha256File } from '../backup/compress.ts';
import { latestSentinel } from '../backup/engines/sqlite.ts';
import type { SqliteTarget } from '../backup/engines/types.ts';
import { checkBackup, runBackup } from '../backup/run.ts';
import { listBackups, prune, publish, readManifest } from '../backup/store.ts';
import { resticTarget, targetRepository } from '../backup/restic.ts';
import { manifestKey } from '../backup/integrity.ts';
import { loadTarget, targetsOfDocument } from '../../policy-tests/model/apps/backup-targets.ts';
import { exec } from '../../test-support/exec.ts';
import { startSqliteWriter } from './backup-helpers.ts';
import { sqliteSkip, target, useSqliteLab } from './sqlite-lab.ts';

const skip = await sqliteSkip();
const lab = useSqliteLab(skip);
const resticEnv = lab.resticEnv;
// A process under another hostname, as a pod that died, needs a user and UTS namespace.
const otherHostname = !skip && (await exec('unshare', ['--user', '--map-root-user', '--uts', 'true'])).code === 0;
if (!otherHostname) console.warn('\n*** unshare --user --uts is not available: SKIPPING the killed-under-another-host restic lock test. ***\n');

describe.skipIf(skip)('backup', () => {
  it('publishes a compressed, checksummed backup with the sentinel, copied into restic, and backup-check passes', async () => {
    const { path } = await runBackup(target, lab.o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'sonarr', engine: 'sqlite', files: [{ name: 'sonarr.db.zst', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }] });
    expect(await latestSentinel(lab.db())).toEqual(manifest.sentinel);
    expect(await latestSentinel(await lab.restored(path))).toEqual(manifest.sentinel);
    expect(readdirSync(join(lab.o.backupDir, 'sonarr')).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await checkBackup(target, lab.o)).toEqual([]);
  });

  it('loses no committed row while the database is being written to', async () => {
    // A writer commits a row at a time, 100 a second, for the whole of the backup.
    const writer = startSqliteWriter(lab.db(), 100);
    try {
      // The writer is under way once its first rows are in.
      await expect.poll(() => writer.committed.length).toBeGreaterThan(5);
      const committedBefore = writer.committed.at(-1)!;
      const { path } = await runBackup(target, lab.o);
      const committedDuring = writer.committed.at(-1)! - committedBefore;
      await writer.stop();
      // It went on writing while the backup ran: the copy was taken under writes.
      expect(committedDuring).toBeGreaterThan(0);
      const copy = await lab.restored(path);
      expect(await lab.sql(copy, 'PRAGMA integrity_check;')).toBe('ok');
      const inBackup = (await lab.sql(copy, 'SELECT id FROM writes ORDER BY id;')).split('\n').map(Number);
      // Every row committed before the backup began is in it, with no gap.
      expect(inBackup.slice(0, committedBefore)).toEqual(Array.from({ length: committedBefore }, (_, i) => i + 1));
      // Every row in the backup is one the source still has, in the same order: a prefix of what was committed.
      expect(await lab.sql(copy, 'SELECT group_concat(id || at) FROM (SELECT id, at FROM writes ORDER BY id);')).toBe(
        await lab.sql(lab.db(), `SELECT group_concat(id || at) FROM (SELECT id, at FROM writes ORDER BY id LIMIT ${inBackup.length});`),
      );
    } finally {
      writer.kill();
    }
  });

  it('keeps exactly 14 days of backups', async () => {
    // The store's retention, as runBackup applies it after each publish (restic left out: it is slow and not under test here).
    const start = Date.parse('2026-11-01T03:00:00Z');
    const sentinel = { id: 'x', at: '' };
    for (let day = 0; day < 20; day++) {
      const now = new Date(start + day * 86_400_000);
      await publish({ root: lab.o.backupDir, target: 'sonarr', engine: 'sqlite', now, sentinel, files: [lab.db()], key: manifestKey(lab.o.env) });
      prune(lab.o.backupDir, 'sonarr', now);
    }
    const kept = listBackups(lab.o.backupDir, 'sonarr');
    expect(kept).toHaveLength(14);
    expect(kept.at(-1)!.time.toISOString()).toBe('2026-11-07T03:00:00.000Z');
  });

  it('keeps 14 days in restic too: older snapshots of the target are forgotten and pruned', async () => {
    const old = await runBackup(target, { ...lab.o, now: new Date(Date.now() - 20 * 86_400_000) });
    const { path } = await runBackup(target, lab.o);
    const paths = await resticTarget('sonarr', lab.o.env).paths();
    expect(paths).toContain(path);
    expect(paths).not.toContain(old.path);
  });

  it('a backup killed mid-publish stays invisible, and its temp folder goes with the next prune after a day', async () => {
    const abandoned = join(lab.o.backupDir, 'sonarr', '.tmp-2026-11-20T02-10-00-000Z-4242');
    mkdirSync(abandoned, { recursive: true });
    writeFileSync(join(abandoned, 'sonarr.db.zst'), 'half written');
    expect(listBackups(lab.o.backupDir, 'sonarr')).toEqual([]);
    expect(await checkBackup(target, lab.o)).toEqual([`sonarr: no backup at all in ${lab.o.backupDir}`]);
    expect(prune(lab.o.backupDir, 'sonarr', new Date())).toEqual([]);
    expect(prune(lab.o.backupDir, 'sonarr', new Date(Date.now() + 2 * 86_400_000))).toEqual(['.tmp-2026-11-20T02-10-00-000Z-4242']);
  });

  it('names the file and the place when a targets file is malformed', async () => {
    expect(() =>
      targetsOfDocument({ namespace: 'media', targets: { sonarr: { engine: 'sqlite', path: ['/config/sonarr.db'] } } }, 'apps/media/facts/backup-targets.yaml'),
    ).toThrow(/^apps\/media\/facts\/backup-targets\.yaml: \/targets\/sonarr /);
    expect(() => targetsOfDocument({ namespace: 'media', targets: { sonarr: { engine: 'mysql' } } }, 'f.yaml')).toThrow(/^f\.yaml: \/targets\/sonarr/);
    expect(() => targetsOfDocument('not a mapping', 'f.yaml')).toThrow(/^f\.yaml: \/ must be object/);
    expect(() => loadTarget(REPO_ROOT, 'lidarr')).toThrow(/^unknown target "lidarr"; declared: sonarr, radarr/);
  });

  it.skipIf(!otherHostname)('a restic run killed under another hostname holds its lock, yet every other target backs up (one repository each)', async () => {
    // As a pod that died: restic runs under another hostname, so no one can tell its process is gone, and is killed holding its lock.
    const radarr = loadTarget(REPO_ROOT, 'radarr') as SqliteTarget;
    resticEnv.addRepository('radarr');
    await lab.sql(join(lab.o.sourceRoot!, radarr.paths[0]!), 'CREATE TABLE movies (id INTEGER PRIMARY KEY);');
    const big = join(lab.dir, 'big-input');
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, 'noise'), randomBytes(64 * 1024 * 1024));
    const sonarrRepository = targetRepository(lab.o.env, 'sonarr');
    // Real locks only: restic writes each through a -tmp- file first.
    const locks = () => readdirSync(join(sonarrRepository, 'locks')).filter((name) => !name.includes('-tmp-'));
    const killed = spawn('unshare', ['--user', '--map-root-user', '--uts', 'sh', '-c', `hostname backup-pod-gone && exec restic backup ${big}`], {
      env: { ...lab.o.env, RESTIC_REPOSITORY: sonarrRepository },
    });
    try {
      await expect.poll(() => locks().length).toBeGreaterThan(0);
    } finally {
      killed.kill('SIGKILL');
      await new Promise((resolve) => killed.once('exit', resolve));
    }
    // The lock stays: restic cannot know the other host's process is gone, and unlock removes only stale locks.
    await exec('restic', ['unlock'], { env: { ...lab.o.env, RESTIC_REPOSITORY: sonarrRepository } });
    expect(locks().length).toBeGreaterThan(0);
    // Another target's backup, retention and prune included, does not see it.
    await expect(runBackup(radarr, lab.o)).resolves.toMatchObject({ path: expect.stringContaining('/radarr/') });
    // What the operator does once sure the pod is gone (the README says so); the other tests share this repository.
    await exec('restic', ['unlock', '--remove-all'], { env: { ...lab.o.env, RESTIC_REPOSITORY: sonarrRepository } });
    expect(locks()).toEqual([]);
    // A lock file the kill cut off mid-write is no lock to restic, and unlock leaves it: tidy it for the next tests.
    for (const name of readdirSync(join(sonarrRepository, 'locks'))) rmSync(join(sonarrRepository, 'locks', name), { force: true });
  });

  it('refuses to run without an off-site repository', async () => {
    await expect(runBackup(target, { ...lab.o, env: { ...lab.o.env, RESTIC_REPOSITORY: '' } })).rejects.toThrow(/off-site copy not configured/);
  });

  it('hashes the compressed file as it writes it: the digest is the written bytes', async () => {
    const out = join(lab.dir, 'hashed.db.zst');
    const digest = await compressFile(lab.db(), out);
    expect(digest).toEqual(sha256File(out));
    expect(digest.bytes).toBeGreaterThan(0);
    // A source zstd cannot read: one line naming zstd's cause, and nothing left behind.
    await expect(compressFile(join(lab.dir, 'no-such.db'), out)).rejects.toThrow(/^zstd: .*no-such\.db/);
    expect(existsSync(out)).toBe(false);
    // A target it cannot write: one line naming the file and the cause.
    const nowhere = join(lab.dir, 'no-such-folder', 'hashed.db.zst');
    await expect(compressFile(lab.db(), nowhere)).rejects.toThrow(`cannot write ${nowhere}: ENOENT: no such file or directory`);
  });
});
