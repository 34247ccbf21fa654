/**
 * The backup store: one folder per backup, <BACKUP_DIR>/<target>/<UTC time>,
 * holding the compressed copies and a manifest (SHA-256 of every file, the
 * sentinel). A backup becomes visible only by renaming its finished temp
 * folder; retention keeps 14 days. Next to the backups, a sentinel ledger
 * records every sentinel a backup wrote into its source, published or not.
 */
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { compressFile, COMPRESSED_SUFFIX } from './compress.ts';
import { decompressVerified, isSymlink, readNoFollow, signatureProblem, signManifest } from './integrity.ts';
import { fsyncPath } from './fsync.ts';
import type { Sentinel } from './sentinel.ts';

export const RETENTION_DAYS = 14;
export const MAX_AGE_HOURS = 26;
const LEDGER = 'sentinels.jsonl';

export interface Manifest {
  target: string;
  engine: string;
  createdAt: string;
  sentinel: Sentinel;
  files: { name: string; sha256: string; bytes: number }[];
  /** HMAC-SHA256 of the rest, with the manifest key (integrity.ts): only a backup job holding the key writes one that verifies. */
  hmac?: string;
}

export interface StoredBackup {
  name: string;
  path: string;
  time: Date;
}

/** Folder name for a backup: sortable UTC time without characters file systems dislike. */
export const stamp = (date: Date) => date.toISOString().replace(/[:.]/g, '-');
const fromStamp = (name: string) => new Date(name.replace(/^(\d{4}-\d{2}-\d{2}T\d{2})-(\d{2})-(\d{2})-(\d{3})Z$/, '$1:$2:$3.$4Z'));

const targetDir = (root: string, target: string) => join(root, target);

/** Finished backups of a target, newest first (temp folders start with a dot and are never listed). */
export function listBackups(root: string, target: string): StoredBackup[] {
  const dir = targetDir(root, target);
  if (!existsSync(dir)) return [];
  return (
    readdirSync(dir)
      // A symlinked backup folder is never a backup: the store holds what the jobs wrote, nothing it points at.
      .filter((n) => !n.startsWith('.') && !Number.isNaN(fromStamp(n).getTime()) && !isSymlink(join(dir, n)))
      .map((name) => ({ name, path: join(dir, name), time: fromStamp(name) }))
      .sort((a, b) => b.time.getTime() - a.time.getTime())
  );
}

export interface PublishOptions {
  /** Where finished backups live. */
  root: string;
  target: string;
  engine: string;
  now: Date;
  sentinel: Sentinel;
  files: readonly string[];
  /** The manifest's signing key. */
  key: Buffer;
  /** Settles when the copies are verified: compression runs meanwhile, and nothing is renamed into place before it resolves. */
  verified?: Promise<void>;
}

/** Compresses `files` into a temp folder, writes the manifest, and publishes the folder with one rename. */
export async function publish(o: PublishOptions): Promise<string> {
  const { root, target, engine, now, sentinel, files, key, verified = Promise.resolve() } = o;
  // Compression may fail first; the verification's own failure is then not the one reported, but it is handled.
  verified.catch(() => undefined);
  const dir = targetDir(root, target);
  mkdirSync(dir, { recursive: true });
  const name = stamp(now);
  const tmp = join(dir, `.tmp-${name}-${process.pid}`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp);
  try {
    const manifest: Manifest = { target, engine, createdAt: now.toISOString(), sentinel, files: [] };
    for (const file of files) {
      const stored = `${basename(file)}${COMPRESSED_SUFFIX}`;
      const digest = await compressFile(file, join(tmp, stored));
      fsyncPath(join(tmp, stored));
      manifest.files.push({ name: stored, ...digest });
    }
    await verified;
    manifest.hmac = signManifest(manifest, key);
    writeFileSync(join(tmp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    fsyncPath(join(tmp, 'manifest.json'));
    renameSync(tmp, join(dir, name));
    fsyncPath(dir);
    return join(dir, name);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

export function readManifest(path: string): Manifest {
  if (isSymlink(path)) throw new Error(`${basename(path)} is a symlink; a backup folder must be a real folder`);
  return JSON.parse(readNoFollow(join(path, 'manifest.json'))) as Manifest;
}

/** A name that stays inside the backup folder: no separator, no dot-dot, no hidden file. */
const isPlainName = (name: unknown): name is string => typeof name === 'string' && /^[A-Za-z0-9_][A-Za-z0-9._-]*$/.test(name) && basename(name) === name;

/**
 * Verifies the manifest: its signature with the manifest key, and that it
 * names only files of `allowed` (the compressed names of the files the
 * target's engine dumps: a manifest is data from the backup store, and a
 * name such as ../../config/app.db.zst would otherwise read and write outside
 * the backup). And that the signed manifest is this backup's: its target is
 * the one being restored (a signed backup copied into another target's
 * folder is not that target's), and its creation time is the one its folder
 * is named after (the name decides which backup is newest, so a renamed
 * folder cannot make an old backup the newest). Returns the first problem, or
 * undefined. The files' own hashes are checked as they are decompressed
 * (unpack), from the same read.
 */
export function verifyManifest(path: string, allowed: ReadonlySet<string>, key: Buffer, target: string): string | undefined {
  let manifest: Manifest;
  try {
    manifest = readManifest(path);
  } catch (err) {
    return `manifest unreadable: ${(err as Error).message.split('\n')[0]}`;
  }
  const unsigned = signatureProblem(manifest, key);
  if (unsigned) return unsigned;
  if (manifest.target !== target)
    return `the manifest is the backup of ${JSON.stringify(manifest.target)}, not of ${JSON.stringify(target)}: a signed backup copied into another target's folder`;
  const named = fromStamp(basename(path));
  if (typeof manifest.createdAt !== 'string' || Number.isNaN(named.getTime()) || new Date(manifest.createdAt).getTime() !== named.getTime())
    return `the manifest was created at ${String(manifest.createdAt)}, but its folder is named ${basename(path)}: a folder's name cannot make a backup newer or older`;
  if (!Array.isArray(manifest.files) || manifest.files.length === 0) return 'manifest lists no files';
  for (const f of manifest.files) {
    if (!isPlainName(f?.name) || !allowed.has(f.name))
      return `the manifest names ${JSON.stringify(f?.name)}, not a file this target's backup holds (${[...allowed].join(', ')})`;
  }
  for (const f of manifest.files) if (!existsSync(join(path, f.name)) && !isSymlink(join(path, f.name))) return `${f.name} is missing`;
  return undefined;
}

/**
 * Decompresses every file of a (manifest-verified) backup into `dir`, each
 * hashed from the very bytes zstd reads, never through a symlink; returns
 * the paths by original file name.
 */
export async function unpack(path: string, dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const f of readManifest(path).files) {
    // Checked by verifyManifest already; refused again so no caller can unpack outside `dir`.
    if (!isPlainName(f.name) || !f.name.endsWith(COMPRESSED_SUFFIX))
      throw new Error(`the manifest names ${JSON.stringify(f.name)}, not a plain compressed file name`);
    const original = f.name.slice(0, -COMPRESSED_SUFFIX.length);
    const out = join(dir, original);
    try {
      await decompressVerified(join(path, f.name), out, f);
    } catch (err) {
      throw new Error(`${f.name} ${(err as Error).message}`);
    }
    files.set(original, out);
  }
  return files;
}

/**
 * Deletes backups older than the retention, and the temp folders of backups
 * killed mid-publish more than a day ago (never visible, so never a backup);
 * returns what was removed.
 */
export function prune(root: string, target: string, now: Date, days = RETENTION_DAYS): string[] {
  const cutoff = now.getTime() - days * 86_400_000;
  const dir = targetDir(root, target);
  const expired = listBackups(root, target)
    .filter((b) => b.time.getTime() <= cutoff)
    .map((b) => b.name);
  const abandoned = existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('.tmp-') && statSync(join(dir, n)).mtimeMs < now.getTime() - 86_400_000) : [];
  const removed = [...expired, ...abandoned];
  for (const name of removed) rmSync(join(dir, name), { recursive: true, force: true });
  return removed;
}

/** Records a sentinel as written into the source, before the copy is taken (so a backup that never publishes still leaves its trace). */
/**
 * Appends to the ledger: `started` when a backup writes its sentinel into the
 * source, `published` once that backup is visible. A sentinel that was only
 * started belongs to a run that died before publishing: no backup was taken.
 */
export function recordSentinel(root: string, target: string, sentinel: Sentinel, state: 'started' | 'published' = 'started'): void {
  mkdirSync(targetDir(root, target), { recursive: true });
  appendFileSync(join(targetDir(root, target), LEDGER), `${JSON.stringify({ ...sentinel, state })}\n`);
}

/** What the ledger knows of each sentinel id: started, published, or (older ledgers) nothing. */
export function ledgerStates(root: string, target: string): Map<string, Set<string>> {
  const file = join(targetDir(root, target), LEDGER);
  const out = new Map<string, Set<string>>();
  if (!existsSync(file)) return out;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const s = JSON.parse(line) as Sentinel & { state?: string };
      if (typeof s.id !== 'string') continue;
      const states = out.get(s.id) ?? new Set<string>();
      states.add(s.state ?? 'unknown');
      out.set(s.id, states);
    } catch {
      // a line torn by a crash mid-append
    }
  }
  return out;
}

/** The newest sentinel any backup wrote into the source (ignoring a torn last line). */
export function lastRecordedSentinel(root: string, target: string): Sentinel | undefined {
  const file = join(targetDir(root, target), LEDGER);
  if (!existsSync(file)) return undefined;
  let newest: Sentinel | undefined;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      const s = JSON.parse(line) as Sentinel;
      if (typeof s.id === 'string' && typeof s.at === 'string' && (!newest || Date.parse(s.at) >= Date.parse(newest.at))) newest = s;
    } catch {
      // a line torn by a crash mid-append
    }
  }
  return newest;
}
