/**
 * A PostgreSQL restore killed (SIGKILL, in a process of its own) or crashed at each of its steps, against a real
 * PostgreSQL server (postgres-lab.ts): the live name then holds the old database or the new one, never a mix. The
 * restore that ends: restore-postgres.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { restore } from '../backup/restore.ts';
import { fakeScaler, killedRestore } from './backup-helpers.ts';
import { postgresSkip, target, usePostgresLab } from './postgres-lab.ts';

const skip = await postgresSkip();
const lab = usePostgresLab(skip);

describe.skipIf(skip)('PostgreSQL restore, killed or crashed', () => {
  it.each(['staged', 'swapped'])(
    'a restore killed (SIGKILL) after step "%s" leaves the old or the new database under the live name, never a mix',
    async (step) => {
      lab.seeded();
      await lab.psql('notes', "INSERT INTO notes (title) VALUES ('after')");
      expect(await killedRestore({ target, backupDir: lab.o.backupDir, env: lab.server.env, crashAt: `kill:${step}` })).toBe('SIGKILL');
      expect(await lab.rows()).toBe(step === 'swapped' ? 'first' : 'first,after');
    },
  );

  it.each(['staged', 'inside-swap', 'swapped'])('a crash at "%s" leaves the old or the new database under the live name, never a mix', async (step) => {
    lab.seeded();
    await lab.psql('notes', "INSERT INTO notes (title) VALUES ('after')");
    const { calls, scaler } = fakeScaler(1);
    await expect(restore(target, { ...lab.o, scaler, crashAt: step })).rejects.toThrow(step === 'inside-swap' ? /division by zero/ : /simulated crash/);
    expect(calls).toEqual([0, 1]);
    expect(await lab.rows()).toBe(step === 'swapped' ? 'first' : 'first,after');
  });
});
