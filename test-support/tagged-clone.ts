/**
 * A local clone of an upstream project at one tag, for the commands that read a project's source from `--from`
 * (the reference and catalog scripts): its files written, committed and tagged in a fresh repository beside an empty
 * checkout of this repository (`root`, with the folders the command writes into). Removed with `dispose`.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const GIT_TIMEOUT_MS = 60_000;

const git = (cwd: string, ...args: string[]) =>
  promisify(execFile)('git', ['-C', cwd, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { timeout: GIT_TIMEOUT_MS });

export interface TaggedClone {
  upstream: string;
  root: string;
  dispose: () => Promise<void>;
}

export async function taggedClone(
  name: string,
  tag: string,
  { files, rootDirs }: { files: Readonly<Record<string, string>>; rootDirs: readonly string[] },
): Promise<TaggedClone> {
  const work = await mkdtemp(join(tmpdir(), `${name}-`));
  const upstream = join(work, name);
  const root = join(work, 'repo');
  for (const dir of rootDirs) await mkdir(join(root, dir), { recursive: true });
  await git(work, 'init', '-q', upstream);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(upstream, path)), { recursive: true });
    await writeFile(join(upstream, path), text);
  }
  await git(upstream, 'add', '.');
  await git(upstream, 'commit', '-qm', tag);
  await git(upstream, 'tag', tag);
  return { upstream, root, dispose: () => rm(work, { recursive: true, force: true }) };
}
