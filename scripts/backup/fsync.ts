/** Durability before visibility: a file's (or a folder's) data reaches the disk before the rename that publishes it. */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
