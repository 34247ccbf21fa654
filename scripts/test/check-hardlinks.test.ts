/** The hardlink chore on a real temporary filesystem with real hardlinks and copies, and a qBittorrent contract fake. */
import { copyFileSync, linkSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkShare, main } from '../media/check-hardlinks.ts';
import { qbittorrentFake, type Fake } from './media-fakes.ts';

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
    expect(checkShare(root)).toEqual({ notLinked: [{ torrent: 'torrents/completed/Film.2020.mkv', library: 'movies/Film (2020)/Film.2020.mkv' }], unimported: [], copies: ['movies/Film (2020)/Film.2020.mkv'] });
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
    const lines: string[] = [];
    const code = await main([root, '--qbittorrent', qbt.url], { MEDIA_QBITTORRENT_USERNAME: 'admin', MEDIA_QBITTORRENT_PASSWORD: 'secret' }, (l) => lines.push(l));
    expect(code).toBe(1);
    expect(lines).toEqual([
      'NOT LINKED: torrents/completed/Film.2020.mkv and movies/Film (2020)/Film.2020.mkv are separate copies (expected one file, link count 2)',
      'TORRENT stoppedUP: Old.Film',
      'TORRENT missingFiles: Gone',
      '3 problem(s)',
    ]);
  });

  it('exits 0 on a clean share, and 2 when the share or qBittorrent is unreachable', async () => {
    rmSync(join(root, 'movies'), { recursive: true });
    rmSync(join(root, 'torrents/completed/Film.2020.mkv'));
    const lines: string[] = [];
    expect(await main([root], {}, (l) => lines.push(l))).toBe(0);
    expect(await main([join(root, 'nope')], {}, (l) => lines.push(l))).toBe(2);
    expect(await main([root, '--qbittorrent', 'http://127.0.0.1:9'], {}, (l) => lines.push(l))).toBe(2);
  });
});
