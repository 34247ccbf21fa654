/**
 * Benchmark of a SQLite backup (not a test): npm run bench:backup
 *
 * Generates a 1 GiB SQLite database shaped like a media manager's (episode
 * rows with titles, paths and dates), then measures in the same run:
 *   - the baseline: a durable plain copy of the database (`cp`, then `sync` of the copy), the physical limit.
 *     A plain `cp` of a file in the page cache is a memory copy, whose time moved 2.3-fold between two runs;
 *     the backup writes its archive to disk (fsync before the rename), so the baseline does too;
 *   - the consistent copy alone (SQLite's backup API, what the app's writes contend with);
 *   - `backup`: sentinel, online copy (SQLite's backup API), integrity_check,
 *     zstd, SHA-256 manifest, atomic publish, retention, the restic copy and
 *     restic's retention;
 *   - where the time goes, stage by stage.
 * Each figure is the median of 3 runs; every run starts from a fresh backup
 * folder and a fresh restic repository (no deduplication against a prior run).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { integrityCheck, snapshot } from '../scripts/backup/engines/sqlite.ts';
import type { SqliteTarget } from '../scripts/backup/engines/types.ts';
import { resticTarget } from '../scripts/backup/restic.ts';
import { runBackup } from '../scripts/backup/run.ts';
import { newSentinel } from '../scripts/backup/sentinel.ts';
import { publish } from '../scripts/backup/store.ts';
import { commandArgs } from '../scripts/lib/command.ts';

await commandArgs({
  name: 'bench:backup',
  usage: 'bench:backup',
  help: `Benchmarks a SQLite backup: builds a 1 GiB database in a temporary folder (it needs that much free space), then
measures a plain copy (the baseline), the consistent copy alone, and the whole backup with its restic copy, the
median of 3 runs each, and where the time goes. Needs sqlite3, zstd and restic on PATH. Reads no environment
variable of its own.`,
  options: {},
  positionals: { min: 0, max: 0 },
});

/** A manifest key of the benchmark's own: signing costs one HMAC per backup. */
const BENCH_KEY = Buffer.from('benchmark-manifest-key-0123456789abcdef');

const GIB = 1024 ** 3;
/** Every external command of the benchmark ends: a 1 GiB copy and its flush take seconds, not ten minutes. */
const COMMAND_TIMEOUT_MS = 10 * 60_000;
const RUNS = 3;
/** The goals: the consistent copy at least half as fast as a plain copy, the whole run at least 0.15 of it. */
const COPY_GOAL = 0.5;
const WHOLE_GOAL = 0.15;

const work = mkdtempSync(join(tmpdir(), 'bench-backup-'));
const source = join(work, 'source');
const db = join(source, 'config', 'sonarr.db');
const target: SqliteTarget = { name: 'sonarr', engine: 'sqlite', paths: ['/config/sonarr.db'], namespace: 'media', deployment: 'sonarr' };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const throughput = (bytes: number, ms: number) => `${(bytes / 1024 ** 2 / (ms / 1000)).toFixed(0)} MiB/s`;
async function time(body: () => unknown): Promise<number> {
  const start = performance.now();
  await body();
  return performance.now() - start;
}

/** A fresh restic base with the repository of `target` under it (each target has its own). */
function resticRepository(target: string): NodeJS.ProcessEnv {
  const env = {
    ...process.env,
    RESTIC_REPOSITORY: mkdtempSync(join(work, 'restic-')),
    RESTIC_PASSWORD: 'bench',
    RESTIC_CACHE_DIR: join(work, 'restic-cache'),
    BACKUP_MANIFEST_KEY: BENCH_KEY.toString(),
  };
  execFileSync('restic', ['init', '--quiet'], { env: { ...env, RESTIC_REPOSITORY: join(env.RESTIC_REPOSITORY, target) }, timeout: COMMAND_TIMEOUT_MS });
  return env;
}

try {
  mkdirSync(join(source, 'config'), { recursive: true });
  process.stdout.write('generating a 1 GiB SQLite database... ');
  // About 135 bytes a row: 7.95 million rows make 1 GiB.
  const generate = await time(() =>
    execFileSync(
      'sqlite3',
      [
        db,
        `PRAGMA page_size=4096; CREATE TABLE episodes (id INTEGER PRIMARY KEY, series TEXT, title TEXT, path TEXT, added TEXT);
       WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n LIMIT 7950000)
       INSERT INTO episodes SELECT i, 'Series ' || (i % 5000), 'Episode ' || i || ' ' || hex(randomblob(16)),
         '/data/series/Series ' || (i % 5000) || '/Season ' || (i % 20) || '/S' || (i % 20) || 'E' || (i % 100) || '.mkv',
         datetime(1700000000 + i, 'unixepoch') FROM n;
       PRAGMA journal_mode=WAL;`,
      ],
      { timeout: COMMAND_TIMEOUT_MS },
    ),
  );
  const bytes = statSync(db).size;
  process.stdout.write(`${(bytes / GIB).toFixed(2)} GiB in ${seconds(generate)}\n`);

  const copies: number[] = [];
  const snapshots: number[] = [];
  const backups: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const copy = join(work, 'copy.db');
    copies.push(
      await time(() => {
        execFileSync('cp', ['--reflink=never', db, copy], { timeout: COMMAND_TIMEOUT_MS });
        // The copy on disk, not in the page cache: fsync of the file (coreutils sync FILE).
        execFileSync('sync', [copy], { timeout: COMMAND_TIMEOUT_MS });
      }),
    );
    rmSync(copy);
    snapshots.push(await time(() => snapshot(db, copy)));
    rmSync(copy);
    const backupDir = join(work, `backups-${run}`);
    const env = resticRepository('sonarr');
    backups.push(await time(() => runBackup(target, { backupDir, sourceRoot: source, env })));
    rmSync(backupDir, { recursive: true, force: true });
  }

  // The same steps one by one, once, to show where the time goes.
  const stages: [string, number][] = [];
  const snap = join(work, 'stage', 'sonarr.db');
  mkdirSync(join(work, 'stage'));
  const stageRepository = resticRepository('stage');
  let published = '';
  stages.push(['online copy (the backup API in one step, memory-mapped reads)', await time(() => snapshot(db, snap))]);
  stages.push(['PRAGMA integrity_check of the copy', await time(() => integrityCheck(snap))]);
  stages.push([
    'publish: zstd -1 on all cores, SHA-256 while writing, fsync, rename',
    await time(
      async () =>
        (published = await publish({
          root: join(work, 'stage-backups'),
          target: 'sonarr',
          engine: 'sqlite',
          now: new Date(),
          sentinel: newSentinel(new Date()),
          files: [snap],
          key: BENCH_KEY,
        })),
    ),
  ]);
  const compressed = statSync(join(published, 'sonarr.db.zst')).size;
  stages.push(['restic backup (fresh repository)', await time(() => resticTarget('stage', stageRepository).backup(published, new Date()))]);
  stages.push(['restic forget --keep-within 14d --prune', await time(() => resticTarget('stage', stageRepository).forget(14))]);

  const copyMs = median(copies);
  const snapshotMs = median(snapshots);
  const backupMs = median(backups);
  const copyRatio = copyMs / snapshotMs;
  const ratio = copyMs / backupMs;
  const row = (name: string, ms: number, r: number) => `| ${name} | ${seconds(ms)} | ${throughput(bytes, ms)} | ${r.toFixed(2)} |\n`;
  process.stdout.write(`\n| 1 GiB SQLite database | Time (median of ${RUNS}) | Throughput | Ratio to the copy |\n|---|---|---|---|\n`);
  process.stdout.write(row('durable plain copy (`cp --reflink=never`, then `sync` of the copy), the baseline', copyMs, 1));
  process.stdout.write(row('the consistent copy alone (the backup API in one step)', snapshotMs, copyRatio));
  process.stdout.write(row('**`backup`, every step including the restic copy**', backupMs, ratio));
  process.stdout.write(`\n| Stage (once) | Time |\n|---|---|\n`);
  for (const [name, ms] of stages) process.stdout.write(`| ${name} | ${seconds(ms)} |\n`);
  const verdict = (r: number, goal: number) => `${r.toFixed(2)} (goal >= ${goal}: ${r >= goal ? 'met' : 'NOT met'})`;
  process.stdout.write(
    `\ncompressed to ${(compressed / 1024 ** 2).toFixed(0)} MiB (${((100 * compressed) / bytes).toFixed(0)}%); the consistent copy ${verdict(copyRatio, COPY_GOAL)}; the whole run ${verdict(ratio, WHOLE_GOAL)}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
