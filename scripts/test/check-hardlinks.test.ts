/** The hardlink chore on a real temporary filesystem with real hardlinks and copies, and a qBittorrent contract fake. */
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkShare, main } from '../media/check-hardlinks.ts';
import { freePort } from './backup-helpers.ts';
import { qbittorrentFake, type Fake } from './media-fakes.ts';

/** Collects what a command prints, by stream, one entry per line. */
function capture() {
  const lines = { stdout: [] as string[], stderr: [] as string[] };
  const io = {
    stdout: (t: string) => lines.stdout.push(...t.replace(/\n$/, '').split('\n')),
    stderr: (t: string) => lines.stderr.push(...t.replace(/\n$/, '').split('\n')),
  };
  return { io, lines };
}

let root: string;
let qbt: Fake | undefined;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'share-'));
  for (const d of ['torrents/completed/Show.S01', 'series/Show/Season 1', 'movies/Film (2020)', 'movies-4k']) mkdirSync(join(root, d), { recursive: true });
  // Imported the right way: one file, two names.
  writeFileSync(join(root, 'torrents/completed/Show.S01/Show.S01E01.mkv'), 'episode-1'.repeat(100));
  linkSync(join(root, 'torrents/completed/Show.S01/Show.S01E01.mkv'), join(root, 'series/Show/Season 1/Show.S01E01.mkv'));
  // Imported as a copy: same name and size, different inode.
  writeFileSync(join(root, 'torrents/completed/Film.2020.mkv'), 'film'.repeat(250));
  copyFileSync(join(root, 'torrents/completed/Film.2020.mkv'), join(root, 'movies/Film (2020)/Film.2020.mkv'));
});
afterEach(async () => {
  rmSync(root, { recursive: true, force: true });
  await qbt?.close();
  qbt = undefined;
});

describe('check-hardlinks', () => {
  it('accepts hardlinked imports and flags copies', () => {
    expect(checkShare(root)).toEqual({
      notLinked: [{ torrent: 'torrents/completed/Film.2020.mkv', library: 'movies/Film (2020)/Film.2020.mkv' }],
      unimported: [],
      copies: ['movies/Film (2020)/Film.2020.mkv'],
    });
  });

  it('flags a seeding torrent nothing in the library links to', () => {
    writeFileSync(join(root, 'torrents/completed/Lonely.mkv'), 'x');
    expect(checkShare(root).unimported).toEqual(['torrents/completed/Lonely.mkv']);
  });

  it('lists stopped-up and missing-files torrents from qBittorrent, and exits 1', async () => {
    qbt = await qbittorrentFake('admin', 'secret', {});
    qbt.state.torrents = [
      { hash: 'a', name: 'Show.S01', state: 'uploading' },
      { hash: 'b', name: 'Old.Film', state: 'stoppedUP' },
      { hash: 'c', name: 'Gone', state: 'missingFiles' },
    ];
    const { io, lines } = capture();
    const code = await main([root, '--qbittorrent', qbt.url], { MEDIA_QBITTORRENT_USERNAME: 'admin', MEDIA_QBITTORRENT_PASSWORD: 'secret' }, io);
    expect(code).toBe(1);
    expect(lines.stdout).toEqual([
      'NOT LINKED: torrents/completed/Film.2020.mkv and movies/Film (2020)/Film.2020.mkv are separate copies (expected one file, link count 2)',
      'TORRENT stoppedUP: Old.Film',
      'TORRENT missingFiles: Gone',
      '3 problem(s)',
    ]);
  });

  it('exits 0 on a clean share, only after qBittorrent answered', async () => {
    rmSync(join(root, 'movies'), { recursive: true });
    rmSync(join(root, 'torrents/completed/Film.2020.mkv'));
    qbt = await qbittorrentFake('admin', 'secret', {});
    qbt.state.torrents = [{ hash: 'a', name: 'Show.S01', state: 'uploading' }];
    const { io, lines } = capture();
    expect(await main([root, '--qbittorrent', qbt.url], { MEDIA_QBITTORRENT_USERNAME: 'admin', MEDIA_QBITTORRENT_PASSWORD: 'secret' }, io)).toBe(0);
    expect(lines.stdout).toEqual(['all seeding torrents are hardlinked into the library; qBittorrent reports no stopped or missing torrents']);
  });

  it('fails loudly on a folder that is not the share, and never reports all clear without asking qBittorrent', async () => {
    const notShare = mkdtempSync(join(tmpdir(), 'not-a-share-'));
    try {
      const { io, lines } = capture();
      expect(await main([notShare, '--qbittorrent', 'http://127.0.0.1:9'], {}, io)).toBe(2);
      expect(lines.stderr).toEqual([
        `check-hardlinks: ${notShare} is not the media share: it has no torrents/completed folder (the share holds torrents/completed and series, movies, movies-4k, courses, youtube) (usage: check-hardlinks <share root, e.g. /data> --qbittorrent <url>)`,
      ]);
      const noUrl = capture();
      expect(await main([root], {}, noUrl.io)).toBe(2);
      expect(noUrl.lines.stderr).toEqual([expect.stringMatching(/^check-hardlinks: --qbittorrent <url> \(or MEDIA_QBITTORRENT_URL\) is required/)]);
      expect(noUrl.lines.stdout).toEqual([]);
    } finally {
      rmSync(notShare, { recursive: true, force: true });
    }
  });

  it('exits 1 naming the cause when qBittorrent gives no answer', async () => {
    const { io, lines } = capture();
    const closed = await freePort();
    expect(await main([root, '--qbittorrent', `http://127.0.0.1:${closed}`], {}, io)).toBe(1);
    expect(lines.stderr).toEqual([expect.stringMatching(/^check-hardlinks: .*connection refused \(ECONNREFUSED/)]);
    expect(lines.stdout.some((l) => /all seeding/.test(l))).toBe(false);
  });
});
