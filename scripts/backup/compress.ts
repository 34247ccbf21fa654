/**
 * Backup files are compressed with zstd (level 1, all cores): on a 2-core
 * node gzip spends seconds per gigabyte that a nightly job competing with the
 * media apps should not, and zstd frames carry their own content checksum.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, createWriteStream, openSync, readSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { run } from '../lib/exec.ts';

export const COMPRESSED_SUFFIX = '.zst';

/** How long one zstd run may take before it is killed: a hang guard, generous, since a backup may be gigabytes. */
export const ZSTD_TIMEOUT_MS = 60 * 60 * 1000;

/** Why zstd could not start, in one line. */
export const zstdStartError = (err: NodeJS.ErrnoException): Error =>
  new Error(err.code === 'ENOENT' ? 'zstd: not installed (not found on PATH)' : `zstd: ${err.message}`);

/** Why a zstd run failed, from how it ended: the signal that killed it, its first line on stderr, or its status. */
export const zstdFailure = (code: number | null, signal: NodeJS.Signals | null, stderr: string): string =>
  `zstd: ${signal ? `killed (${signal})` : stderr.trim().split('\n')[0] || `exit ${code}`}`;

export interface Digest {
  sha256: string;
  bytes: number;
}

/**
 * Compresses `source` into `target` and returns the SHA-256 and size of what
 * was written, hashed from the bytes on their way to the file: one pass,
 * where hashing the finished file read it all again. The target is removed
 * when zstd or the write fails.
 */
export async function compressFile(source: string, target: string): Promise<Digest> {
  const hash = createHash('sha256');
  let bytes = 0;
  const zstd = spawn('zstd', ['-q', '-1', '-T0', '--no-progress', '-c', source], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: ZSTD_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  let stderr = '';
  zstd.stderr.on('data', (c: Buffer) => void (stderr += c.toString()));
  const exited = once(zstd, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
  // Awaited below; a write that fails first must not leave this rejection unhandled meanwhile.
  exited.catch(() => undefined);
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  try {
    await pipeline(zstd.stdout, hashing, createWriteStream(target));
    const [code, signal] = await exited.catch((err: NodeJS.ErrnoException) => {
      throw zstdStartError(err);
    });
    if (code !== 0) throw new Error(zstdFailure(code, signal, stderr));
  } catch (err) {
    zstd.kill('SIGKILL');
    rmSync(target, { force: true });
    // The file system's own errors (a full disk, a missing folder) name no file: say which one.
    throw (err as NodeJS.ErrnoException).code ? new Error(`cannot write ${target}: ${(err as Error).message}`) : err;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Decompresses `source` to `target`; throws when the frame is truncated or its checksum does not match. */
export async function decompressFile(source: string, target: string): Promise<void> {
  await run('zstd', ['-q', '-d', '-f', '--no-progress', source, '-o', target]);
}

/** SHA-256 of a file, read in 1 MiB chunks so a gigabyte backup never sits in memory. */
export function sha256File(path: string): Digest {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(path, 'r');
  let bytes = 0;
  try {
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0; bytes += n) hash.update(buffer.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest('hex'), bytes };
}
