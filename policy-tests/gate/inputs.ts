/** What the gate was asked to judge: files of the repository (judged with it) and files outside it (judged alone). */
import { existsSync, fstatSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { readSource, type Source } from '../model/core/source.ts';
import { MANIFEST_ROOTS, relativeToRepo, walkFiles } from '../model/repository/repo.ts';
import { isManifestPath } from '../model/repository/data-file.ts';
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

/**
 * Standard input, when `-` asks for it. A terminal (or /dev/null, a device too) is refused, as kubeconform refuses it:
 * from a terminal the gate would wait for input nobody means to type.
 */
export function readStandardInput(fd = 0): string {
  if (fstatSync(fd).isCharacterDevice())
    throw new Error('- reads standard input, which is a terminal or a device, not a pipe or a file: pipe the manifests in (cat x.yaml | homelab-gate -)');
  return readFileSync(fd, 'utf8');
}

export function collectInputs(paths: readonly string[], root: string, cwd: string, stdin?: () => string): Inputs {
  const repoFiles = new Set<string>();
  const outside: Inputs['outside'] = [];
  for (const raw of paths) {
    if (raw === '-') {
      outside.push({ filename: 'stdin', read: () => ({ text: stdin ? stdin() : readStandardInput() }) });
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
