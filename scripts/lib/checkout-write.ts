/**
 * Writing into the checkout: only regular files inside it. A pull request
 * controls every path of the checkout, so a committed symlink where a script
 * writes (a docs table, the chart lock, a file fork rewrites) would carry the
 * write to any file the operator can write: the script refuses it, naming the
 * link. The write itself is atomic (write-file-atomic), so a run killed
 * halfway leaves the old file whole.
 */
import { lstatSync, readlinkSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import writeFileAtomic from 'write-file-atomic';

/** A path relative to the checkout that leaves it. */
const liesOutside = (rel: string): boolean => rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);

/** Why `path` (absolute, or relative to `root`) must not be written, if it must not: a symlink on the way, a non-file, a path outside. */
export function checkoutWriteRefusal(root: string, path: string): string | undefined {
  const top = resolve(root);
  const target = resolve(top, path);
  const rel = relative(top, target);
  if (rel === '' || liesOutside(rel)) return `${path} lies outside the checkout ${top}`;
  let at = top;
  for (const part of rel.split(sep)) {
    at = `${at}${sep}${part}`;
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      return undefined;
    }
    const shown = relative(top, at).split(sep).join('/');
    if (stat.isSymbolicLink()) return `${shown} is a symlink (to ${readlinkSync(at)}); the scripts write only regular files inside the checkout`;
    if (at === target && !stat.isFile()) return `${shown} is not a regular file`;
  }
  return undefined;
}

/** Writes `text` to `path` inside `root`, or throws one line saying which symlink (or non-file) stood in the way. */
export function writeInCheckout(root: string, path: string, text: string): void {
  const refusal = checkoutWriteRefusal(root, path);
  if (refusal) throw new Error(`refusing to write: ${refusal}`);
  writeFileAtomic.sync(resolve(root, path), text);
}

/**
 * Writes a script's output where the operator asked: inside the checkout only
 * as a regular file (writeInCheckout); a path elsewhere is the operator's own
 * to choose. Atomic either way.
 */
export function writeOutputFile(root: string, path: string, text: string): void {
  if (!liesOutside(relative(resolve(root), resolve(path)))) writeInCheckout(root, resolve(path), text);
  else writeFileAtomic.sync(resolve(path), text);
}
