/**
 * Writing a cache file so no reader ever sees half of it: parallel test
 * workers and concurrent gate runs share the caches, so each writes a file
 * of its own beside the target and renames it into place.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(file: string, data: string | Uint8Array): void {
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  writeFileSync(partial, data);
  renameSync(partial, file);
}
