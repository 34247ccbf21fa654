/**
 * A copy of exactly what git tracks (Renovate reads only tracked files, on a repository it is given), in a folder
 * that is not a git repository, with edits undone between tests: what each file running Renovate itself starts from.
 */
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { $ } from 'zx';
import { REPO_ROOT } from '../../policy-tests/index.ts';

export interface RenovateCopy {
  /** Makes the copy; its root. */
  make: () => Promise<string>;
  /** Edits one file of the copy (a new one from empty text), remembering what it held. */
  change: (file: string, edit: (text: string) => string) => Promise<void>;
  /** Puts every changed file back. */
  restore: () => Promise<void>;
  dispose: () => Promise<void>;
}

export function renovateCopy(): RenovateCopy {
  let root = '';
  const originals = new Map<string, string>();
  return {
    make: async () => {
      root = await mkdtemp(join(tmpdir(), 'renovate-repo-'));
      const files = (await $({ cwd: REPO_ROOT, quiet: true })`git ls-files -z --cached --others --exclude-standard`).stdout.split('\0').filter(Boolean);
      for (const file of files) {
        await mkdir(dirname(join(root, file)), { recursive: true });
        await copyFile(join(REPO_ROOT, file), join(root, file)).catch((err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err; // deleted in the work tree, not yet in the index
        });
      }
      return root;
    },
    change: async (file, edit) => {
      const path = join(root, file);
      const text = await readFile(path, 'utf8').catch(() => '');
      if (!originals.has(file)) originals.set(file, text);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, edit(text));
    },
    restore: async () => {
      for (const [file, text] of originals) await writeFile(join(root, file), text);
      originals.clear();
    },
    dispose: () => (root ? rm(root, { recursive: true, force: true }) : Promise.resolve()),
  };
}

/** A copy made before the tests of the enclosing describe and deleted after them; `root()` names it once made. */
export function useRenovateCopy(): Pick<RenovateCopy, 'change' | 'restore'> & { root: () => string } {
  const copy = renovateCopy();
  let root = '';
  beforeAll(async () => {
    root = await copy.make();
  });
  afterAll(() => copy.dispose());
  return { root: () => root, change: copy.change, restore: copy.restore };
}
