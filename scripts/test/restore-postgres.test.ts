/**
 * restore of a PostgreSQL target, against a real PostgreSQL server (Debian's, started on 127.0.0.1 by the test),
 * from a real restic repository (postgres-lab.ts): a refused backup, the swap and its undo copies, the order of its
 * events. A restore killed or crashed at each step: restore-postgres-crash.test.ts; the backup: backup-postgres.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { restore } from '../backup/restore.ts';
import { fakeScaler, flipByte, slowScaler } from './backup-helpers.ts';
import { postgresSkip, target, usePostgresLab } from './postgres-lab.ts';

const skip = await postgresSkip();
const lab = usePostgresLab(skip);

describe.skipIf(skip)('PostgreSQL restore', () => {
  it('refuses a corrupt backup and leaves the live database as it was', async () => {
    const path = lab.seeded();
    await lab.psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    writeFileSync(join(path, 'notes.pgdump.zst'), flipByte(readFileSync(join(path, 'notes.pgdump.zst'))));
    const { calls, scaler } = fakeScaler();
    await expect(restore(target, { ...lab.o, scaler })).rejects.toThrow(/refusing .*does not match its SHA-256/);
    expect([await lab.rows(), calls]).toEqual(['first,after', []]);
  });

  it('scales to zero, swaps the database in, keeps the replaced one as notes_pre_restore_<time>, and scales back', async () => {
    lab.seeded();
    await lab.psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    const { calls, scaler } = fakeScaler(2);
    const now = new Date('2026-11-22T02:00:00.000Z');
    const result = await restore(target, { ...lab.o, scaler, now });
    expect(calls).toEqual([0, 2]);
    expect(result.undo).toEqual(['notes_pre_restore_20261122t020000000z']);
    expect(await lab.rows()).toBe('first');
    expect(await lab.rows('notes_pre_restore_20261122t020000000z')).toBe('first,after');
  });

  it('keeps the undo copy of every restore, and drops those older than the retention', async () => {
    lab.seeded();
    const first = await restore(target, { ...lab.o, scaler: fakeScaler().scaler, now: new Date('2026-11-01T02:00:00.000Z') });
    await lab.psql('notes', "INSERT INTO notes (title) VALUES ('between')");
    const second = await restore(target, { ...lab.o, scaler: fakeScaler().scaler, now: new Date('2026-11-10T02:00:00.000Z') });
    expect(await lab.rows(second.undo[0])).toBe('first,between');
    expect(await lab.rows(first.undo[0])).toBe('first');
    const third = await restore(target, { ...lab.o, scaler: fakeScaler().scaler, now: new Date('2026-11-16T02:00:00.000Z') });
    const undoCopies = (await lab.psql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'notes_pre_restore_%' ORDER BY 1")).split('\n');
    expect(undoCopies).toEqual([second.undo[0], third.undo[0]]);
  });

  it('scales the app back up only after the swap has ended: the events in order', async () => {
    lab.seeded();
    const events: string[] = [];
    await restore(target, { ...lab.o, scaler: slowScaler(), onEvent: (e) => events.push(e) });
    expect(events).toEqual(['scale 0', 'staged', 'swapped', 'scale 1']);
  });
});
