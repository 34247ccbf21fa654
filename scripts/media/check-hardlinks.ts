/**
 * A chore for the share: are seeding torrents and library files really the
 * same file (hardlinks), and is any torrent stopped or missing its files?
 *   npm run check-hardlinks -- /data --qbittorrent http://qbittorrent:8080
 * qBittorrent credentials: MEDIA_QBITTORRENT_USERNAME / MEDIA_QBITTORRENT_PASSWORD.
 * Exit 0 when all is well, 1 when something needs a look or qBittorrent gives
 * no answer, 2 for a wrong argument (a folder that is not the share, no URL).
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { runCommand, UsageError, type CommandIo } from '../lib/command.ts';
import { QbtClient } from './qbittorrent.ts';

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
  } catch (err) {
    // A library folder the share does not have is empty; any other error (permissions) must not read as "all clear".
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return out;
    throw err;
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

/** Whether `root` is the media share: its torrents folder and at least one library folder. */
function shareProblem(root: string): string | undefined {
  const isDir = (p: string) => {
    try {
      return statSync(p).isDirectory();
    } catch {
      return false;
    }
  };
  if (!isDir(root)) return `${root} is not a readable folder`;
  const lacks = !isDir(join(root, COMPLETED)) ? COMPLETED : LIBRARY_FOLDERS.some((f) => isDir(join(root, f))) ? undefined : 'library';
  return lacks && `${root} is not the media share: it has no ${lacks} folder (the share holds ${COMPLETED} and ${LIBRARY_FOLDERS.join(', ')})`;
}

export function main(argv: string[], env: NodeJS.ProcessEnv, io?: CommandIo): Promise<number> {
  const out = (line: string) => (io ? io.stdout(`${line}\n`) : process.stdout.write(`${line}\n`));
  return runCommand(
    {
      name: 'check-hardlinks',
      usage: 'check-hardlinks <share root, e.g. /data> --qbittorrent <url>',
      help: `Checks that every seeding torrent under ${COMPLETED} is the same file as its
library copy (a hardlink), and asks qBittorrent which torrents are stopped or
missing their files. The URL may come from MEDIA_QBITTORRENT_URL instead;
credentials from MEDIA_QBITTORRENT_USERNAME and MEDIA_QBITTORRENT_PASSWORD.
Exit 0 when all is well, 1 when something needs a look or qBittorrent gives no
answer, 2 for a wrong argument (including a folder that is not the share).`,
      options: { qbittorrent: { type: 'string' } },
      positionals: { min: 1, max: 1 },
      async run({ values, positionals: [root] }) {
        const url = (values.qbittorrent as string | undefined) ?? env.MEDIA_QBITTORRENT_URL;
        // Without qBittorrent nothing says which torrents are stuck: an all-clear would be a guess.
        if (!url) throw new UsageError('--qbittorrent <url> (or MEDIA_QBITTORRENT_URL) is required: only qBittorrent knows which torrents are stuck');
        const problem = shareProblem(root!);
        if (problem) throw new UsageError(problem);
        const report = checkShare(root!);
        for (const n of report.notLinked) out(`NOT LINKED: ${n.torrent} and ${n.library} are separate copies (expected one file, link count 2)`);
        for (const u of report.unimported) out(`UNIMPORTED: ${u} is seeding but no library file links to it`);
        const stuck = await stuckTorrents(new QbtClient(url, env.MEDIA_QBITTORRENT_USERNAME ?? '', env.MEDIA_QBITTORRENT_PASSWORD ?? ''));
        for (const t of stuck) out(`TORRENT ${t.state}: ${t.name}`);
        const problems = report.notLinked.length + report.unimported.length + stuck.length;
        out(problems ? `${problems} problem(s)` : 'all seeding torrents are hardlinked into the library; qBittorrent reports no stopped or missing torrents');
        return problems ? 1 : 0;
      },
    },
    argv,
    io,
  );
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) process.exitCode = await main(process.argv.slice(2), process.env);
