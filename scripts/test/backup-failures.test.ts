/**
 * A backup run of a SQLite target that cannot finish (sqlite-lab.ts): the commands' one-line errors and exit codes,
 * the scratch folders a killed run leaves and the next run removes, a TMPDIR full or too small, named as the cause.
 * Taking a backup: backup.test.ts.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { contextOf, runBackup, unpackVerified } from '../backup/run.ts';
import { removeAbandonedScratch, requireScratchSpace, ScratchSpaceError, withScratch } from '../backup/scratch.ts';
import { listBackups } from '../backup/store.ts';
import { exec } from '../../test-support/exec.ts';
import { sqliteSkip, target, useSqliteLab } from './sqlite-lab.ts';

const skip = await sqliteSkip();
const lab = useSqliteLab(skip);

describe.skipIf(skip)('the commands', () => {
  const cli = (script: string, args: string[], env: NodeJS.ProcessEnv) =>
    exec(process.execPath, [join(REPO_ROOT, 'scripts/backup/commands', script), ...args], { env: { ...env, BASE_URL: undefined } });

  // The npm run entry points (plain node, which strips the types); every command's behaviour is proven on the bundle in backup-image.test.ts.
  it('npm run backup with no restic repository yet keeps the local copy, exits 1 and says in one line to run restic init', async () => {
    const repository = join(lab.dir, 'never-initialised');
    const r = await cli('backup.ts', ['sonarr'], {
      ...lab.o.env,
      RESTIC_REPOSITORY: repository,
      BACKUP_DIR: lab.o.backupDir,
      BACKUP_SOURCE_ROOT: lab.o.sourceRoot,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^backup sonarr: local copy kept at ${lab.o.backupDir}/sonarr/\\S+, but the off-site copy failed: no restic repository at ${repository}/sonarr: create it once with "restic -r ${repository}/sonarr init" .*\\n$`,
      ),
    );
    const kept = r.stderr.match(/kept at (\S+),/)![1]!;
    expect(existsSync(join(kept, 'manifest.json'))).toBe(true);
  });

  it('npm run backup-check exits 1 with one line naming the problem', async () => {
    const none = await cli('backup-check.ts', ['sonarr'], { ...lab.o.env, BACKUP_DIR: lab.o.backupDir });
    expect([none.code, none.stdout, none.stderr]).toEqual([1, `backup-check sonarr: no backup at all in ${lab.o.backupDir}\n`, '']);
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
    const path = lab.seeded();
    const backup = listBackups(lab.o.backupDir, 'sonarr')[0]!;
    expect(backup.path).toBe(path);
    const dir = mkdtempSync(join(tmpdir(), 'full-'));
    try {
      // A full disk, as /dev/full answers every write: ENOSPC.
      symlinkSync('/dev/full', join(dir, 'sonarr.db'));
      const err = await unpackVerified(target, backup, dir, contextOf(lab.o)).catch((e: unknown) => e as Error);
      expect(err).toBeInstanceOf(ScratchSpaceError);
      expect((err as Error).message).toMatch(/^cannot unpack \S+: TMPDIR \(.*\) is full \(.*no space left on device.*\); the backup was not judged$/i);
      expect((err as Error).message).not.toMatch(/does not decompress|refusing/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a database path that names no file is refused in one line, and no empty database is made there', async () => {
    lab.seeded();
    const before = listBackups(lab.o.backupDir, 'sonarr').length;
    for (const side of ['', '-wal', '-shm']) rmSync(`${lab.db()}${side}`, { force: true });
    const err = await runBackup(target, lab.o).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(
      /^the database \/config\/sonarr\.db is not there \(.*sonarr\.db\): .*a new empty database; correct its paths in the backup targets$/,
    );
    expect(existsSync(lab.db())).toBe(false);
    expect(listBackups(lab.o.backupDir, 'sonarr')).toHaveLength(before);
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
