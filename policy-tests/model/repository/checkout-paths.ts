/**
 * Every path a pull request can put in the checkout: git's tracked files and
 * the untracked ones it does not ignore (a file about to be added), or, outside
 * a git checkout (a copy, a tarball), every file but the installs npm ci
 * makes again (the root's node_modules and the tool projects' under tools/).
 * The gate never reads its own state or code from here; this list is what a
 * check holds to that (no package folder, no store file). Derived once per list of
 * paths: the paths by folder, and the folders that hold them.
 */
import { execFile } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { perObject } from '../core/per-object.ts';
import { isLfsPointer } from '../core/text.ts';

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

/**
 * A submodule Argo CD's checkout would fetch (util/git/client.go `Checkout`: where the root holds `.gitmodules`,
 * `git submodule update --init --recursive`): each path `.gitmodules` names, its URL and line, and whether git's
 * index holds a commit there (a gitlink: what the update fetches). A gitlink `.gitmodules` does not name fails the
 * update. Outside a git checkout, which gitlinks there are is unknown (`gitlink` undefined).
 */
export interface Submodule {
  path: string;
  url?: string;
  /** The line of `.gitmodules` that names the path; absent for a gitlink it does not name. */
  line?: number;
  gitlink?: boolean;
  /** The commit the gitlink pins: what the update checks out there. */
  commit?: string;
}

/** A symlink of the checkout, with the text it holds (what readlink gives: the target as written, never resolved). */
export interface CheckoutLink {
  path: string;
  target: string;
}

export interface Checkout {
  paths: string[];
  from: 'git' | 'walk';
  /** Present where the root holds `.gitmodules`, or git's index a gitlink. */
  submodules?: Submodule[];
  /** The symlinks among the paths: Argo CD's repo-server judges every one before it reads any source. */
  links: CheckoutLink[];
  /** The files that hold a Git LFS pointer, not the content it names (a checkout without its LFS objects). */
  lfsPointers: string[];
}

export async function checkoutPaths(root: string): Promise<Checkout> {
  const listed = await listCheckout(root);
  return { ...listed, ...linksAndPointers(root, listed.paths) };
}

/**
 * The paths that are symlinks, each with what it names, and the files that are LFS pointers; one lstat a path, and a
 * read of each regular file small enough to be a pointer (a thousand paths take a few milliseconds).
 */
function linksAndPointers(root: string, paths: readonly string[]): Pick<Checkout, 'links' | 'lfsPointers'> {
  const links: CheckoutLink[] = [];
  const lfsPointers: string[] = [];
  for (const path of paths) {
    try {
      const stat = lstatSync(join(root, path));
      if (stat.isSymbolicLink()) links.push({ path, target: readlinkSync(join(root, path)) });
      else if (stat.isFile() && stat.size > 0 && stat.size < 1024 && isLfsPointer(readFileSync(join(root, path), 'utf8'))) lfsPointers.push(path);
    } catch {
      // Gone since git listed it (a file the pull request's own run removed): nothing there to judge.
    }
  }
  return { links, lfsPointers };
}

async function listCheckout(root: string): Promise<Omit<Checkout, 'links' | 'lfsPointers'>> {
  try {
    // A checkout's root holds .git (a folder, or a file in a worktree): one git process, not a second to ask where
    // the top is. A folder inside a checkout is not one; a broken .git makes ls-files fail, and the walk stands.
    if (existsSync(join(root, '.git'))) {
      const listed = await run('git', ['-C', root, 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
        timeout: GIT_TIMEOUT_MS,
        maxBuffer: 256 * 1024 * 1024,
      });
      const paths = listed.stdout.split('\0').filter(Boolean);
      // Only a checkout with .gitmodules asks git which entries are gitlinks: Argo CD updates submodules only then.
      if (!paths.includes('.gitmodules')) return { paths, from: 'git' };
      const staged = await run('git', ['-C', root, 'ls-files', '-z', '--stage'], { timeout: GIT_TIMEOUT_MS, maxBuffer: 256 * 1024 * 1024 });
      // `<mode> <object> <stage>\t<path>`: a gitlink's object is the commit it pins.
      const gitlinks = staged.stdout
        .split('\0')
        .flatMap((entry) => (entry.startsWith('160000 ') ? [{ path: entry.slice(entry.indexOf('\t') + 1), commit: entry.split(' ')[1]! }] : []));
      return { paths, from: 'git', submodules: submodulesOf(readGitmodules(root), gitlinks) };
    }
  } catch {
    // Not a git checkout, or no git: the walk below.
  }
  const paths = walk(root);
  return paths.includes('.gitmodules') ? { paths, from: 'walk', submodules: submodulesOf(readGitmodules(root)) } : { paths, from: 'walk' };
}

function readGitmodules(root: string): string {
  try {
    return readFileSync(join(root, '.gitmodules'), 'utf8');
  } catch {
    return '';
  }
}

/**
 * The submodules of a `.gitmodules` text (git-config syntax: `[submodule "name"]` sections, `path = ...` and
 * `url = ...` keys, case-insensitive, `#` and `;` comments, a value optionally quoted), each with whether it is a
 * gitlink, and the gitlinks it does not name.
 */
export function submodulesOf(text: string, gitlinks?: readonly { path: string; commit: string }[]): Submodule[] {
  const sections: { path?: string; url?: string; line?: number }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.replace(/^\s+/, '');
    if (/^\[\s*submodule\b/i.test(line)) sections.push({});
    const kv = /^(path|url)\s*=\s*(.*?)\s*(?:[#;].*)?$/i.exec(line);
    const section = sections.at(-1);
    if (!kv || !section) return;
    const value = kv[2]!.replace(/^"(.*)"$/, '$1');
    if (kv[1]!.toLowerCase() === 'path') Object.assign(section, { path: value.replace(/\/+$/, ''), line: i + 1 });
    else section.url = value;
  });
  const named = sections.filter((s): s is { path: string; url?: string; line: number } => s.path !== undefined);
  const out: Submodule[] = named.map((s) => {
    const link = gitlinks?.find((g) => g.path === s.path);
    return { ...s, ...(gitlinks ? { gitlink: link !== undefined } : {}), ...(link ? { commit: link.commit } : {}) };
  });
  for (const link of gitlinks ?? []) if (!named.some((s) => s.path === link.path)) out.push({ ...link, gitlink: true });
  return out;
}

/** Why a checkout path is state or code the gate must never take from a pull request, if it is. */
export function foreignCodeOrState(path: string): string | undefined {
  if (path.split('/').includes('node_modules'))
    return 'a node_modules folder in the checkout: Node resolves packages from it before the install, so it would replace code the gate runs';
  if (/\.journal$/.test(path) || path.split('/').includes('gate-stores') || /(^|\/)\.cache\/homelab-gate\//.test(path))
    return 'a warm-start store file: the gate keeps its stores in the cache outside the checkout, and a committed one could stand in for a verdict';
  return undefined;
}

/** A tree's paths by the folder that holds each ('' for the root), once per tree: a source looks at its own folder, not at every path. */
export const pathsByFolder = perObject((paths: readonly string[]): ReadonlyMap<string, string[]> => {
  const byFolder = new Map<string, string[]>();
  for (const file of paths) {
    const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/')) : '';
    const list = byFolder.get(folder);
    if (list) list.push(file);
    else byFolder.set(folder, [file]);
  }
  return byFolder;
});

/** The folders that hold a tree's paths (every prefix of one before a `/`), once per tree. */
export const foldersOf = perObject((tree: readonly string[]): ReadonlySet<string> => {
  const folders = new Set<string>();
  for (const file of tree) for (let i = file.indexOf('/'); i !== -1; i = file.indexOf('/', i + 1)) folders.add(file.slice(0, i));
  return folders;
});
