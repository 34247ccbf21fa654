/**
 * What the PostgreSQL target's test files share: a real server (postgres-server.ts) started once per file, a real
 * restic repository, a `notes` database with one row, and its golden backup taken once and copied into each test.
 * The files that use it: backup-postgres.test.ts (the backup, its check, the drill) and restore-postgres.test.ts
 * (the restore), each starting its own server so each holds a worker for half the time.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { PostgresTarget } from '../backup/engines/types.ts';
import { run } from '../lib/exec.ts';
import { runBackup, type BackupOptions } from '../backup/run.ts';
import { missingTools, seedBackup, useGoldenBackup, useResticRepository } from './backup-helpers.ts';
import { postgresBinDir, startPostgres, type PostgresServer } from './postgres-server.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';

export const target: PostgresTarget = { name: 'notes', engine: 'postgres', database: 'notes', namespace: 'apps', deployment: 'notes' };

/** Whether the file skips (a tool missing), said once per file. */
export async function postgresSkip(): Promise<boolean> {
  const bin = postgresBinDir();
  const missing = [
    ...(await missingTools('restic', 'zstd', 'pg_dump', 'pg_restore', 'psql')),
    ...(bin ? [] : ['a PostgreSQL server (Debian package postgresql)']),
  ];
  return skipForMissing(missing, 'PostgreSQL backups');
}

/** Registers the file's hooks and returns the lab; its server, folder and options are set once the hooks have run. */
export function usePostgresLab(skip: boolean) {
  const resticEnv = useResticRepository(skip, ['notes']);
  let server: PostgresServer | undefined;
  let dir = '';
  let o: BackupOptions | undefined;
  beforeAll(async () => {
    if (!skip) server = await startPostgres(postgresBinDir()!);
  });
  afterAll(async () => server?.stop());
  const lab = {
    get server(): PostgresServer {
      return server!;
    },
    /** This test's folder. */
    get dir(): string {
      return dir;
    },
    /** The backup options of this test: its backup folder, restic and the server. */
    get o(): BackupOptions {
      return o!;
    },
    psql: (database: string, statements: string) =>
      run('psql', ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-d', database, '-c', statements], { env: server!.env }),
    /** The titles of a database's notes, in order, comma-joined. */
    rows: (database = 'notes') => lab.psql(database, "SELECT coalesce(string_agg(title, ',' ORDER BY id), '') FROM notes"),
    /** The golden backup copied into this test's folder, dated `ageMs` ago. */
    seeded: (ageMs = 0) => seedBackup(join(golden(), 'backups'), lab.o.backupDir, 'notes', ageMs),
  };
  const golden = useGoldenBackup(
    skip,
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'backup-pg-test-'));
      const leftovers = (await lab.psql('postgres', "SELECT datname FROM pg_database WHERE datname LIKE 'notes%'")).split('\n').filter(Boolean);
      for (const db of leftovers) await lab.psql('postgres', `DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await lab.psql('postgres', 'CREATE DATABASE notes');
      await lab.psql('notes', "CREATE TABLE notes (id bigserial PRIMARY KEY, title text NOT NULL); INSERT INTO notes (title) VALUES ('first')");
      o = { backupDir: join(dir, 'backups'), env: { ...resticEnv(), ...server!.env } };
      return dir;
    },
    () => runBackup(target, lab.o),
  );
  return lab;
}
