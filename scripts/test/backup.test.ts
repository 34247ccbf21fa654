/** backup, backup-check, restore and restore-test of SQLite targets, with the real sqlite3 CLI, zstd and a real restic repository on local disk. */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { compressFile, decompressFile, sha256File } from '../backup/compress.ts';
import { latestSentinel, writeSentinel } from '../backup/engines/sqlite.ts';
import type { SqliteTarget } from '../backup/engines/types.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { checkBackup, contextOf, runBackup, unpackVerified, type BackupOptions } from '../backup/run.ts';
import { removeAbandonedScratch, requireScratchSpace, ScratchSpaceError, withScratch } from '../backup/scratch.ts';
import { listBackups, prune, publish, readManifest, recordSentinel, stamp } from '../backup/store.ts';
import { resticTarget, targetRepository } from '../backup/restic.ts';
import { manifestKey } from '../backup/integrity.ts';
import { loadTarget, targetsOfDocument } from '../../policy-tests/model/apps/backup-targets.ts';
import { exec, output } from '../../test-support/exec.ts';
import {
  fakeScaler,
  flipByte,
  killedRestore,
  missingTools,
  seedBackup,
  slowScaler,
  startSqliteWriter,
  useGoldenBackup,
  useResticRepository,
  resign,
} from './backup-helpers.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

const skip = skipForMissing(await missingTools('sqlite3', 'restic', 'zstd'), 'SQLite backups');
const resticEnv = useResticRepository(skip, ['sonarr']);
// A process under another hostname, as a pod that died, needs a user and UTS namespace.
const otherHostname = !skip && (await exec('unshare', ['--user', '--map-root-user', '--uts', 'true'])).code === 0;
if (!otherHostname) console.warn('\n*** unshare --user --uts is not available: SKIPPING the killed-under-another-host restic lock test. ***\n');
const target = loadTarget(REPO_ROOT, 'sonarr');
let dir: string;
let o: BackupOptions;
const db = () => join(dir, 'source', 'config', 'sonarr.db');
const sql = (file: string, statement: string) => output('sqlite3', ['-batch', '-cmd', '.timeout 15000', file, statement]);

const golden = useGoldenBackup(
  skip,
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'backup-test-'));
    mkdirSync(join(dir, 'source', 'config'), { recursive: true });
    await sql(db(), "PRAGMA journal_mode=WAL; CREATE TABLE episodes (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO episodes (title) VALUES ('Pilot');");
    o = { backupDir: join(dir, 'backups'), sourceRoot: join(dir, 'source'), env: resticEnv() };
    return dir;
  },
  () => runBackup(target, o),
);

/** The golden backup and its source, copied into this test's folder (at a path restic never saw), dated `ageMs` ago. */
function seeded(ageMs = 0): string {
  rmSync(join(dir, 'source'), { recursive: true, force: true });
  cpSync(join(golden(), 'source'), join(dir, 'source'), { recursive: true });
  return seedBackup(join(golden(), 'backups'), o.backupDir, 'sonarr', ageMs);
}

const restored = async (path: string) => {
  const file = join(dir, 'restored.db');
  await decompressFile(join(path, 'sonarr.db.zst'), file);
  return file;
};

describe.skipIf(skip)('backup', () => {
  it('publishes a compressed, checksummed backup with the sentinel, copied into restic, and backup-check passes', async () => {
    const { path } = await runBackup(target, o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'sonarr', engine: 'sqlite', files: [{ name: 'sonarr.db.zst', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) }] });
    expect(await latestSentinel(db())).toEqual(manifest.sentinel);
    expect(await latestSentinel(await restored(path))).toEqual(manifest.sentinel);
    expect(readdirSync(join(o.backupDir, 'sonarr')).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await checkBackup(target, o)).toEqual([]);
  });

  it('loses no committed row while the database is being written to', async () => {
    // A writer commits a row at a time, 100 a second, for the whole of the backup.
    const writer = startSqliteWriter(db(), 100);
    try {
      // The writer is under way once its first rows are in.
      await expect.poll(() => writer.committed.length).toBeGreaterThan(5);
      const committedBefore = writer.committed.at(-1)!;
      const { path } = await runBackup(target, o);
      const committedDuring = writer.committed.at(-1)! - committedBefore;
      await writer.stop();
      // It went on writing while the backup ran: the copy was taken under writes.
      expect(committedDuring).toBeGreaterThan(0);
      const copy = await restored(path);
      expect(await sql(copy, 'PRAGMA integrity_check;')).toBe('ok');
      const inBackup = (await sql(copy, 'SELECT id FROM writes ORDER BY id;')).split('\n').map(Number);
      // Every row committed before the backup began is in it, with no gap.
      expect(inBackup.slice(0, committedBefore)).toEqual(Array.from({ length: committedBefore }, (_, i) => i + 1));
      // Every row in the backup is one the source still has, in the same order: a prefix of what was committed.
      expect(await sql(copy, 'SELECT group_concat(id || at) FROM (SELECT id, at FROM writes ORDER BY id);')).toBe(
        await sql(db(), `SELECT group_concat(id || at) FROM (SELECT id, at FROM writes ORDER BY id LIMIT ${inBackup.length});`),
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
      await publish({ root: o.backupDir, target: 'sonarr', engine: 'sqlite', now, sentinel, files: [db()], key: manifestKey(o.env) });
      prune(o.backupDir, 'sonarr', now);
    }
    const kept = listBackups(o.backupDir, 'sonarr');
    expect(kept).toHaveLength(14);
    expect(kept.at(-1)!.time.toISOString()).toBe('2026-11-07T03:00:00.000Z');
  });

  it('keeps 14 days in restic too: older snapshots of the target are forgotten and pruned', async () => {
    const old = await runBackup(target, { ...o, now: new Date(Date.now() - 20 * 86_400_000) });
    const { path } = await runBackup(target, o);
    const paths = await resticTarget('sonarr', o.env).paths();
    expect(paths).toContain(path);
    expect(paths).not.toContain(old.path);
  });

  it('a backup killed mid-publish stays invisible, and its temp folder goes with the next prune after a day', async () => {
    const abandoned = join(o.backupDir, 'sonarr', '.tmp-2026-11-20T02-10-00-000Z-4242');
    mkdirSync(abandoned, { recursive: true });
    writeFileSync(join(abandoned, 'sonarr.db.zst'), 'half written');
    expect(listBackups(o.backupDir, 'sonarr')).toEqual([]);
    expect(await checkBackup(target, o)).toEqual([`sonarr: no backup at all in ${o.backupDir}`]);
    expect(prune(o.backupDir, 'sonarr', new Date())).toEqual([]);
    expect(prune(o.backupDir, 'sonarr', new Date(Date.now() + 2 * 86_400_000))).toEqual(['.tmp-2026-11-20T02-10-00-000Z-4242']);
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
    await sql(join(o.sourceRoot!, radarr.paths[0]!), 'CREATE TABLE movies (id INTEGER PRIMARY KEY);');
    const big = join(dir, 'big-input');
    mkdirSync(big, { recursive: true });
    writeFileSync(join(big, 'noise'), randomBytes(64 * 1024 * 1024));
    const sonarrRepository = targetRepository(o.env, 'sonarr');
    // Real locks only: restic writes each through a -tmp- file first.
    const locks = () => readdirSync(join(sonarrRepository, 'locks')).filter((name) => !name.includes('-tmp-'));
    const killed = spawn('unshare', ['--user', '--map-root-user', '--uts', 'sh', '-c', `hostname backup-pod-gone && exec restic backup ${big}`], {
      env: { ...o.env, RESTIC_REPOSITORY: sonarrRepository },
    });
    try {
      await expect.poll(() => locks().length).toBeGreaterThan(0);
    } finally {
      killed.kill('SIGKILL');
      await new Promise((resolve) => killed.once('exit', resolve));
    }
    // The lock stays: restic cannot know the other host's process is gone, and unlock removes only stale locks.
    await exec('restic', ['unlock'], { env: { ...o.env, RESTIC_REPOSITORY: sonarrRepository } });
    expect(locks().length).toBeGreaterThan(0);
    // Another target's backup, retention and prune included, does not see it.
    await expect(runBackup(radarr, o)).resolves.toMatchObject({ path: expect.stringContaining('/radarr/') });
    // What the operator does once sure the pod is gone (the README says so); the other tests share this repository.
    await exec('restic', ['unlock', '--remove-all'], { env: { ...o.env, RESTIC_REPOSITORY: sonarrRepository } });
    expect(locks()).toEqual([]);
    // A lock file the kill cut off mid-write is no lock to restic, and unlock leaves it: tidy it for the next tests.
    for (const name of readdirSync(join(sonarrRepository, 'locks'))) rmSync(join(sonarrRepository, 'locks', name), { force: true });
  });

  it('refuses to run without an off-site repository', async () => {
    await expect(runBackup(target, { ...o, env: { ...o.env, RESTIC_REPOSITORY: '' } })).rejects.toThrow(/off-site copy not configured/);
  });

  it('hashes the compressed file as it writes it: the digest is the written bytes', async () => {
    const out = join(dir, 'hashed.db.zst');
    const digest = await compressFile(db(), out);
    expect(digest).toEqual(sha256File(out));
    expect(digest.bytes).toBeGreaterThan(0);
    // A source zstd cannot read: one line naming zstd's cause, and nothing left behind.
    await expect(compressFile(join(dir, 'no-such.db'), out)).rejects.toThrow(/^zstd: .*no-such\.db/);
    expect(existsSync(out)).toBe(false);
    // A target it cannot write: one line naming the file and the cause.
    const nowhere = join(dir, 'no-such-folder', 'hashed.db.zst');
    await expect(compressFile(db(), nowhere)).rejects.toThrow(`cannot write ${nowhere}: ENOENT: no such file or directory`);
  });
});

describe.skipIf(skip)('backup-check detects', () => {
  const damage = (mutate: (file: string) => void) => {
    const path = seeded();
    mutate(join(path, 'sonarr.db.zst'));
    return path;
  };

  it('a truncated backup', async () => {
    damage((f) => writeFileSync(f, readFileSync(f).subarray(0, 40)));
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/sonarr\.db\.zst does not match its SHA-256/)]);
  });

  it('a flipped byte', async () => {
    damage((f) => writeFileSync(f, flipByte(readFileSync(f))));
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });

  it('a forged backup: new data with matching checksums, written by someone who can write the store but has no key', async () => {
    const path = damage(() => undefined);
    writeFileSync(join(dir, 'sonarr.db'), readFileSync(db()));
    await sql(join(dir, 'sonarr.db'), "INSERT INTO episodes (title) VALUES ('planted');");
    await compressFile(join(dir, 'sonarr.db'), join(path, 'sonarr.db.zst'));
    const manifest = readManifest(path);
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(path, 'sonarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/sonarr: .*the manifest signature does not match: the backup was forged or altered/)]);
    await expect(restore(target, { ...o, scaler: fakeScaler().scaler })).rejects.toThrow(/refusing .*the manifest signature does not match/);
    // Without its signature at all, and with the wrong key, the same.
    delete (manifest as { hmac?: string }).hmac;
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/the manifest carries no signature/)]);
    resign(path);
    expect(await checkBackup(target, { ...o, env: { ...o.env, BACKUP_MANIFEST_KEY: 'another-key-0123456789abcdef0123456789' } })).toEqual([
      expect.stringMatching(/signature does not match/),
    ]);
  });

  it('no manifest key: nothing is taken or checked, in one line', async () => {
    seeded();
    const env = { ...o.env, BACKUP_MANIFEST_KEY: undefined };
    expect(await checkBackup(target, { ...o, env })).toEqual([expect.stringMatching(/no manifest key: set BACKUP_MANIFEST_KEY_FILE/)]);
    await expect(runBackup(target, { ...o, env })).rejects.toThrow(/^no manifest key/);
  });

  it('a symlinked file or backup folder: never followed', async () => {
    const path = damage((f) => {
      writeFileSync(join(dir, 'elsewhere.zst'), readFileSync(f));
      rmSync(f);
      symlinkSync(join(dir, 'elsewhere.zst'), f);
    });
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/sonarr\.db\.zst is a symlink; a backup file must be a regular file/)]);
    // The whole folder a symlink to a backup elsewhere: not a backup of this store at all.
    rmSync(join(path, 'sonarr.db.zst'));
    const real = join(dir, 'planted-backup');
    cpSync(
      join(
        golden(),
        'backups',
        'sonarr',
        readdirSync(join(golden(), 'backups', 'sonarr')).find((n) => !n.startsWith('.'))!,
      ),
      real,
      { recursive: true },
    );
    rmSync(path, { recursive: true });
    symlinkSync(real, path);
    expect(await checkBackup(target, o)).toEqual([`sonarr: no backup at all in ${o.backupDir}`]);
  });

  it('a wrong checksum in the manifest', async () => {
    const path = damage(() => undefined);
    const manifest = readManifest(path);
    manifest.files[0]!.sha256 = '0'.repeat(64);
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });

  it('a corrupt database behind a matching checksum', async () => {
    const path = damage(() => undefined);
    const manifest = readManifest(path);
    writeFileSync(join(dir, 'sonarr.db'), 'SQLite format 3\0 this is not a database'.padEnd(8192, 'x'));
    await compressFile(join(dir, 'sonarr.db'), join(path, 'sonarr.db.zst'));
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(path, 'sonarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/fails integrity_check/)]);
  });

  it('a stale backup', async () => {
    seeded(27 * 3_600_000);
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/is 27\.\d h old, over 26 h/)]);
  });

  it('a backup missing from restic', async () => {
    // A sound, fresh backup folder that restic never copied.
    seeded();
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/is not in the restic repository/)]);
  });
});

describe.skipIf(skip)('restore', () => {
  it('refuses a corrupt backup and leaves the live data byte-identical', async () => {
    const path = seeded();
    writeFileSync(join(path, 'sonarr.db.zst'), flipByte(readFileSync(join(path, 'sonarr.db.zst'))));
    const before = readFileSync(db());
    const { calls, scaler } = fakeScaler();
    await expect(restore(target, { ...o, scaler })).rejects.toThrow(/refusing .*does not match its SHA-256/);
    expect(readFileSync(db()).equals(before)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('refuses a manifest that names a file outside the backup, even on a dry run, and writes nothing there', async () => {
    const path = seeded();
    // A tampered store: a planted copy two folders up, and a manifest whose checksum matches it.
    const planted = join(path, '..', '..', 'planted', 'sonarr.db.zst');
    mkdirSync(dirname(planted), { recursive: true });
    cpSync(join(path, 'sonarr.db.zst'), planted);
    const manifest = readManifest(path);
    manifest.files[0] = { name: '../../planted/sonarr.db.zst', ...sha256File(planted) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    const before = readFileSync(db());
    const { calls, scaler } = fakeScaler();
    for (const dryRun of [true, false]) {
      await expect(restore(target, { ...o, scaler, dryRun })).rejects.toThrow(
        /refusing .*the manifest names "\.\.\/\.\.\/planted\/sonarr\.db\.zst", not a file this target's backup holds \(sonarr\.db\.zst\)/,
      );
    }
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/not a file this target's backup holds/)]);
    expect(readFileSync(db()).equals(before)).toBe(true);
    expect(calls).toEqual([]);
    expect(existsSync(join(path, '..', '..', 'planted', 'sonarr.db'))).toBe(false);
  });

  it('refuses a manifest that names a file the target does not hold', async () => {
    const path = seeded();
    cpSync(join(path, 'sonarr.db.zst'), join(path, 'radarr.db.zst'));
    const manifest = readManifest(path);
    manifest.files[0] = { name: 'radarr.db.zst', ...sha256File(join(path, 'radarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    await expect(restore(target, { ...o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(/not a file this target's backup holds/);
  });

  it('scales to zero, swaps the data in, keeps the replaced data, and scales back', async () => {
    const path = seeded();
    await sql(db(), "INSERT INTO episodes (title) VALUES ('after the backup');");
    const { calls, scaler } = fakeScaler(1);
    const dry = await restore(target, { ...o, scaler, dryRun: true });
    expect([dry.replaced, calls]).toEqual([[], []]);
    const result = await restore(target, { ...o, scaler, now: new Date('2026-11-22T02:00:00.000Z') });
    expect(calls).toEqual([0, 1]);
    expect(result.undo).toEqual([`${db()}.pre-restore-20261122T020000000Z`]);
    expect(await latestSentinel(db())).toEqual(readManifest(path).sentinel);
    expect(await sql(db(), "SELECT count(*) FROM episodes WHERE title = 'after the backup';")).toBe('0');
    expect(await sql(result.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'after the backup';")).toBe('1');
  });

  it("keeps the replaced database's mode: a 0600 database is 0600 after the restore", async () => {
    seeded();
    chmodSync(db(), 0o600);
    await restore(target, { ...o, scaler: fakeScaler().scaler });
    expect(statSync(db()).mode & 0o777).toBe(0o600);
    expect(statSync(db()).uid).toBe(process.getuid!());
  });

  it("refuses another target's signed backup copied into this target's folder, and a folder renamed to look newer", async () => {
    const path = seeded();
    const manifest = readManifest(path);
    writeFileSync(join(path, 'manifest.json'), JSON.stringify({ ...manifest, target: 'radarr' }));
    resign(path);
    await expect(restore(target, { ...o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(
      /refusing .*the manifest is the backup of "radarr", not of "sonarr": a signed backup copied into another target's folder/,
    );
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    const newer = join(dirname(path), stamp(new Date(Date.now() + 3_600_000)));
    renameSync(path, newer);
    await expect(restore(target, { ...o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(
      /refusing .*the manifest was created at .*, but its folder is named .*: a folder's name cannot make a backup newer or older/,
    );
  });

  it('keeps the undo copy of every restore, and removes those older than the retention', async () => {
    seeded();
    const at = (day: string) => ({ ...o, scaler: fakeScaler().scaler, now: new Date(`2026-11-${day}T02:00:00.000Z`) });
    await sql(db(), "INSERT INTO episodes (title) VALUES ('first live');");
    const first = await restore(target, at('01'));
    await sql(db(), "INSERT INTO episodes (title) VALUES ('second live');");
    const second = await restore(target, at('10'));
    expect(await sql(first.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'first live';")).toBe('1');
    expect(await sql(second.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'second live';")).toBe('1');
    const third = await restore(target, at('16'));
    const kept = readdirSync(dirname(db()))
      .filter((n) => n.startsWith('sonarr.db.pre-restore-'))
      .sort();
    expect(kept.filter((n) => !/-(wal|shm)$/.test(n))).toEqual([second.undo[0], third.undo[0]].map((p) => basename(p!)));
  });

  it('scales the app back up only after the swap has ended: the events in order', async () => {
    seeded();
    const events: string[] = [];
    // The scaler takes its time, as kubectl does: a missing await would let the scale-up overtake the swap.
    await restore(target, { ...o, scaler: slowScaler(), onEvent: (e) => events.push(e) });
    expect(events).toEqual(['scale 0', 'staged', 'kept', 'swapped', 'scale 1']);
    expect(existsSync(`${db()}.restore-tmp`)).toBe(false);
  });

  it.each(['staged', 'kept', 'swapped'])('a restore killed (SIGKILL) after step "%s" leaves either the old or the new database, never a mix', async (step) => {
    const path = seeded();
    await sql(db(), "INSERT INTO episodes (title) VALUES ('newer');");
    const oldCount = await sql(db(), 'SELECT count(*) FROM episodes;');
    expect(await killedRestore({ target: 'sonarr', backupDir: o.backupDir, sourceRoot: o.sourceRoot, crashAt: `kill:${step}` })).toBe('SIGKILL');
    expect(await sql(db(), 'PRAGMA integrity_check;')).toBe('ok');
    const isNew =
      (await latestSentinel(db()))?.id === readManifest(path).sentinel.id && (await sql(db(), "SELECT count(*) FROM episodes WHERE title = 'newer';")) === '0';
    const isOld = (await sql(db(), 'SELECT count(*) FROM episodes;')) === oldCount;
    expect(isNew !== isOld).toBe(true);
    expect(isNew).toBe(step === 'swapped');
  });

  it.each(['staged', 'kept', 'swapped'])(
    'a crash after step "%s" leaves either the old or the new data, never a mix, and the app scaled back',
    async (step) => {
      const path = seeded();
      await sql(db(), "INSERT INTO episodes (title) VALUES ('newer');");
      const oldCount = await sql(db(), 'SELECT count(*) FROM episodes;');
      const { calls, scaler } = fakeScaler(1);
      await expect(restore(target, { ...o, scaler, crashAt: step })).rejects.toThrow(/simulated crash/);
      expect(calls).toEqual([0, 1]);
      expect(await sql(db(), 'PRAGMA integrity_check;')).toBe('ok');
      const isNew =
        (await latestSentinel(db()))?.id === readManifest(path).sentinel.id &&
        (await sql(db(), "SELECT count(*) FROM episodes WHERE title = 'newer';")) === '0';
      const isOld = (await sql(db(), 'SELECT count(*) FROM episodes;')) === oldCount;
      expect(isNew !== isOld).toBe(true);
      expect(isNew).toBe(step === 'swapped');
    },
  );
});

describe.skipIf(skip)('restore-test', () => {
  it('passes when the newest backup restores with its own sentinel', async () => {
    seeded();
    expect(await restoreTest(target, o)).toEqual([]);
  });

  it('fails when the newest visible backup is older than the source’s sentinel (the false pass real labs hit)', async () => {
    seeded(3_600_000);
    // A later backup ran (its sentinel is in the source) but its result never became the newest visible backup.
    await writeSentinel(db(), { id: 'later-backup', at: new Date().toISOString() });
    expect(await restoreTest(target, o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
  });

  it('fails when the newest backup is corrupt', async () => {
    const path = seeded();
    writeFileSync(join(path, 'sonarr.db.zst'), 'garbage');
    expect(await restoreTest(target, o)).toEqual([expect.stringMatching(/refusing .*SHA-256/)]);
  });

  it('fails when the newest backup holds an older snapshot than its manifest claims (restoring an old copy is not a pass)', async () => {
    const older = { path: seeded(7_200_000) };
    const newer = await runBackup(target, o);
    // The newest backup's file replaced by the older one, checksums made to match: only the sentinel can tell.
    const manifest = readManifest(newer.path);
    writeFileSync(join(newer.path, 'sonarr.db.zst'), readFileSync(join(older.path, 'sonarr.db.zst')));
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(newer.path, 'sonarr.db.zst')) };
    writeFileSync(join(newer.path, 'manifest.json'), JSON.stringify(manifest));
    resign(newer.path);
    expect(await restoreTest(target, o)).toEqual([expect.stringMatching(/carries sentinel .* not the newest backup's/)]);
  });

  it('passes when a later backup was killed before publishing (no backup was taken), in-cluster and beside the live source', async () => {
    seeded(3_600_000);
    // A backup killed after writing its sentinel into the source, before publishing.
    const killed = { id: 'killed-backup', at: new Date().toISOString() };
    recordSentinel(o.backupDir, 'sonarr', killed);
    await writeSentinel(db(), killed);
    expect(await restoreTest(target, { ...o, sourceRoot: join(dir, 'not-mounted') })).toEqual([]);
    expect(await restoreTest(target, o)).toEqual([]);
  });

  it('fails in-cluster, where the live volume is not mounted, when a later published backup is missing', async () => {
    seeded(3_600_000);
    const vanished = { id: 'vanished-backup', at: new Date().toISOString() };
    recordSentinel(o.backupDir, 'sonarr', vanished);
    recordSentinel(o.backupDir, 'sonarr', vanished, 'published');
    expect(await restoreTest(target, { ...o, sourceRoot: join(dir, 'not-mounted') })).toEqual([
      expect.stringMatching(/the sentinel ledger has a newer sentinel/),
    ]);
  });
});

describe.skipIf(skip)('the commands', () => {
  const cli = (script: string, args: string[], env: NodeJS.ProcessEnv) =>
    exec(process.execPath, [join(REPO_ROOT, 'scripts/backup/commands', script), ...args], { env: { ...env, BASE_URL: undefined } });

  // The npm run entry points (plain node, which strips the types); every command's behaviour is proven on the bundle in backup-image.test.ts.
  it('npm run backup with no restic repository yet keeps the local copy, exits 1 and says in one line to run restic init', async () => {
    const repository = join(dir, 'never-initialised');
    const r = await cli('backup.ts', ['sonarr'], { ...o.env, RESTIC_REPOSITORY: repository, BACKUP_DIR: o.backupDir, BACKUP_SOURCE_ROOT: o.sourceRoot });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^backup sonarr: local copy kept at ${o.backupDir}/sonarr/\\S+, but the off-site copy failed: no restic repository at ${repository}/sonarr: create it once with "restic -r ${repository}/sonarr init" .*\\n$`,
      ),
    );
    const kept = r.stderr.match(/kept at (\S+),/)![1]!;
    expect(existsSync(join(kept, 'manifest.json'))).toBe(true);
  });

  it('npm run backup-check exits 1 with one line naming the problem', async () => {
    const none = await cli('backup-check.ts', ['sonarr'], { ...o.env, BACKUP_DIR: o.backupDir });
    expect([none.code, none.stdout, none.stderr]).toEqual([1, `backup-check sonarr: no backup at all in ${o.backupDir}\n`, '']);
  });
});

describe.skipIf(skip)('killed runs and a full TMPDIR', () => {
  it('the next run removes the scratch folders of runs that are gone, and keeps those of live runs and of runs starting', async () => {
    const root = mkdtempSync(join(tmpdir(), 'scratch-root-'));
    try {
      const gone = join(root, 'homelab-backup-backup-sonarr-dead');
      const live = join(root, 'homelab-backup-backup-radarr-live');
      const never = join(root, 'homelab-backup-restore-sonarr-early');
      const starting = join(root, 'homelab-backup-check-sonarr-starting');
      // Its owner file created and not yet written (writeFileSync opens, then writes): a run starting, not a dead one.
      const writing = join(root, 'homelab-backup-restore-test-sonarr-writing');
      for (const d of [gone, live, never, starting, writing]) mkdirSync(d);
      writeFileSync(join(writing, '.owner-pid'), '');
      // An owner-less folder an hour old was left by a run killed before it wrote its PID; a young one may be starting now.
      const hourAgo = new Date(Date.now() - 61 * 60_000);
      utimesSync(never, hourAgo, hourAgo);
      // A PID that no process has: a killed run's.
      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.once('exit', resolve));
      writeFileSync(join(gone, '.owner-pid'), String(dead.pid));
      writeFileSync(join(gone, 'sonarr.db'), randomBytes(1024));
      writeFileSync(join(live, '.owner-pid'), String(process.pid));
      let inside = '';
      await withScratch(
        'backup-sonarr',
        async (dir) => {
          inside = dir;
          expect(readdirSync(root).sort()).toEqual([basename(dir), basename(live), basename(starting), basename(writing)].sort());
        },
        root,
      );
      expect(existsSync(inside)).toBe(false);
      expect(readdirSync(root).sort()).toEqual([basename(live), basename(starting), basename(writing)].sort());
      // Still empty an hour on, it was left by a run killed between the two.
      utimesSync(writing, hourAgo, hourAgo);
      expect(removeAbandonedScratch(root)).toEqual([writing]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a scratch folder that vanishes during the cleanup (another run removed it) is skipped, not a crash', () => {
    const root = mkdtempSync(join(tmpdir(), 'scratch-root-'));
    try {
      // A name listed by readdir that is gone by the time it is looked at: a dangling link stands in for the race.
      symlinkSync(join(root, 'removed-meanwhile'), join(root, 'homelab-backup-backup-sonarr-racing'));
      expect(removeAbandonedScratch(root)).toEqual([]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('a TMPDIR with no room is named as the cause, and the backup is not called corrupt', async () => {
    const path = seeded();
    const backup = listBackups(o.backupDir, 'sonarr')[0]!;
    expect(backup.path).toBe(path);
    const dir = mkdtempSync(join(tmpdir(), 'full-'));
    try {
      // A full disk, as /dev/full answers every write: ENOSPC.
      symlinkSync('/dev/full', join(dir, 'sonarr.db'));
      const err = await unpackVerified(target, backup, dir, contextOf(o)).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(ScratchSpaceError);
      expect((err as Error).message).toMatch(/^cannot unpack \S+: TMPDIR \(.*\) is full \(.*no space left on device.*\); the backup was not judged$/i);
      expect((err as Error).message).not.toMatch(/does not decompress|refusing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the space a run may use', () => {
  it('refuses to start a run that needs more than TMPDIR has, naming both figures', () => {
    expect(() => requireScratchSpace(Number.MAX_SAFE_INTEGER, tmpdir())).toThrow(
      /^TMPDIR \(.*\) has [\d,]+ MiB free, and this run needs about [\d,]+ MiB: free space there/,
    );
    expect(() => requireScratchSpace(1, tmpdir())).not.toThrow();
  });
});
