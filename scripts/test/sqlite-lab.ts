/**
 * What the SQLite target's test files share: a real restic repository, the sonarr target of the real repository, a
 * source folder with a WAL-mode database of one row, and its golden backup taken once per file and copied into each
 * test. The files that use it: backup.test.ts (taking a backup, the commands, killed runs) and restore.test.ts
 * (reading one back: backup-check, restore, restore-test), each with its own repository and golden backup.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { loadTarget } from '../../policy-tests/model/apps/backup-targets.ts';
import { decompressFile } from '../backup/compress.ts';
import { runBackup, type BackupOptions } from '../backup/run.ts';
import { output } from '../../test-support/exec.ts';
import { skipForMissing } from '../../test-support/missing-tool.ts';
import { missingTools, seedBackup, useGoldenBackup, useResticRepository } from './backup-helpers.ts';

export const target = loadTarget(REPO_ROOT, 'sonarr');

/** Whether the file skips (a tool missing), said once per file. */
export async function sqliteSkip(): Promise<boolean> {
  return skipForMissing(await missingTools('sqlite3', 'restic', 'zstd'), 'SQLite backups');
}

/** A statement run by the real sqlite3 CLI, waiting up to 15 s on a lock a writer holds. */
export const sql = (file: string, statement: string) => output('sqlite3', ['-batch', '-cmd', '.timeout 15000', file, statement]);

/** Registers the file's hooks and returns the lab; its folder and options are set once the hooks have run. */
export function useSqliteLab(skip: boolean) {
  const resticEnv = useResticRepository(skip, ['sonarr']);
  let dir = '';
  let o: BackupOptions | undefined;
  const lab = {
    resticEnv,
    /** This test's folder. */
    get dir(): string {
      return dir;
    },
    /** The backup options of this test: its backup folder, its source and restic. */
    get o(): BackupOptions {
      return o!;
    },
    sql,
    /** The live database of this test's source. */
    db: () => join(dir, 'source', 'config', 'sonarr.db'),
    golden: () => golden(),
    /** The golden backup and its source, copied into this test's folder (at a path restic never saw), dated `ageMs` ago. */
    seeded(ageMs = 0): string {
      rmSync(join(dir, 'source'), { recursive: true, force: true });
      cpSync(join(golden(), 'source'), join(dir, 'source'), { recursive: true });
      return seedBackup(join(golden(), 'backups'), lab.o.backupDir, 'sonarr', ageMs);
    },
    /** A backup's database, decompressed into this test's folder. */
    async restored(path: string): Promise<string> {
      const file = join(dir, 'restored.db');
      await decompressFile(join(path, 'sonarr.db.zst'), file);
      return file;
    },
  };
  const golden = useGoldenBackup(
    skip,
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'backup-test-'));
      mkdirSync(join(dir, 'source', 'config'), { recursive: true });
      await sql(
        lab.db(),
        "PRAGMA journal_mode=WAL; CREATE TABLE episodes (id INTEGER PRIMARY KEY, title TEXT); INSERT INTO episodes (title) VALUES ('Pilot');",
      );
      o = { backupDir: join(dir, 'backups'), sourceRoot: join(dir, 'source'), env: resticEnv() };
      return dir;
    },
    () => runBackup(target, lab.o),
  );
  return lab;
}
