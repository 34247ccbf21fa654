/**
 * Backup files are compressed with zstd (level 1, all cores): on a 2-core
 * node gzip spends seconds per gigabyte that a nightly job competing with the
 * media apps should not, and zstd frames carry their own content checksum.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { run } from '../lib/exec.ts';

export const COMPRESSED_SUFFIX = '.zst';

export async function compressFile(source: string, target: string): Promise<void> {
  await run('zstd', ['-q', '-1', '-T0', '--no-progress', '-f', source, '-o', target]);
}

/** Decompresses `source` to `target`; throws when the frame is truncated or its checksum does not match. */
export async function decompressFile(source: string, target: string): Promise<void> {
  await run('zstd', ['-q', '-d', '-f', '--no-progress', source, '-o', target]);
}

/** SHA-256 of a file, read in 1 MiB chunks so a gigabyte backup never sits in memory. */
export function sha256File(path: string): { sha256: string; bytes: number } {
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
