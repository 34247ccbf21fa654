/**
 * backup, backup-check and restore-test of a PostgreSQL target, against a real PostgreSQL server (Debian's, started
 * on 127.0.0.1 by the test), with pg_dump/pg_restore, zstd and a real restic repository (postgres-lab.ts). The
 * restore: restore-postgres.test.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compressFile, sha256File } from '../backup/compress.ts';
import { restore, restoreTest } from '../backup/restore.ts';
import { checkBackup, runBackup } from '../backup/run.ts';
import { readManifest } from '../backup/store.ts';
import { fakeScaler, flipByte, resign } from './backup-helpers.ts';
import { postgresSkip, target, usePostgresLab } from './postgres-lab.ts';

const skip = await postgresSkip();
const lab = usePostgresLab(skip);

describe.skipIf(skip)('PostgreSQL backup', () => {
  it('publishes a compressed pg_dump (custom format) with the sentinel; backup-check passes', async () => {
    const { path } = await runBackup(target, lab.o);
    const manifest = readManifest(path);
    expect(manifest).toMatchObject({ target: 'notes', engine: 'postgres', files: [{ name: 'notes.pgdump.zst' }] });
    expect(await lab.psql('notes', 'SELECT id FROM _backup_sentinel ORDER BY seq DESC LIMIT 1')).toBe(manifest.sentinel.id);
    expect(await checkBackup(target, lab.o)).toEqual([]);
    expect(await restoreTest(target, lab.o)).toEqual([]);
  });

  it('loses no committed row while the database is being written to', async () => {
    // Another client commits one row at a time (a transaction each) from before pg_dump starts until after the
    // backup is published, when it is stopped: so the dump certainly ran while rows were being committed.
    const loop = "DO $$ BEGIN FOR i IN 1..1000000 LOOP INSERT INTO notes (title) VALUES ('n' || i); COMMIT; PERFORM pg_sleep(0.001); END LOOP; END $$";
    const writer = spawn('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', 'notes', '-c', loop], {
      env: { ...lab.server.env, PGAPPNAME: 'backup-test-writer' },
      stdio: 'ignore',
    });
    const writerDone = new Promise((r) => writer.on('exit', r));
    // The writer is under way once its first rows are in.
    await expect.poll(() => lab.rows()).not.toBe('first');
    const committedBefore = (await lab.rows()).split(',');
    const { path } = await runBackup(target, lab.o);
    // A row committed after the backup was published: the live database then holds one the dump cannot, so a restore
    // that did nothing would show.
    const published = (await lab.rows()).split(',').length;
    await expect.poll(async () => (await lab.rows()).split(',').length).toBeGreaterThan(published);
    // Still writing after the backup, so it wrote throughout: stopped now (its open insert rolls back, the committed rows stay).
    expect(await lab.psql('postgres', "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = 'backup-test-writer'")).toBe('1');
    await writerDone;
    // Restore it under the live name and compare with what the source had committed.
    const source = (await lab.rows()).split(',');
    await restore(target, { ...lab.o, scaler: fakeScaler().scaler });
    const restored = (await lab.rows()).split(',');
    expect(restored.length).toBeGreaterThanOrEqual(committedBefore.length);
    expect(restored.length).toBeLessThan(source.length);
    expect(restored).toEqual(source.slice(0, restored.length));
    expect(await lab.psql('notes', 'SELECT id FROM _backup_sentinel ORDER BY seq DESC LIMIT 1')).toBe(readManifest(path).sentinel.id);
  });

  it('backup-check detects a corrupt dump behind a matching checksum, and a flipped byte', async () => {
    const path = lab.seeded();
    const manifest = readManifest(path);
    writeFileSync(join(lab.dir, 'notes.pgdump'), 'PGDMP this is not a dump'.padEnd(4096, 'x'));
    await compressFile(join(lab.dir, 'notes.pgdump'), join(path, 'notes.pgdump.zst'));
    manifest.files[0] = { name: 'notes.pgdump.zst', ...sha256File(join(path, 'notes.pgdump.zst')) };
    writeFileSync(join(path, 'manifest.json'), JSON.stringify(manifest));
    resign(path);
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/^notes: .*notes\.pgdump fails pg_restore --list/)]);
    writeFileSync(join(path, 'notes.pgdump.zst'), flipByte(readFileSync(join(path, 'notes.pgdump.zst'))));
    expect(await checkBackup(target, lab.o)).toEqual([expect.stringMatching(/does not match its SHA-256/)]);
  });
});

describe.skipIf(skip)('PostgreSQL restore-test', () => {
  it('fails when the live database carries a newer sentinel than the newest backup', async () => {
    lab.seeded(3_600_000);
    await lab.psql(
      'notes',
      `CREATE TABLE _backup_sentinel (seq bigserial PRIMARY KEY, id text NOT NULL, at text NOT NULL); INSERT INTO _backup_sentinel (id, at) VALUES ('later-backup', '${new Date().toISOString()}')`,
    );
    expect(await restoreTest(target, lab.o)).toEqual([expect.stringMatching(/the source has a newer sentinel/)]);
    // The drill restores into a scratch database and drops it afterwards.
    expect(await lab.psql('postgres', "SELECT count(*) FROM pg_database WHERE datname LIKE 'notes_restore_test_%'")).toBe('0');
  });
});
