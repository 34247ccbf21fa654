/**
 * The backup store: one folder per backup, named by its UTC time, holding the
 * compressed copy and a manifest (SHA-256 of every file, the sentinel). A
 * backup becomes visible only by renaming its finished temp folder; retention
 * keeps 14 days.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Sentinel } from './sqlite.ts';

export const RETENTION_DAYS = 14;
export const MAX_AGE_HOURS = 26;

export interface Manifest {
  target: string;
  engine: string;
  createdAt: string;
  sentinel: Sentinel;
  files: { name: string; sha256: string; bytes: number }[];
}

export const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Folder name for a backup: sortable UTC time without characters file systems dislike. */
export const stamp = (date: Date) => date.toISOString().replace(/[:.]/g, '-');
const fromStamp = (name: string) => new Date(name.replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, '$1:$2:$3.$4Z'));

export function targetDir(root: string, target: string): string {
  return join(root, target);
}

/** Finished backups of a target, newest first (temp folders start with a dot and are never listed). */
export function listBackups(root: string, target: string): { name: string; path: string; time: Date }[] {
  const dir = targetDir(root, target);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((n) => !n.startsWith('.') && !Number.isNaN(fromStamp(n).getTime()))
    .map((name) => ({ name, path: join(dir, name), time: fromStamp(name) }))
    .sort((a, b) => b.time.getTime() - a.time.getTime());
}

/** Compresses `files`, writes the manifest, and publishes the folder atomically. */
export function publish(root: string, target: string, engine: string, now: Date, sentinel: Sentinel, files: { name: string; data: Buffer }[]): string {
  const dir = targetDir(root, target);
  mkdirSync(dir, { recursive: true });
  const name = stamp(now);
  const tmp = join(dir, `.tmp-${name}-${process.pid}`);
  mkdirSync(tmp);
  const manifest: Manifest = { target, engine, createdAt: now.toISOString(), sentinel, files: [] };
  for (const f of files) {
    const gz = gzipSync(f.data, { level: 6 });
    writeFileSync(join(tmp, `${f.name}.gz`), gz);
    manifest.files.push({ name: `${f.name}.gz`, sha256: sha256(gz), bytes: gz.length });
  }
  writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, join(dir, name));
  return join(dir, name);
}

export function readManifest(path: string): Manifest {
  return JSON.parse(readFileSync(join(path, 'manifest.json'), 'utf8')) as Manifest;
}

/** Verifies every file against the manifest; returns the first problem, or undefined. */
export function verifyChecksums(path: string): string | undefined {
  let manifest: Manifest;
  try {
    manifest = readManifest(path);
  } catch (err) {
    return `manifest unreadable: ${(err as Error).message}`;
  }
  for (const f of manifest.files) {
    let data: Buffer;
    try {
      data = readFileSync(join(path, f.name));
    } catch {
      return `${f.name} is missing`;
    }
    if (data.length !== f.bytes || sha256(data) !== f.sha256) return `${f.name} does not match its SHA-256 in the manifest`;
  }
  return undefined;
}

export function gunzipFile(path: string): Buffer {
  return gunzipSync(readFileSync(path));
}

/** Deletes backups older than the retention; returns what was removed. */
export function prune(root: string, target: string, now: Date, days = RETENTION_DAYS): string[] {
  const cutoff = now.getTime() - days * 86_400_000;
  return listBackups(root, target)
    .filter((b) => b.time.getTime() <= cutoff)
    .map((b) => {
      rmSync(b.path, { recursive: true, force: true });
      return b.name;
    });
}
