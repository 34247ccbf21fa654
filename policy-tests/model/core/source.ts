/**
 * Reading one file the way its consumer would, and refusing what it would
 * refuse: symlinks that dangle, loop or leave the repository (Argo CD refuses
 * out-of-repo links), anything but a regular file (a FIFO would hang the
 * read), bytes that are not UTF-8 or hold a NUL, and `.json` files that are
 * not strict JSON (Argo CD parses them as JSON, not YAML).
 */
import { closeSync, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Finding } from './findings.ts';
import { parseManifest, type ParsedFile } from './manifest.ts';

export type Source = { text: string } | { finding: Finding };

/** One strict decoder for every file: a decode without `stream` starts afresh each time. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The decoder Argo CD's repo-server reads a file with (utfutil's UTF8 default): UTF-8, unless a byte-order mark says
 * UTF-16, little- or big-endian. The mark itself is dropped, as it is there.
 */
function decoderFor(bytes: Buffer): TextDecoder {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le', { fatal: true });
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be', { fatal: true });
  return UTF8;
}

const FILE_TYPE_FIX = 'commit a regular file inside the repository instead';

/** Where in the text a byte offset falls, 1-based. */
function lineColOf(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

const insideRoot = (root: string, real: string) => {
  const rel = relative(realpathSync.native(root), real);
  return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
};

/**
 * Reads `file` (relative to `root`), or says in one finding why it must not
 * be read. `confined`: a symlink must stay inside `root` (the repository; a
 * file given on the command line from elsewhere is not confined).
 */
export function readSource(root: string, file: string, confined = true): Source {
  const at = (check: string, message: string, fix = FILE_TYPE_FIX, where: { line: number; col: number } = { line: 1, col: 1 }): Source => ({
    finding: { file, ...where, check, message, fix },
  });
  const path = join(root, file);
  let link;
  try {
    link = lstatSync(path);
  } catch (err) {
    return at('file-type', `cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (link.isSymbolicLink()) {
    let real: string;
    try {
      real = realpathSync.native(path);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return at(
        'file-type',
        code === 'ELOOP'
          ? 'is a symlink loop (Argo CD: failed to evaluate symlink: too many links)'
          : 'is a dangling symlink (its target does not exist; Argo CD skips it: destination of symlink is missing)',
      );
    }
    if (confined && !insideRoot(root, real))
      return at('file-type', 'is a symlink that points out of the repository; Argo CD refuses the source: illegal filepath in symlink');
  }
  // What a symlink points at; anything else is what lstat already saw.
  if (!(link.isSymbolicLink() ? statSync(path) : link).isFile())
    return at('file-type', 'is not a regular file (a folder, FIFO, socket or device behind a manifest name); it is never read');
  const fd = openSync(path, 'r');
  let bytes: Buffer;
  try {
    const size = fstatSync(fd).size;
    bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const n = readSync(fd, bytes, read, size - read, read);
      if (n === 0) break;
      read += n;
    }
    bytes = bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
  let text: string;
  try {
    text = decoderFor(bytes).decode(bytes);
  } catch {
    return at(
      'encoding',
      'is not valid UTF-8 (nor UTF-16 with a byte-order mark); Argo CD reads manifests as UTF-8 unless a mark says UTF-16',
      'save the file as UTF-8',
    );
  }
  const nul = text.indexOf('\0');
  if (nul !== -1) {
    return at('encoding', 'holds a NUL byte', 'remove the NUL byte (a binary file, or a broken editor save)', lineColOf(text, nul));
  }
  if (file.endsWith('.json')) {
    try {
      JSON.parse(text);
    } catch (err) {
      const message = (err as Error).message;
      const position = /position (\d+)/.exec(message);
      const where = position ? lineColOf(text, Number(position[1])) : { line: 1, col: 1 };
      return at(
        'json-strict',
        `is not strict JSON, and Argo CD parses .json files as JSON: ${message.replace(/ in JSON at position \d+.*$/, '').replace(/ \(line \d+ column \d+\)$/, '')}`,
        'fix the JSON (no trailing comma, no comment, one value), or rename the file to .yaml',
        where,
      );
    }
  }
  return { text };
}

/** A file that must not be read, as a parsed file holding only its finding. */
export function parseSource(file: string, source: Source): ParsedFile {
  return 'text' in source ? parseManifest(file, source.text) : { file, resources: [], findings: [source.finding], text: '' };
}
