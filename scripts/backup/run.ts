/**
 * backup and backup-check for SQLite targets: a sentinel written into the
 * source, an online copy verified by integrity_check, a compressed and
 * checksummed backup published atomically, 14 days kept, and a restic copy.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { resticBackup, resticPaths } from './restic.ts';
import { integrityCheck, snapshot, writeSentinel } from './sqlite.ts';
import { gunzipFile, listBackups, MAX_AGE_HOURS, prune, publish, readManifest, verifyChecksums } from './store.ts';

export const TARGETS_FILE = 'apps/media/facts/backup-targets.yaml';

export interface Target {
  name: string;
  engine: 'sqlite';
  paths: string[];
}

export interface BackupOptions {
  /** Where finished backups live (BACKUP_DIR). */
  backupDir: string;
  /** Prefix for the target's paths, for running outside the app's pod (BACKUP_SOURCE_ROOT). */
  sourceRoot?: string;
  env: NodeJS.ProcessEnv;
  now?: Date;
}

export function loadTarget(repoRoot: string, name: string): Target {
  const targets = (parse(readFileSync(join(repoRoot, TARGETS_FILE), 'utf8')) as { targets: Record<string, { engine: string; paths: string[] }> }).targets;
  const t = targets[name];
  if (!t) throw new Error(`unknown target "${name}"; declared: ${Object.keys(targets).join(', ')}`);
  if (t.engine !== 'sqlite') throw new Error(`target ${name}: engine ${t.engine} is not handled by this script`);
  return { name, engine: 'sqlite', paths: t.paths };
}

const requireRestic = (env: NodeJS.ProcessEnv) => {
  if (!env.RESTIC_REPOSITORY || !(env.RESTIC_PASSWORD || env.RESTIC_PASSWORD_FILE)) throw new Error('off-site copy not configured: set RESTIC_REPOSITORY and RESTIC_PASSWORD');
};

export function runBackup(target: Target, o: BackupOptions): { path: string; pruned: string[] } {
  requireRestic(o.env);
  const now = o.now ?? new Date();
  const sentinel = { id: randomUUID(), at: now.toISOString() };
  const work = mkdtempSync(join(tmpdir(), `backup-${target.name}-`));
  try {
    const files = target.paths.map((p) => {
      const source = join(o.sourceRoot ?? '', p);
      writeSentinel(source, sentinel);
      const copy = join(work, basename(p));
      snapshot(source, copy);
      const check = integrityCheck(copy);
      if (check !== 'ok') throw new Error(`${p}: the copy fails integrity_check: ${check}`);
      return { name: basename(p), data: readFileSync(copy) };
    });
    const path = publish(o.backupDir, target.name, target.engine, now, sentinel, files);
    const pruned = prune(o.backupDir, target.name, now);
    resticBackup(path, target.name, o.env);
    return { path, pruned };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** The newest backup's problems, as one line each; empty when it is sound. */
export function checkBackup(target: Target, o: BackupOptions): string[] {
  const now = o.now ?? new Date();
  const newest = listBackups(o.backupDir, target.name)[0];
  if (!newest) return [`${target.name}: no backup at all`];
  const ageHours = (now.getTime() - newest.time.getTime()) / 3_600_000;
  if (ageHours > MAX_AGE_HOURS) return [`${target.name}: the newest backup (${newest.name}) is ${ageHours.toFixed(1)} h old, over ${MAX_AGE_HOURS} h`];
  const checksum = verifyChecksums(newest.path);
  if (checksum) return [`${target.name}: ${newest.name}: ${checksum}`];
  const work = mkdtempSync(join(tmpdir(), `check-${target.name}-`));
  try {
    for (const f of readManifest(newest.path).files) {
      let data: Buffer;
      try {
        data = gunzipFile(join(newest.path, f.name));
      } catch (err) {
        return [`${target.name}: ${newest.name}: ${f.name} does not decompress: ${(err as Error).message}`];
      }
      const copy = join(work, f.name.replace(/\.gz$/, ''));
      writeFileSync(copy, data);
      const check = integrityCheck(copy);
      if (check !== 'ok') return [`${target.name}: ${newest.name}: ${f.name} fails integrity_check: ${check}`];
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  try {
    requireRestic(o.env);
    if (!resticPaths(target.name, o.env).includes(newest.path)) return [`${target.name}: ${newest.name} is not in the restic repository`];
  } catch (err) {
    return [`${target.name}: restic: ${((err as { stderr?: Buffer }).stderr?.toString() || (err as Error).message).trim().split('\n')[0]}`];
  }
  return [];
}
