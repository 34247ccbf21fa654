/**
 * Reading a SQLite target's backup back, with the real sqlite3 CLI, zstd and a real restic repository on local disk
 * (sqlite-lab.ts): what backup-check detects, restore (refusals, the swap and its undo copies, a restore killed or
 * crashed at each step) and restore-test. Taking the backup: backup.test.ts.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressFile, sha256File } from '../backup/compress.ts';
import { latestSentinel, writeSentinel } from '../backup/engines/sqlite.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { checkBackup, runBackup } from '../backup/run.ts';
import { readManifest, recordSentinel, stamp } from '../backup/store.ts';
import { fakeScaler, flipByte, killedRestore, slowScaler, resign } from './backup-helpers.ts';
import { sqliteSkip, target, useSqliteLab } from './sqlite-lab.ts';

const skip = await sqliteSkip();
const lab = useSqliteLab(skip);

describe.skipIf(skip)('backup-check detects', () => {
  const damage = (mutate: (file: string) => void) => {
    const path = lab.seeded();
    mutate(join(path, 'sonarr.db.zst'));
    return path;
  };

  it('a truncated backup', async () => {
    damage((f) => writeFileSync(f, readFileSync(f).subarray(0, 40)));
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/sonarr\.db\.zst does not match its SHA-256/)]);
  });

  it('a flipped byte', async () => {
    damage((f) => writeFileSync(f, flipByte(readFileSync(f))));
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });

  it('a forged backup: new data with matching checksums, written by someone who can write the store but has no key', async () => {
    const path = damage(() => undefined);
    writeFileSync(join(lab.dir, 'sonarr.db'), readFileSync(lab.db()));
    await lab.sql(join(lab.dir, 'sonarr.db'), "INSERT INTO episodes (title) VALUES ('planted');");
    await compressFile(join(lab.dir, 'sonarr.db'), join(path, 'sonarr.db.zst'));
    const manifest = readManifest(path);
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(path, 'sonarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    expect(await checkBackup(target, lab.o)).toEqual([
      expect.stringMatching(/sonarr: .*the manifest signature does not match: the backup was forged or altered/),
    ]);
    await expect(restore(target, { ...lab.o, scaler: fakeScaler().scaler })).rejects.toThrow(/refusing .*the manifest signature does not match/);
    // Without its signature at all, and with the wrong key, the same.
    delete (manifest as { hmac?: string }).hmac;
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/the manifest carries no signature/)]);
    resign(path);
    expect(await checkBackup(target, { ...lab.o, env: { ...lab.o.env, BACKUP_MANIFEST_KEY: 'another-key-0123456789abcdef0123456789' } })).toEqual([
      expect.stringMatching(/signature does not match/),
    ]);
  });

  it('no manifest key: nothing is taken or checked, in one line', async () => {
    lab.seeded();
    const env = { ...lab.o.env, BACKUP_MANIFEST_KEY: undefined };
    expect(await checkBackup(target, { ...lab.o, env })).toEqual([expect.stringMatching(/no manifest key: set BACKUP_MANIFEST_KEY_FILE/)]);
    await expect(runBackup(target, { ...lab.o, env })).rejects.toThrow(/^no manifest key/);
  });

  it('a symlinked file or backup folder: never followed', async () => {
    const path = damage((f) => {
      writeFileSync(join(lab.dir, 'elsewhere.zst'), readFileSync(f));
      rmSync(f);
      symlinkSync(join(lab.dir, 'elsewhere.zst'), f);
    });
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/sonarr\.db\.zst is a symlink; a backup file must be a regular file/)]);
    // The whole folder a symlink to a backup elsewhere: not a backup of this store at all.
    rmSync(join(path, 'sonarr.db.zst'));
    const real = join(lab.dir, 'planted-backup');
    cpSync(
      join(
        lab.golden(),
        'backups',
        'sonarr',
        readdirSync(join(lab.golden(), 'backups', 'sonarr')).find((n) => !n.startsWith('.'))!,
      ),
      real,
      { recursive: true },
    );
    rmSync(path, { recursive: true });
    symlinkSync(real, path);
    expect(await checkBackup(target, lab.o)).toEqual([`sonarr: no backup at all in ${lab.o.backupDir}`]);
  });

  it('a wrong checksum in the manifest', async () => {
    const path = damage(() => undefined);
    const manifest = readManifest(path);
    manifest.files[0]!.sha256 = '0'.repeat(64);
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });

  it('a corrupt database behind a matching checksum', async () => {
    const path = damage(() => undefined);
    const manifest = readManifest(path);
    writeFileSync(join(lab.dir, 'sonarr.db'), 'SQLite format 3\0 this is not a database'.padEnd(8192, 'x'));
    await compressFile(join(lab.dir, 'sonarr.db'), join(path, 'sonarr.db.zst'));
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(path, 'sonarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/fails integrity_check/)]);
  });

  it('a stale backup', async () => {
    lab.seeded(27 * 3_600_000);
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/is 27\.\d h old, over 26 h/)]);
  });

  it('a backup missing from restic', async () => {
    // A sound, fresh backup folder that restic never copied.
    lab.seeded();
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/is not in the restic repository/)]);
  });
});

/**
 * After a restore stopped part-way (killed or crashed): the live database is whole and holds either the backup's data
 * or the live data it replaced (`oldCount` rows), never a mix. True where it holds the backup's.
 */
async function backupsOrLive(path: string, oldCount: string): Promise<boolean> {
  expect(await lab.sql(lab.db(), 'PRAGMA integrity_check;')).toBe('ok');
  const isNew =
    (await latestSentinel(lab.db()))?.id === readManifest(path).sentinel.id &&
    (await lab.sql(lab.db(), "SELECT count(*) FROM episodes WHERE title = 'newer';")) === '0';
  const isOld = (await lab.sql(lab.db(), 'SELECT count(*) FROM episodes;')) === oldCount;
  expect(isNew !== isOld).toBe(true);
  return isNew;
}

describe.skipIf(skip)('restore', () => {
  it('refuses a corrupt backup and leaves the live data byte-identical', async () => {
    const path = lab.seeded();
    writeFileSync(join(path, 'sonarr.db.zst'), flipByte(readFileSync(join(path, 'sonarr.db.zst'))));
    const before = readFileSync(lab.db());
    const { calls, scaler } = fakeScaler();
    await expect(restore(target, { ...lab.o, scaler })).rejects.toThrow(/refusing .*does not match its SHA-256/);
    expect(readFileSync(lab.db()).equals(before)).toBe(true);
    expect(calls).toEqual([]);
  });

  it('refuses a manifest that names a file outside the backup, even on a dry run, and writes nothing there', async () => {
    const path = lab.seeded();
    // A tampered store: a planted copy two folders up, and a manifest whose checksum matches it.
    const planted = join(path, '..', '..', 'planted', 'sonarr.db.zst');
    mkdirSync(dirname(planted), { recursive: true });
    cpSync(join(path, 'sonarr.db.zst'), planted);
    const manifest = readManifest(path);
    manifest.files[0] = { name: '../../planted/sonarr.db.zst', ...sha256File(planted) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    const before = readFileSync(lab.db());
    const { calls, scaler } = fakeScaler();
    for (const dryRun of [true, false]) {
      await expect(restore(target, { ...lab.o, scaler, dryRun })).rejects.toThrow(
        /refusing .*the manifest names "\.\.\/\.\.\/planted\/sonarr\.db\.zst", not a file this target's backup holds \(sonarr\.db\.zst\)/,
      );
    }
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/not a file this target's backup holds/)]);
    expect(readFileSync(lab.db()).equals(before)).toBe(true);
    expect(calls).toEqual([]);
    expect(existsSync(join(path, '..', '..', 'planted', 'sonarr.db'))).toBe(false);
  });

  it('refuses a manifest that names a file the target does not hold', async () => {
    const path = lab.seeded();
    cpSync(join(path, 'sonarr.db.zst'), join(path, 'radarr.db.zst'));
    const manifest = readManifest(path);
    manifest.files[0] = { name: 'radarr.db.zst', ...sha256File(join(path, 'radarr.db.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    await expect(restore(target, { ...lab.o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(/not a file this target's backup holds/);
  });

  it('scales to zero, swaps the data in, keeps the replaced data, and scales back', async () => {
    const path = lab.seeded();
    await lab.sql(lab.db(), "INSERT INTO episodes (title) VALUES ('after the backup');");
    const { calls, scaler } = fakeScaler(1);
    const dry = await restore(target, { ...lab.o, scaler, dryRun: true });
    expect([dry.replaced, calls]).toEqual([[], []]);
    const result = await restore(target, { ...lab.o, scaler, now: new Date('2026-11-22T02:00:00.000Z') });
    expect(calls).toEqual([0, 1]);
    expect(result.undo).toEqual([`${lab.db()}.pre-restore-20261122T020000000Z`]);
    expect(await latestSentinel(lab.db())).toEqual(readManifest(path).sentinel);
    expect(await lab.sql(lab.db(), "SELECT count(*) FROM episodes WHERE title = 'after the backup';")).toBe('0');
    expect(await lab.sql(result.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'after the backup';")).toBe('1');
  });

  it("keeps the replaced database's mode: a 0600 database is 0600 after the restore", async () => {
    lab.seeded();
    chmodSync(lab.db(), 0o600);
    await restore(target, { ...lab.o, scaler: fakeScaler().scaler });
    expect(statSync(lab.db()).mode & 0o777).toBe(0o600);
    expect(statSync(lab.db()).uid).toBe(process.getuid!());
  });

  it("refuses another target's signed backup copied into this target's folder, and a folder renamed to look newer", async () => {
    const path = lab.seeded();
    const manifest = readManifest(path);
    writeFileSync(join(path, 'manifest.json'), JSON.stringify({ ...manifest, target: 'radarr' }));
    resign(path);
    await expect(restore(target, { ...lab.o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(
      /refusing .*the manifest is the backup of "radarr", not of "sonarr": a signed backup copied into another target's folder/,
    );
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    const newer = join(dirname(path), stamp(new Date(Date.now() + 3_600_000)));
    renameSync(path, newer);
    await expect(restore(target, { ...lab.o, scaler: fakeScaler().scaler, dryRun: true })).rejects.toThrow(
      /refusing .*the manifest was created at .*, but its folder is named .*: a folder's name cannot make a backup newer or older/,
    );
  });

  it('keeps the undo copy of every restore, and removes those older than the retention', async () => {
    lab.seeded();
    const at = (day: string) => ({ ...lab.o, scaler: fakeScaler().scaler, now: new Date(`2026-11-${day}T02:00:00.000Z`) });
    await lab.sql(lab.db(), "INSERT INTO episodes (title) VALUES ('first live');");
    const first = await restore(target, at('01'));
    await lab.sql(lab.db(), "INSERT INTO episodes (title) VALUES ('second live');");
    const second = await restore(target, at('10'));
    expect(await lab.sql(first.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'first live';")).toBe('1');
    expect(await lab.sql(second.undo[0]!, "SELECT count(*) FROM episodes WHERE title = 'second live';")).toBe('1');
    const third = await restore(target, at('16'));
    const kept = readdirSync(dirname(lab.db()))
      .filter((n) => n.startsWith('sonarr.db.pre-restore-'))
      .sort();
    expect(kept.filter((n) => !/-(wal|shm)$/.test(n))).toEqual([second.undo[0], third.undo[0]].map((p) => basename(p!)));
  });

  it('scales the app back up only after the swap has ended: the events in order', async () => {
    lab.seeded();
    const events: string[] = [];
    // The scaler takes its time, as kubectl does: a missing await would let the scale-up overtake the swap.
    await restore(target, { ...lab.o, scaler: slowScaler(), onEvent: (e) => events.push(e) });
    expect(events).toEqual(['scale 0', 'staged', 'kept', 'swapped', 'scale 1']);
    expect(existsSync(`${lab.db()}.restore-tmp`)).toBe(false);
  });

  it.each(['staged', 'kept', 'swapped'])('a restore killed (SIGKILL) after step "%s" leaves either the old or the new database, never a mix', async (step) => {
    const path = lab.seeded();
    await lab.sql(lab.db(), "INSERT INTO episodes (title) VALUES ('newer');");
    const oldCount = await lab.sql(lab.db(), 'SELECT count(*) FROM episodes;');
    expect(await killedRestore({ target: 'sonarr', backupDir: lab.o.backupDir, sourceRoot: lab.o.sourceRoot, crashAt: `kill:${step}` })).toBe('SIGKILL');
    expect(await backupsOrLive(path, oldCount)).toBe(step === 'swapped');
  });

  it.each(['staged', 'kept', 'swapped'])(
    'a crash after step "%s" leaves either the old or the new data, never a mix, and the app scaled back',
    async (step) => {
      const path = lab.seeded();
      await lab.sql(lab.db(), "INSERT INTO episodes (title) VALUES ('newer');");
      const oldCount = await lab.sql(lab.db(), 'SELECT count(*) FROM episodes;');
      const { calls, scaler } = fakeScaler(1);
      await expect(restore(target, { ...lab.o, scaler, crashAt: step })).rejects.toThrow(/simulated crash/);
      expect(calls).toEqual([0, 1]);
      expect(await backupsOrLive(path, oldCount)).toBe(step === 'swapped');
    },
  );
});

describe.skipIf(skip)('restore-test', () => {
  it('passes when the newest backup restores with its own sentinel', async () => {
    lab.seeded();
    expect(await restoreTest(target, lab.o)).toEqual([]);
  });

  it('fails when the newest visible backup is older than the source’s sentinel (the false pass real labs hit)', async () => {
    lab.seeded(3_600_000);
    // A later backup ran (its sentinel is in the source) but its result never became the newest visible backup.
    await writeSentinel(lab.db(), { id: 'later-backup', at: new Date().toISOString() });
    expect(await restoreTest(target, lab.o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
  });

  it('fails when the newest backup is corrupt', async () => {
    const path = lab.seeded();
    writeFileSync(join(path, 'sonarr.db.zst'), 'garbage');
    expect(await restoreTest(target, lab.o)).toEqual([expect.stringMatching(/refusing .*SHA-256/)]);
  });

  it('fails when the newest backup holds an older snapshot than its manifest claims (restoring an old copy is not a pass)', async () => {
    const older = { path: lab.seeded(7_200_000) };
    const newer = await runBackup(target, lab.o);
    // The newest backup's file replaced by the older one, checksums made to match: only the sentinel can tell.
    const manifest = readManifest(newer.path);
    writeFileSync(join(newer.path, 'sonarr.db.zst'), readFileSync(join(older.path, 'sonarr.db.zst')));
    manifest.files[0] = { name: 'sonarr.db.zst', ...sha256File(join(newer.path, 'sonarr.db.zst')) };
    writeFileSync(join(newer.path, 'manifest.json'), JSON.stringify(manifest));
    resign(newer.path);
    expect(await restoreTest(target, lab.o)).toEqual([expect.stringMatching(/carries sentinel .* not the newest backup's/)]);
  });

  it('passes when a later backup was killed before publishing (no backup was taken), in-cluster and beside the live source', async () => {
    lab.seeded(3_600_000);
    // A backup killed after writing its sentinel into the source, before publishing.
    const killed = { id: 'killed-backup', at: new Date().toISOString() };
    recordSentinel(lab.o.backupDir, 'sonarr', killed);
    await writeSentinel(lab.db(), killed);
    expect(await restoreTest(target, { ...lab.o, sourceRoot: join(lab.dir, 'not-mounted') })).toEqual([]);
    expect(await restoreTest(target, lab.o)).toEqual([]);
  });

  it('fails in-cluster, where the live volume is not mounted, when a later published backup is missing', async () => {
    lab.seeded(3_600_000);
    const vanished = { id: 'vanished-backup', at: new Date().toISOString() };
    recordSentinel(lab.o.backupDir, 'sonarr', vanished);
    recordSentinel(lab.o.backupDir, 'sonarr', vanished, 'published');
    expect(await restoreTest(target, { ...lab.o, sourceRoot: join(lab.dir, 'not-mounted') })).toEqual([
      expect.stringMatching(/the sentinel ledger has a newer sentinel/),
    ]);
  });
});
