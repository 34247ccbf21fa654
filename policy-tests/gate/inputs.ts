/** What the gate was asked to judge: files of the repository (judged with it) and files outside it (judged alone). */
import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { readSource, type Source } from '../model/core/source.ts';
import { isManifestPath, MANIFEST_ROOTS, relativeToRepo, walkFiles } from '../model/repository/repo.ts';
import { UsageError } from './usage-error.ts';

export interface Inputs {
  repoFiles?: Set<string>;
  outside: { filename: string; read: () => Source }[];
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

export function collectInputs(paths: readonly string[], root: string, cwd: string, stdin?: () => string): Inputs {
  const repoFiles = new Set<string>();
  const outside: Inputs['outside'] = [];
  for (const raw of paths) {
    if (raw === '-') {
      outside.push({ filename: 'stdin', read: () => ({ text: stdin ? stdin() : readFileSync(0, 'utf8') }) });
      continue;
    }
    const abs = resolve(cwd, raw);
    // lstat: a dangling or looping symlink exists, and readSource says what is wrong with it.
    const entry = lstatOrUndefined(abs);
    if (!entry) throw new UsageError(`no such file or directory: ${raw}`);
    const files = new Set<string>();
    if (entry.isDirectory() || (entry.isSymbolicLink() && existsSync(abs) && statSync(abs).isDirectory())) walkFiles(abs, '', files, new Set());
    else files.add('');
    for (const f of files) {
      const full = f ? resolve(abs, f) : abs;
      if (f && !isManifestPath(f)) continue;
      const rel = relativeToRepo(root, full);
      if (rel && MANIFEST_ROOTS.some((r) => rel === r || rel.startsWith(`${r}/`))) repoFiles.add(rel);
      else {
        const filename = f ? `${raw.replace(/\/+$/, '')}/${f}` : raw;
        outside.push({
          filename,
          read: () => {
            const source = readSource(dirname(full), basename(full), false);
            return 'text' in source ? source : { finding: { ...source.finding, file: filename } };
          },
        });
      }
    }
  }
  return { repoFiles, outside };
}
