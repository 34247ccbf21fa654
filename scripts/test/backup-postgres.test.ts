/**
 * backup, backup-check, restore and restore-test of a PostgreSQL target,
 * against a real PostgreSQL server (Debian's, started on 127.0.0.1 by the
 * test), with pg_dump/pg_restore, zstd and a real restic repository.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PostgresTarget } from '../backup/engines/types.ts';
import { compressFile, sha256File } from '../backup/compress.ts';
import { run } from '../lib/exec.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { checkBackup, runBackup, type BackupOptions } from '../backup/run.ts';
import { readManifest } from '../backup/store.ts';
import { fakeScaler, flipByte, killedRestore, missingTools, seedBackup, slowScaler, useGoldenBackup, useResticRepository, resign } from './backup-helpers.ts';
import { postgresBinDir, startPostgres, type PostgresServer } from './postgres-server.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

const bin = postgresBinDir();
const missing = [
  ...(await missingTools('restic', 'zstd', 'pg_dump', 'pg_restore', 'psql')),
  ...(bin ? [] : ['a PostgreSQL server (Debian package postgresql)']),
];
const skip = skipForMissing(missing, 'PostgreSQL backups');
const resticEnv = useResticRepository(skip, ['notes']);
const target: PostgresTarget = { name: 'notes', engine: 'postgres', database: 'notes', namespace: 'apps', deployment: 'notes' };

let server: PostgresServer;
beforeAll(async () => {
  if (!skip) server = await startPostgres(bin!);
});
afterAll(async () => server?.stop());

let dir: string;
let o: BackupOptions;
const psql = (database: string, statements: string) =>
  run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', database, '-c', statements], { env: server.env });
const rows = (database = 'notes') => psql(database, "SELECT coalesce(string_agg(title, ',' ORDER BY id), '') FROM notes");

const golden = useGoldenBackup(
  skip,
  async () => {
    dir = mkdtempSync(join(tmpdir(), 'backup-pg-test-'));
    const leftovers = (await psql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'notes%'")).split('\n').filter(Boolean);
    for (const db of leftovers) await psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
    await psql('postgres', 'CREATE DATABASE notes');
    await psql('notes', "CREATE TABLE notes (id bigserial PRIMARY KEY, title text NOT NULL); INSERT INTO notes (title) VALUES ('first')");
    o = { backupDir: join(dir, 'backups'), env: { ...resticEnv(), ...server.env } };
    return dir;
  },
  () => runBackup(target, o),
);

/** The golden backup copied into this test's folder, dated `ageMs` ago. */
const seeded = (ageMs = 0) => seedBackup(join(golden(), 'backups'), o.backupDir, 'notes', ageMs);

describe.skipIf(skip)('PostgreSQL backup', () => {
  it('publishes a compressed pg_dump (custom format) with the sentinel; backup-check passes', async () => {
    const { path } = await runBackup(target, o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'notes', engine: 'postgres', files: [{ name: 'notes.pgdump.zst' }] });
    expect(await psql('notes', 'SELECT id FROM _backup_sentinel ORDER BY seq DESC LIMIT 1')).toBe(manifest.sentinel.id);
    expect(await checkBackup(target, o)).toEqual([]);
    expect(await restoreTest(target, o)).toEqual([]);
  });

  it('loses no committed row while the database is being written to', async () => {
    // Another client commits one row at a time (a transaction each) from before pg_dump starts until after the
    // backup is published, when it is stopped: so the dump certainly ran while rows were being committed.
    const loop = "DO $$ BEGIN FOR i IN 1..1000000 LOOP INSERT INTO notes (title) VALUES ('n' || i); COMMIT; PERFORM pg_sleep(0.001); END LOOP; END $$";
    const writer = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'notes', '-c', loop], {
      env: { ...server.env, PGAPPNAME: 'backup-test-writer' },
      stdio: 'ignore',
    });
    const writerDone = new Promise((r) => writer.on('exit', r));
    // The writer is under way once its first rows are in.
    await expect.poll(() => rows()).not.toBe('first');
    const committedBefore = (await rows()).split(',');
    const { path } = await runBackup(target, o);
    // A row committed after the backup was published: the live database then holds one the dump cannot, so a restore
    // that did nothing would show.
    const published = (await rows()).split(',').length;
    await expect.poll(async () => (await rows()).split(',').length).toBeGreaterThan(published);
    // Still writing after the backup, so it wrote throughout: stopped now (its open insert rolls back, the committed rows stay).
    expect(await psql('postgres', "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'backup-test-writer'")).toBe('1');
    await writerDone;
    // Restore it under the live name and compare with what the source had committed.
    const source = (await rows()).split(',');
    await restore(target, { ...o, scaler: fakeScaler().scaler });
    const restored = (await rows()).split(',');
    expect(restored.length).toBeGreaterThanOrEqual(committedBefore.length);
    expect(restored.length).toBeLessThan(source.length);
    expect(restored).toEqual(source.slice(0, restored.length));
    expect(await psql('notes', 'SELECT id FROM _backup_sentinel ORDER BY seq DESC LIMIT 1')).toBe(readManifest(path).sentinel.id);
  });

  it('backup-check detects a corrupt dump behind a matching checksum, and a flipped byte', async () => {
    const path = seeded();
    const manifest = readManifest(path);
    writeFileSync(join(dir, 'notes.pgdump'), 'PGDMP this is not a dump'.padEnd(4096, 'x'));
    await compressFile(join(dir, 'notes.pgdump'), join(path, 'notes.pgdump.zst'));
    manifest.files[0] = { name: 'notes.pgdump.zst', ...sha256File(join(path, 'notes.pgdump.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/^notes: .*notes\.pgdump fails pg_restore --list/)]);
    writeFileSync(join(path, 'notes.pgdump.zst'), flipByte(readFileSync(join(path, 'notes.pgdump.zst'))));
    expect(await checkBackup(target, o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });
});

describe.skipIf(skip)('PostgreSQL restore', () => {
  it('refuses a corrupt backup and leaves the live database as it was', async () => {
    const path = seeded();
    await psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    writeFileSync(join(path, 'notes.pgdump.zst'), flipByte(readFileSync(join(path, 'notes.pgdump.zst'))));
    const { calls, scaler } = fakeScaler();
    await expect(restore(target, { ...o, scaler })).rejects.toThrow(/refusing .*does not match its SHA-256/);
    expect([await rows(), calls]).toEqual(['first,after', []]);
  });

  it('scales to zero, swaps the database in, keeps the replaced one as notes_pre_restore_<time>, and scales back', async () => {
    seeded();
    await psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    const { calls, scaler } = fakeScaler(2);
    const now = new Date('2026-11-22T02:00:00.000Z');
    const result = await restore(target, { ...o, scaler, now });
    expect(calls).toEqual([0, 2]);
    expect(result.undo).toEqual(['notes_pre_restore_20261122t020000000z']);
    expect(await rows()).toBe('first');
    expect(await rows('notes_pre_restore_20261122t020000000z')).toBe('first,after');
  });

  it('keeps the undo copy of every restore, and drops those older than the retention', async () => {
    seeded();
    const first = await restore(target, { ...o, scaler: fakeScaler().scaler, now: new Date('2026-11-01T02:00:00.000Z') });
    await psql('notes', "INSERT INTO notes (title) VALUES ('between')");
    const second = await restore(target, { ...o, scaler: fakeScaler().scaler, now: new Date('2026-11-10T02:00:00.000Z') });
    expect(await rows(second.undo[0])).toBe('first,between');
    expect(await rows(first.undo[0])).toBe('first');
    const third = await restore(target, { ...o, scaler: fakeScaler().scaler, now: new Date('2026-11-16T02:00:00.000Z') });
    const undoCopies = (await psql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'notes_pre_restore_%' ORDER BY 1")).split('\n');
    expect(undoCopies).toEqual([second.undo[0], third.undo[0]]);
  });

  it('scales the app back up only after the swap has ended: the events in order', async () => {
    seeded();
    const events: string[] = [];
    await restore(target, { ...o, scaler: slowScaler(), onEvent: (e) => events.push(e) });
    expect(events).toEqual(['scale 0', 'staged', 'swapped', 'scale 1']);
  });

  it.each(['staged', 'swapped'])(
    'a restore killed (SIGKILL) after step "%s" leaves the old or the new database under the live name, never a mix',
    async (step) => {
      seeded();
      await psql('notes', "INSERT INTO notes (title) VALUES ('after')");
      expect(await killedRestore({ target, backupDir: o.backupDir, env: server.env, crashAt: `kill:${step}` })).toBe('SIGKILL');
      expect(await rows()).toBe(step === 'swapped' ? 'first' : 'first,after');
    },
  );

  it.each(['staged', 'inside-swap', 'swapped'])('a crash at "%s" leaves the old or the new database under the live name, never a mix', async (step) => {
    seeded();
    await psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    const { calls, scaler } = fakeScaler(1);
    await expect(restore(target, { ...o, scaler, crashAt: step })).rejects.toThrow(step === 'inside-swap' ? /division by zero/ : /simulated crash/);
    expect(calls).toEqual([0, 1]);
    expect(await rows()).toBe(step === 'swapped' ? 'first' : 'first,after');
  });
});

describe.skipIf(skip)('PostgreSQL restore-test', () => {
  it('fails when the live database carries a newer sentinel than the newest backup', async () => {
    seeded(3_600_000);
    await psql(
      'notes',
      `CREATE TABLE _backup_sentinel (seq bigserial PRIMARY KEY, id text NOT NULL, at text NOT NULL); INSERT INTO _backup_sentinel (id, at) VALUES ('later-backup', '${new Date().toISOString()}')`,
    );
    expect(await restoreTest(target, o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
    // The drill restores into a scratch database and drops it afterwards.
    expect(await psql('postgres', "SELECT count(*) FROM pg_database WHERE datname LIKE 'notes_restore_test_%'")).toBe('0');
  });
});
