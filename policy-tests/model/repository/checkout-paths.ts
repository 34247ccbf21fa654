/**
 * Every path a pull request can put in the checkout: git's tracked files and
 * the untracked ones it does not ignore (a file about to be added), or, outside
 * a git checkout (a copy, a tarball), every file but the installs npm ci
 * makes again (the root's node_modules and the tool projects' under tools/).
 * The gate never reads its own state or code from here; this list is what a
 * check holds to that (no package folder, no store file).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
/** git ls-files on a large checkout takes well under a second; a hung git is given this long, then the walk stands. */
const GIT_TIMEOUT_MS = 60_000;

/** Folders npm ci deletes and installs again, so nothing committed there survives an install. */
const INSTALLS = /^(node_modules|tools\/[^/]+\/node_modules)$/;

function walk(root: string, rel = ''): string[] {
  return readdirSync(join(root, rel), { withFileTypes: true }).flatMap((e) => {
    const path = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) return e.name === '.git' || INSTALLS.test(path) ? [] : walk(root, path);
    return [path];
  });
}

export async function checkoutPaths(root: string): Promise<{ paths: string[]; from: 'git' | 'walk' }> {
  try {
    // A checkout's root holds .git (a folder, or a file in a worktree): one git process, not a second to ask where
    // the top is. A folder inside a checkout is not one; a broken .git makes ls-files fail, and the walk stands.
    if (existsSync(join(root, '.git'))) {
      const listed = await run('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 256 * 1024 * 1024,
      });
      return { paths: listed.stdout.split('\0').filter(Boolean), from: 'git' };
    }
  } catch {
    // Not a git checkout, or no git: the walk below.
  }
  return { paths: walk(root), from: 'walk' };
}

/** Why a checkout path is state or code the gate must never take from a pull request, if it is. */
export function foreignCodeOrState(path: string): string | undefined {
  if (path.split('/').includes('node_modules'))
    return 'a node_modules folder in the checkout: Node resolves packages from it before the install, so it would replace code the gate runs';
  if (/\.journal$/.test(path) || path.split('/').includes('gate-stores') || /(^|\/)\.cache\/homelab-gate\//.test(path))
    return 'a warm-start store file: the gate keeps its stores in the cache outside the checkout, and a committed one could stand in for a verdict';
  return undefined;
}
