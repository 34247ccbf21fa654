/**
 * What makes a stored backup trustworthy, beyond its checksums: an HMAC over
 * its manifest with a key kept apart from the store (a Secret the backup jobs
 * mount), so whoever can write the store cannot forge or alter a backup that
 * passes backup-check or restore; and reads that never follow a symlink, with
 * the hash taken from the very bytes that are decompressed (no time between
 * the check and the use).
 */
import { spawn } from 'node:child_process';
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { closeSync, constants, createWriteStream, fstatSync, lstatSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { ZSTD_TIMEOUT_MS, zstdFailure, zstdStartError } from './compress.ts';

/** Where the key comes from: a file (the mounted Secret), or the value itself. */
export const KEY_FILE_ENV = 'BACKUP_MANIFEST_KEY_FILE';
export const KEY_ENV = 'BACKUP_MANIFEST_KEY';
const MIN_KEY_BYTES = 32;

/** The manifest key, or one line saying how to provide it. */
export function manifestKey(env: NodeJS.ProcessEnv): Buffer {
  let key: Buffer | undefined;
  if (env[KEY_FILE_ENV]) {
    try {
      key = readFileSync(env[KEY_FILE_ENV]!);
    } catch (err) {
      throw new Error(`manifest key: cannot read ${KEY_FILE_ENV}=${env[KEY_FILE_ENV]} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
  } else if (env[KEY_ENV]) key = Buffer.from(env[KEY_ENV]!);
  if (!key) throw new Error(`no manifest key: set ${KEY_FILE_ENV} to the key file the backup jobs mount (the Secret backup-manifest-key), or ${KEY_ENV}`);
  const trimmed = Buffer.from(key.toString('utf8').trim());
  if (trimmed.length < MIN_KEY_BYTES) throw new Error(`manifest key: ${trimmed.length} bytes, too short (at least ${MIN_KEY_BYTES})`);
  return trimmed;
}

/** JSON with keys in one order at every level, so the same manifest always signs the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((k) => k !== 'hmac')
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The manifest's HMAC-SHA256, hex, over everything but the hmac field itself. */
export function signManifest(manifest: object, key: Buffer): string {
  return createHmac('sha256', key).update(canonical(manifest)).digest('hex');
}

/** Why a manifest's signature cannot be trusted, or undefined. */
export function signatureProblem(manifest: { hmac?: unknown }, key: Buffer): string | undefined {
  if (typeof manifest.hmac !== 'string' || !/^[0-9a-f]{64}$/.test(manifest.hmac))
    return 'the manifest carries no signature: it was not written by a backup job holding the manifest key';
  const expected = Buffer.from(signManifest(manifest, key), 'hex');
  return timingSafeEqual(expected, Buffer.from(manifest.hmac, 'hex'))
    ? undefined
    : 'the manifest signature does not match: the backup was forged or altered after it was written (or signed with another key)';
}

/** Opens a regular file for reading, never through a symlink. */
export function openNoFollow(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw new Error(`${path.split('/').pop()} is a symlink; a backup file must be a regular file`);
    throw err;
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new Error(`${path.split('/').pop()} is not a regular file`);
  }
  return fd;
}

/** Reads a small file (the manifest) whole, never through a symlink. */
export function readNoFollow(path: string): string {
  const fd = openNoFollow(path);
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, buffer, read, size - read, null);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** Whether a path is itself a symlink (a backup folder must not be one). */
export const isSymlink = (path: string) => lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;

/**
 * Decompresses `source` to `target` from one read of its bytes, hashing the
 * same bytes as they go to zstd; throws when the hash or size differs from
 * the manifest's (the target is removed), or when the frame is bad.
 */
export async function decompressVerified(source: string, target: string, expected: { sha256: string; bytes: number }): Promise<void> {
  const fd = openNoFollow(source);
  const hash = createHash('sha256');
  let bytes = 0;
  const zstd = spawn('zstd', ['-q', '-d', '-c', '--no-progress'], { stdio: ['pipe', 'pipe', 'pipe'], timeout: ZSTD_TIMEOUT_MS, killSignal: 'SIGKILL' });
  const out = createWriteStream(target);
  zstd.stdout.pipe(out);
  let stderr = '';
  zstd.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  // zstd may stop reading early (a bad frame): the write fails with EPIPE, and its exit status says why.
  zstd.stdin.on('error', () => undefined);
  // A write that fails (a full TMPDIR) fails the decompression, with its own cause.
  let writeError: Error | undefined;
  const written = finished(out).catch((err: Error) => void (writeError = err));
  const exited = once(zstd, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  const started = once(zstd, 'spawn').catch((err: NodeJS.ErrnoException) => {
    throw zstdStartError(err);
  });
  try {
    await started;
    const buffer = Buffer.allocUnsafe(1024 * 1024);
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) {
      const chunk = Buffer.from(buffer.subarray(0, n));
      hash.update(chunk);
      bytes += n;
      if (zstd.stdin.writable && !zstd.stdin.write(chunk)) await Promise.race([once(zstd.stdin, 'drain'), exited]);
    }
    zstd.stdin.end();
    const [code, signal] = await exited;
    await written;
    if (writeError) throw new Error(`does not decompress: ${writeError.message}`);
    if (bytes !== expected.bytes || hash.digest('hex') !== expected.sha256) throw new Error('does not match its SHA-256 in the manifest');
    if (code !== 0) throw new Error(`does not decompress: ${zstdFailure(code, signal, stderr)}`);
  } catch (err) {
    zstd.kill('SIGKILL');
    out.destroy();
    rmSync(target, { force: true });
    throw err;
  } finally {
    closeSync(fd);
  }
}
