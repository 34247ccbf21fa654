/**
 * The media apps' settings downstream of the download: subtitles, request servers, the 4K profile, the transcoder's flows, and what the 4K library shares.
 */
import { type Path } from '../../model/core/positions.ts';
import { SETTINGS_READS } from '../../model/apps/media-settings.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { byApp, checkFlow, settingsOf } from './settings-checks.ts';

export const mediaLibraryChecks: PolicyCheck[] = [
  {
    id: 'media-subtitle-settings',
    description:
      'Both subtitle managers: languages no and en as the default profile, embedded subtitles counted, upgrades for 7 days, no login; the TV manager (where on) an http(s) URL on port 8989; the 4K one with TV off and the 4K movie manager on 7878 (M18, M19).',
    invariants: ['M18', 'M19'],
    remediation: 'set the Bazarr setting the finding names',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      for (const [instance, movieHost, tv] of [
        ['bazarr', 'radarr', true],
        ['bazarr-4k', 'radarr-4k', false],
      ] as const) {
        const found = settingsOf(ctx, instance, 'subtitle manager');
        if (!found) continue;
        const s = found.s as {
          languageProfile?: Record<string, unknown>;
          embeddedSubtitles?: { count?: boolean };
          upgrade?: { enabled?: boolean; days?: number };
          auth?: { type?: string };
          sonarr?: { enabled?: boolean; url?: string };
          radarr?: { enabled?: boolean; url?: string };
        };
        const fail = (path: Path, message: string) => ctx.fail({ data: found.file, path: path }, `${instance}: ${message}`);
        const lp = s.languageProfile ?? {};
        if (JSON.stringify(lp.languages) !== JSON.stringify(['no', 'en']) || lp.defaultForNewSeries !== true || lp.defaultForNewMovies !== true)
          fail(['languageProfile'], 'the language profile is no, en, and the default for new titles');
        if (s.embeddedSubtitles?.count !== true) fail(['embeddedSubtitles'], 'embedded subtitles must count');
        if (s.upgrade?.enabled !== true || s.upgrade.days !== 7) fail(['upgrade'], 'subtitles are upgraded for 7 days');
        if (s.auth?.type !== 'none') fail(['auth'], 'no login of its own (the private gateway guards it)');
        if (s.sonarr?.enabled !== tv) fail(['sonarr'], `TV manager integration must be ${tv ? 'on' : 'off'}`);
        // With the TV manager on, Bazarr reaches it at the port it serves on; a URL with no host reaches nothing (whether the
        // host is a Service that exists is closure-service's).
        const tvUrl = URL.parse(String(s.sonarr?.url));
        if (tv && (!tvUrl || !/^https?:$/.test(tvUrl.protocol) || tvUrl.hostname === '' || tvUrl.port !== '8989'))
          fail(['sonarr', 'url'], 'the TV manager is an http(s) URL on port 8989');
        let url: URL | undefined;
        try {
          url = new URL(String(s.radarr?.url));
        } catch {
          // reported below
        }
        if (!url || url.hostname.split('.')[0] !== movieHost || url.port !== '7878') fail(['radarr'], `the movie manager is ${movieHost} on port 7878`);
      }
    },
  },
  {
    id: 'media-request-servers',
    description:
      'Jellyseerr: default folders /data/series and /data/movies; the 4K server marked 4K and Default, profile 2160p, root /data/movies-4k, SSL on 443; the 1080p server HD - 720p/1080p on /data/movies; no 4K TV server (M7, M12, M15).',
    invariants: ['M7', 'M12', 'M15'],
    remediation: 'set the Jellyseerr server entry the finding names',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = settingsOf(ctx, 'jellyseerr', 'request manager');
      if (!found) return;
      type Server = { is4k?: boolean; isDefault?: boolean; activeProfileName?: string; activeDirectory?: string; port?: number; useSsl?: boolean };
      const s = found.s as { radarr?: Server[]; sonarr?: Server[] };
      const fail = (path: Path, message: string) => ctx.fail({ data: found.file, path: path }, message);
      const radarr = s.radarr ?? [];
      const hd = radarr.findIndex((r) => !r.is4k && r.isDefault);
      const uhd = radarr.findIndex((r) => r.is4k);
      if (hd === -1 || radarr[hd]!.activeDirectory !== '/data/movies' || radarr[hd]!.activeProfileName !== 'HD - 720p/1080p')
        fail(hd === -1 ? ['radarr'] : ['radarr', hd], 'the default 1080p server uses profile HD - 720p/1080p and root /data/movies');
      const u = radarr[uhd];
      if (!u || !u.isDefault || u.activeProfileName !== '2160p' || u.activeDirectory !== '/data/movies-4k' || u.port !== 443 || u.useSsl !== true)
        fail(
          uhd === -1 ? ['radarr'] : ['radarr', uhd],
          'the 4K server is marked 4K Server and Default Server, profile 2160p, root /data/movies-4k, SSL on port 443',
        );
      const sonarr = s.sonarr ?? [];
      sonarr.forEach((srv, i) => srv.is4k && fail(['sonarr', i, 'is4k'], 'there is no 4K TV manager'));
      const tvDefault = sonarr.find((srv) => srv.isDefault && !srv.is4k);
      if (tvDefault?.activeDirectory !== '/data/series') fail(['sonarr'], 'the default TV folder is /data/series');
    },
  },
  {
    id: 'media-4k-profile',
    description:
      'The 4K movie manager’s profile 2160p: WEB 2160p and Bluray-2160p, no remux, cutoff WEB 2160p, upgrades on; dual-layer HDR-less Dolby Vision scores -10000 (M13).',
    invariants: ['M13'],
    remediation: 'fix the 2160p profile or the Dolby Vision custom format in radarr-4k settings',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = byApp(ctx).get('radarr-4k');
      if (!found?.valid) return;
      const s = found.s as {
        qualityProfiles?: { name?: string; upgradeAllowed?: boolean; cutoff?: string; items?: string[] }[];
        customFormats?: { matches?: string; score?: number }[];
      };
      const i = (s.qualityProfiles ?? []).findIndex((p) => p.name === '2160p');
      const p = s.qualityProfiles?.[i];
      if (
        !p ||
        JSON.stringify([...(p.items ?? [])].sort()) !== JSON.stringify(['Bluray-2160p', 'WEB 2160p']) ||
        p.cutoff !== 'WEB 2160p' ||
        p.upgradeAllowed !== true
      ) {
        ctx.fail(
          { data: found.file, path: i === -1 ? ['qualityProfiles'] : ['qualityProfiles', i] },
          'profile 2160p is WEB 2160p and Bluray-2160p (no remux), cutoff WEB 2160p, upgrades on',
        );
      }
      const dv = (s.customFormats ?? []).findIndex((f) => f.matches === 'dolby-vision-without-hdr-fallback');
      if (dv === -1 || s.customFormats![dv]!.score !== -10000)
        ctx.fail(
          { data: found.file, path: dv === -1 ? ['customFormats'] : ['customFormats', dv, 'score'] },
          'dual-layer HDR-less Dolby Vision must score -10000',
        );
    },
  },
  {
    id: 'media-transcoder',
    description:
      'Tdarr: flow h264ToHevcQsv on TV, Movies and Movies 4K, where every path to replacing the original passes H.264-only, one link, no remux, HEVC via QSV (slow, 23) with audio and subtitles copied, and a 20-85 % size ratio; the library settings, the transcode cache the storage table’s /data/transcode_cache/<node> on the share server and node both mount (Tdarr’s default /temp is each container’s own); 1 GPU worker and no CPU worker, with a 2-worker backlog mode (M1, M28, M29, M30).',
    invariants: ['M1', 'M28', 'M29', 'M30'],
    remediation: 'fix the library setting, the transcode cache, the worker limits, or the flow edge that bypasses a gate',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = settingsOf(ctx, 'tdarr', 'transcoder');
      if (!found) return;
      type Library = {
        name: string;
        folder: string;
        flow: string;
        transcodeCache: string;
        healthChecks: boolean;
        skipHardlinks: boolean;
        folderWatching: boolean;
        ignoredFolderNames: string[];
        schedule: { from: string; to: string; days: string };
        scannerThreads: number;
        mediaInfoScan: boolean;
      };
      const s = found.s as {
        libraries: Library[];
        node: { name: string; gpuWorkers: number; cpuWorkers: number; applyToLiveNode: boolean };
        backlogMode: { gpuWorkers: number; schedule: { from: string; to: string } };
      };
      const fail = (path: Path, message: string) => ctx.fail({ data: found.file, path: path }, `tdarr: ${message}`);
      const wanted: Record<string, string> = { TV: '/data/series', Movies: '/data/movies', 'Movies 4K': '/data/movies-4k' };
      // The node writes the new file into the cache and the server replaces the original from it: both must see
      // one folder at one path, which the share (mounted whole at /data by both, media-one-share) gives.
      const cache = `/data/transcode_cache/${s.node.name}`;
      for (const [name, folder] of Object.entries(wanted)) {
        const i = s.libraries.findIndex((l) => l.name === name);
        const l = s.libraries[i];
        if (!l) {
          fail(['libraries'], `library ${name} is missing`);
          continue;
        }
        const ok =
          l.folder === folder &&
          l.flow === 'h264ToHevcQsv' &&
          !l.healthChecks &&
          l.skipHardlinks &&
          l.folderWatching &&
          JSON.stringify(l.ignoredFolderNames) === '["@eaDir"]' &&
          l.schedule.from === '00:00' &&
          l.schedule.to === '07:00' &&
          l.schedule.days === 'all' &&
          l.scannerThreads === 4 &&
          !l.mediaInfoScan;
        if (!ok)
          fail(
            ['libraries', i],
            `library ${name}: ${folder}, flow h264ToHevcQsv, health checks off, skip hardlinked on, folder watching on, ignore @eaDir, 00:00-07:00 daily, 4 scanner threads, MediaInfo off`,
          );
        if (l.transcodeCache !== cache)
          fail(
            ['libraries', i, 'transcodeCache'],
            `library ${name}: the transcode cache is ${cache}, on the share the server and the node both mount (${l.transcodeCache} is not the storage table's)`,
          );
      }
      if (s.node.gpuWorkers !== 1 || s.node.cpuWorkers !== 0 || !s.node.applyToLiveNode)
        fail(['node'], 'the node runs 1 GPU worker and 0 CPU workers, applied to the live node');
      if (s.backlogMode.gpuWorkers !== 2 || s.backlogMode.schedule.from !== '00:00' || s.backlogMode.schedule.to !== '24:00')
        fail(['backlogMode'], 'the backlog mode runs all day with 2 GPU workers');
      for (const flowName of new Set(s.libraries.map((l) => l.flow))) checkFlow(ctx, `apps/media/tdarr/settings/${flowName}.flow.json`);
    },
  },
  {
    id: 'media-4k-sharing',
    description:
      'The media server has the five libraries, each share names a user and libraries it lists, and Movies 4K is shared only with users whose devices play 4K HDR (M16, M17).',
    invariants: ['M16', 'M17'],
    remediation: 'remove Movies 4K from the share of a user whose devices do not play 4K HDR, or add the missing library',
    reads: { files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = settingsOf(ctx, 'plex', 'media server');
      if (!found) return;
      const s = found.s as { libraries: { name: string }[]; users: { name: string; plays4kHdr: boolean }[]; shares: { user: string; libraries: string[] }[] };
      const names = new Set(s.libraries.map((l) => l.name));
      for (const library of ['Movies', 'Movies 4K', 'TV Shows', 'Courses', 'Youtube'])
        if (!names.has(library)) ctx.fail({ data: found.file, path: ['libraries'] }, `plex: library ${library} is missing`);
      const hdr = new Map(s.users.map((u) => [u.name, u.plays4kHdr]));
      s.shares.forEach((share, i) => {
        if (!hdr.has(share.user))
          ctx.fail({ data: found.file, path: ['shares', i, 'user'] }, `plex: a share names user ${share.user}, whom users does not list`);
        share.libraries.forEach((library, j) => {
          if (!names.has(library))
            ctx.fail(
              { data: found.file, path: ['shares', i, 'libraries', j] },
              `plex: ${share.user}'s share names library ${library}, which libraries does not list`,
            );
        });
        if (share.libraries.includes('Movies 4K') && hdr.get(share.user) !== true)
          ctx.fail({ data: found.file, path: ['shares', i] }, `plex: Movies 4K is shared with ${share.user}, whose devices do not play 4K HDR`);
      });
    },
  },
];
