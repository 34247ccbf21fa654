/**
 * A chore for the share: are seeding torrents and library files really the
 * same file (hardlinks), and is any torrent stopped or missing its files?
 *   npm run check-hardlinks -- /data [--qbittorrent http://qbittorrent:8080]
 * qBittorrent credentials: MEDIA_QBITTORRENT_USERNAME / MEDIA_QBITTORRENT_PASSWORD.
 * Exit 0 when all is well, 1 when something needs a look, 2 when the path or qBittorrent is unreachable.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { QbtClient } from './qbittorrent.ts';
import { Unreachable } from './http.ts';

export const LIBRARY_FOLDERS = ['series', 'movies', 'movies-4k', 'courses', 'youtube'];
export const COMPLETED = 'torrents/completed';

interface FileInfo {
  path: string;
  stat: Stats;
}

function walk(dir: string, out: FileInfo[] = []): FileInfo[] {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of names) {
    const path = join(dir, name);
    const stat = statSync(path);
    if (stat.isDirectory()) walk(path, out);
    else if (stat.isFile()) out.push({ path, stat });
  }
  return out;
}

export interface HardlinkReport {
  /** Completed torrents (still seeding) whose library copy is a separate file. */
  notLinked: { torrent: string; library: string }[];
  /** Completed torrents with no library file at all sharing their inode (link count 1). */
  unimported: string[];
  /** Library files that are copies of a torrent file instead of links to it. */
  copies: string[];
}

/** Pairs torrent and library files by name and size; a pair should be one inode (link count 2). */
export function checkShare(root: string): HardlinkReport {
  const torrents = walk(join(root, COMPLETED));
  const library = LIBRARY_FOLDERS.flatMap((f) => walk(join(root, f)));
  const byInode = new Map(library.map((f) => [`${f.stat.dev}:${f.stat.ino}`, f]));
  const byNameSize = new Map(library.map((f) => [`${basename(f.path)}|${f.stat.size}`, f]));
  const report: HardlinkReport = { notLinked: [], unimported: [], copies: [] };
  for (const t of torrents) {
    if (byInode.has(`${t.stat.dev}:${t.stat.ino}`)) continue;
    const twin = byNameSize.get(`${basename(t.path)}|${t.stat.size}`);
    if (twin) {
      report.notLinked.push({ torrent: relative(root, t.path), library: relative(root, twin.path) });
      report.copies.push(relative(root, twin.path));
    } else if (t.stat.nlink < 2) report.unimported.push(relative(root, t.path));
  }
  return report;
}

/** Torrents qBittorrent has stopped after seeding, or whose files are gone (qBittorrent 5 states; 4.x said pausedUP). */
export const BAD_STATES = ['stoppedUP', 'pausedUP', 'missingFiles'];

export async function stuckTorrents(client: QbtClient): Promise<{ name: string; state: string }[]> {
  const torrents = await client.torrents();
  return torrents.filter((t) => BAD_STATES.includes(t.state)).map((t) => ({ name: t.name, state: t.state }));
}

export async function main(argv: string[], env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { qbittorrent: { type: 'string' } } });
  const root = positionals[0];
  if (!root) {
    out('usage: check-hardlinks <share root, e.g. /data> [--qbittorrent <url>]');
    return 2;
  }
  try {
    if (!statSync(root).isDirectory()) throw new Error('not a directory');
  } catch (err) {
    out(`check-hardlinks: ${root} is not readable: ${(err as Error).message}`);
    return 2;
  }
  const report = checkShare(root);
  for (const n of report.notLinked) out(`NOT LINKED: ${n.torrent} and ${n.library} are separate copies (expected one file, link count 2)`);
  for (const u of report.unimported) out(`UNIMPORTED: ${u} is seeding but no library file links to it`);
  let problems = report.notLinked.length + report.unimported.length;
  if (values.qbittorrent) {
    try {
      const stuck = await stuckTorrents(new QbtClient(values.qbittorrent, env.MEDIA_QBITTORRENT_USERNAME ?? '', env.MEDIA_QBITTORRENT_PASSWORD ?? ''));
      for (const t of stuck) out(`TORRENT ${t.state}: ${t.name}`);
      problems += stuck.length;
    } catch (err) {
      if (!(err instanceof Unreachable)) throw err;
      out(`check-hardlinks: qBittorrent ${err.message}`);
      return 2;
    }
  }
  out(problems ? `${problems} problem(s)` : 'all seeding torrents are hardlinked into the library; no stopped or missing torrents');
  return problems ? 1 : 0;
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env, (l) => process.stdout.write(`${l}\n`));
