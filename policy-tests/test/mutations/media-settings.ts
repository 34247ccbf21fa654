/** Broken copies of the real repository for the checks of policy-tests/checks/media-settings/: each fails exactly its check, at its line. */
import { lineOf, type RepoCopy } from '../support/helpers.ts';
import type { Mutation } from '../support/mutation-runner.ts';
import {
  bazarr4kSendsRadarrKey,
  inFile,
  swap,
  SONARR_SETTINGS,
  RADARR_SETTINGS,
  RADARR4K_SETTINGS,
  QBT_SETTINGS,
  PROWLARR_SETTINGS,
  CLEANUPARR_SETTINGS,
} from './edits.ts';

const JELLYSEERR = 'apps/media/jellyseerr/settings/jellyseerr.yaml';
const RADARR_4K_INGRESS = 'apps/media/radarr-4k/ingress.yaml';
const CLUSTER_ISSUERS = 'apps/platform/cert-manager/clusterissuer.yaml';

const mutations: Mutation[] = [
  {
    check: 'media-settings-schema',
    why: 'a misspelt setting',
    mutate: swap(SONARR_SETTINGS, 'copyUsingHardlinks: true', 'copyUsingHardlink: true'),
    at: 'copyUsingHardlink: true',
  },
  {
    check: 'media-settings-schema',
    why: 'a string where a port number goes',
    mutate: swap(QBT_SETTINGS, 'queueing_enabled: false', 'queueing_enabled: "no"'),
    at: 'queueing_enabled',
  },
  {
    check: 'media-settings-schema',
    why: "the movie manager's address in Prowlarr written without its scheme: Prowlarr's IsValidUrl refuses the application, and no indexer syncs to Radarr",
    mutate: swap(PROWLARR_SETTINGS, 'baseUrl: http://radarr.media.svc:7878', 'baseUrl: radarr.media.svc:7878'),
    at: inFile(PROWLARR_SETTINGS, 'baseUrl: radarr.media.svc:7878'),
  },
  {
    check: 'media-settings-schema',
    why: "a sync category past Int32: Prowlarr's JSON binding refuses the application, and no indexer syncs to the TV manager",
    mutate: swap(PROWLARR_SETTINGS, 'syncCategories: [5000, 5030, 5040]', 'syncCategories: [5000, 99999999999]'),
    at: inFile(PROWLARR_SETTINGS, 'syncCategories: [5000, 99999999999]'),
  },
  {
    check: 'media-manager-settings',
    why: 'hardlinks off in the TV manager',
    mutate: swap(SONARR_SETTINGS, 'copyUsingHardlinks: true', 'copyUsingHardlinks: false'),
    at: 'mediaManagement:',
  },
  {
    check: 'media-manager-settings',
    why: "the movie manager's download client logs in with a misspelt instance's login: media-settings asks for MEDIA_QBITORRENT_USERNAME, which no one keeps",
    mutate: swap(RADARR_SETTINGS, 'loginFrom: qbittorrent', 'loginFrom: qbitorrent'),
    at: 'loginFrom',
  },
  {
    check: 'media-manager-settings',
    why: 'Remove Completed on in a movie manager',
    mutate: swap(RADARR_SETTINGS, 'removeCompletedDownloads: false', 'removeCompletedDownloads: true'),
    at: 'removeCompletedDownloads',
  },
  {
    check: 'media-manager-settings',
    why: 'the mapping host differs from the client host by a trailing dot',
    mutate: swap(
      RADARR4K_SETTINGS,
      '  - host: qbittorrent.media-vpn.svc.cluster.local\n    remotePath',
      '  - host: qbittorrent.media-vpn.svc.cluster.local.\n    remotePath',
    ),
    at: 'remotePathMappings:',
  },
  {
    check: 'media-manager-settings',
    why: 'two movie managers share a root',
    mutate: swap(RADARR4K_SETTINGS, 'rootFolders: [/data/movies-4k]', 'rootFolders: [/data/movies]'),
    at: 'rootFolders:',
  },
  { check: 'media-manager-settings', why: 'backups kept 7 days', mutate: swap(PROWLARR_SETTINGS, 'retentionDays: 14', 'retentionDays: 7'), at: 'backup:' },
  {
    check: 'media-seeding-chain',
    why: 'an indexer with a seed time limit',
    mutate: swap(PROWLARR_SETTINGS, 'seedTime: null', 'seedTime: 4320'),
    at: 'seedTime: 4320',
  },
  {
    check: 'media-seeding-chain',
    why: 'a global ratio limit in the torrent client',
    mutate: swap(QBT_SETTINGS, 'max_ratio_enabled: false', 'max_ratio_enabled: true'),
    at: 'max_ratio_enabled',
  },
  {
    check: 'media-seeding-chain',
    why: "the 4K movie manager's app keyed by the TV manager: media-settings would hand Prowlarr Sonarr's key for a Radarr, whose every sync then fails with 401",
    mutate: swap(PROWLARR_SETTINGS, '    keyFrom: radarr-4k\n', '    keyFrom: sonarr\n'),
    at: (c) => ({ file: PROWLARR_SETTINGS, line: c.read(PROWLARR_SETTINGS).split('\n').lastIndexOf('    keyFrom: sonarr') + 1 }),
  },
  {
    check: 'media-seeding-chain',
    why: 'the 4K manager only gets new indexers added',
    mutate: swap(
      PROWLARR_SETTINGS,
      '    baseUrl: http://radarr-4k.media.svc:7878\n    syncLevel: fullSync',
      '    baseUrl: http://radarr-4k.media.svc:7878\n    syncLevel: addOnly',
    ),
    at: '  - name: Radarr 4K',
  },
  {
    check: 'media-seeding-chain',
    why: "the 1080p movie manager's app removed from Prowlarr: Radarr gets no indexer and every search finds nothing",
    mutate: swap(
      PROWLARR_SETTINGS,
      '  - name: Radarr\n    implementation: Radarr\n    baseUrl: http://radarr.media.svc:7878\n    syncLevel: fullSync\n    syncCategories: [2000, 2040]\n    keyFrom: radarr\n',
      '',
    ),
    at: 'applications:',
  },
  {
    check: 'media-seeding-chain',
    why: 'the download cleaner turned on',
    mutate: swap(CLEANUPARR_SETTINGS, 'downloadCleaner:\n  enabled: false', 'downloadCleaner:\n  enabled: true'),
    at: 'downloadCleaner:',
  },
  {
    check: 'media-queue-cleaner',
    why: 'the queue cleaner every 15 minutes',
    mutate: swap(CLEANUPARR_SETTINGS, '  enabled: true\n  intervalMinutes: 5\n  failedImport', '  enabled: true\n  intervalMinutes: 15\n  failedImport'),
    at: 'intervalMinutes: 15',
  },
  {
    check: 'media-queue-cleaner',
    why: 'the malware blocker given a manager name the cleaner does not know (the movie manager left out)',
    mutate: swap(CLEANUPARR_SETTINGS, 'managers: [sonarr, radarr, radarr-4k]', 'managers: [sonarr, movies, radarr-4k]'),
    at: inFile(CLEANUPARR_SETTINGS, 'managers: [sonarr, movies, radarr-4k]'),
  },
  {
    check: 'media-queue-cleaner',
    why: 'proactive search on',
    mutate: swap(CLEANUPARR_SETTINGS, 'proactiveSearch: false', 'proactiveSearch: true'),
    at: 'seeker:',
  },
  {
    check: 'media-queue-cleaner',
    // A Service's port, but the movie manager's: an address no Service has is closure-service's.
    why: "the TV manager's entry addressed on the movie manager's port (pasted from the entry below)",
    mutate: swap(CLEANUPARR_SETTINGS, 'http://sonarr.media.svc:8989', 'http://radarr.media.svc:7878'),
    at: (c) => ({ file: CLEANUPARR_SETTINGS, line: lineOf(c, CLEANUPARR_SETTINGS, 'kind: sonarr') + 2 }),
  },
  {
    check: 'media-subtitle-settings',
    why: "the subtitle manager's TV manager written host:port without its scheme: no URL, so Bazarr reaches no Sonarr and no series gets subtitles",
    mutate: swap('apps/media/bazarr/settings/bazarr.yaml', 'url: http://sonarr.media.svc:8989', 'url: sonarr:8989'),
    at: inFile('apps/media/bazarr/settings/bazarr.yaml', 'url: sonarr:8989'),
  },
  {
    check: 'media-subtitle-settings',
    why: 'the 4K subtitle manager integrates with the TV manager',
    mutate: swap('apps/media/bazarr-4k/settings/bazarr-4k.yaml', 'sonarr:\n  enabled: false', 'sonarr:\n  enabled: true'),
    at: 'sonarr:',
  },
  {
    check: 'media-subtitle-settings',
    why: 'upgrades for 30 days',
    mutate: swap('apps/media/bazarr/settings/bazarr.yaml', 'days: 7', 'days: 30'),
    at: 'upgrade:',
  },
  {
    check: 'media-subtitle-settings',
    why: "the 4K subtitle manager pointed at the 1080p movie manager (and given that manager's key, so the call itself would succeed)",
    mutate: (c) => {
      swap('apps/media/bazarr-4k/settings/bazarr-4k.yaml', 'http://radarr-4k.media.svc:7878', 'http://radarr.media.svc:7878')(c);
      bazarr4kSendsRadarrKey(c);
    },
    at: 'radarr:',
  },
  {
    check: 'media-request-servers',
    why: 'the 4K server not marked default',
    mutate: swap('apps/media/jellyseerr/settings/jellyseerr.yaml', '    is4k: true\n    isDefault: true', '    is4k: true\n    isDefault: false'),
    at: '  - name: Radarr 4K',
  },
  {
    check: 'media-request-servers',
    why: 'a 4K TV server',
    mutate: swap(
      'apps/media/jellyseerr/settings/jellyseerr.yaml',
      '    port: 8989\n    useSsl: false\n    is4k: false',
      '    port: 8989\n    useSsl: false\n    is4k: true',
    ),
    at: (c: RepoCopy) => c.read('apps/media/jellyseerr/settings/jellyseerr.yaml').split('\n').lastIndexOf('    is4k: true') + 1,
  },
  {
    check: 'media-4k-profile',
    why: 'remux allowed in 2160p',
    mutate: swap(RADARR4K_SETTINGS, 'items: [WEB 2160p, Bluray-2160p]', 'items: [WEB 2160p, Bluray-2160p, Remux-2160p]'),
    at: '  - name: "2160p"',
  },
  {
    check: 'media-4k-profile',
    why: 'Dolby Vision without HDR merely discouraged',
    mutate: swap(RADARR4K_SETTINGS, 'score: -10000', 'score: -100'),
    at: 'score: -100',
  },
  {
    check: 'media-transcoder',
    why: 'the 4K library is not transcoded',
    mutate: swap(
      'apps/media/tdarr/settings/tdarr.yaml',
      '  - name: Movies 4K\n    folder: /data/movies-4k\n    flow: h264ToHevcQsv',
      '  - name: Movies 4K\n    folder: /data/movies-4k\n    flow: none',
    ),
    at: '  - name: Movies 4K',
  },
  {
    check: 'media-transcoder',
    why: "the 1080p library's transcode cache left at Tdarr's /temp, which the server does not share with the node",
    mutate: swap(
      'apps/media/tdarr/settings/tdarr.yaml',
      '    folder: /data/movies\n    flow: h264ToHevcQsv\n    transcodeCache: /data/transcode_cache/tdarr-node-qsv',
      '    folder: /data/movies\n    flow: h264ToHevcQsv\n    transcodeCache: /temp',
    ),
    at: 'transcodeCache: /temp',
  },
  {
    check: 'media-transcoder',
    why: 'two CPU workers on the node',
    mutate: swap('apps/media/tdarr/settings/tdarr.yaml', 'cpuWorkers: 0', 'cpuWorkers: 2'),
    at: 'node:',
  },
  {
    check: 'media-transcoder',
    why: 'a flow edge bypasses the link-count gate',
    mutate: (c) => {
      const file = 'apps/media/tdarr/settings/h264ToHevcQsv.flow.json';
      const flow = JSON.parse(c.read(file));
      flow.flowEdges.push({ id: 'shortcut', source: 'codec', sourceHandle: '1', target: 'remux', targetHandle: 'in' });
      c.write(file, JSON.stringify(flow, null, 2));
    },
    at: '"flowEdges": [',
  },
  {
    check: 'media-transcoder',
    why: 'the size window widened to 95 %',
    mutate: (c) => {
      const file = 'apps/media/tdarr/settings/h264ToHevcQsv.flow.json';
      c.write(file, c.read(file).replace('"lessThan": "85"', '"lessThan": "95"'));
    },
    at: '"flowEdges": [',
  },
  {
    check: 'media-4k-sharing',
    why: '4K shared with devices that cannot play it',
    mutate: swap(
      'apps/media/plex/settings/plex.yaml',
      '    libraries: [Movies, TV Shows, Courses, Youtube]',
      '    libraries: [Movies, Movies 4K, TV Shows, Courses, Youtube]',
    ),
    at: '  - user: family-tablets',
  },
  {
    check: 'media-4k-sharing',
    why: 'a share names a library the server does not have (TV for TV Shows)',
    mutate: swap('apps/media/plex/settings/plex.yaml', '    libraries: [Movies, TV Shows, Courses, Youtube]', '    libraries: [Movies, TV, Courses, Youtube]'),
    at: inFile('apps/media/plex/settings/plex.yaml', '    libraries: [Movies, TV, Courses, Youtube]'),
  },
  {
    check: 'media-request-tls',
    why: "the 4K server's Ingress lost its TLS, so the gateway would answer Jellyseerr with its own self-signed certificate",
    mutate: swap(RADARR_4K_INGRESS, '  tls:\n    - hosts: ["radarr-4k.lan.example.net"]\n      secretName: radarr-4k-tls\n', ''),
    at: inFile(JELLYSEERR, 'hostname: radarr-4k.lan.example.net'),
  },
  {
    check: 'media-request-tls',
    why: "the 4K server's certificate names another host",
    mutate: swap(RADARR_4K_INGRESS, 'dnsNames: ["radarr-4k.lan.example.net"]', 'dnsNames: ["radarr.lan.example.net"]'),
    at: inFile(JELLYSEERR, 'hostname: radarr-4k.lan.example.net'),
  },
  {
    check: 'media-request-tls',
    why: "the 4K server's certificate comes from Let's Encrypt's staging directory, whose certificates nothing trusts",
    mutate: (c) => {
      const staging = c
        .read(CLUSTER_ISSUERS)
        .split('---\n')[0]!
        .replace('name: letsencrypt\n', 'name: letsencrypt-staging\n')
        .replace('acme-v02.api.letsencrypt.org', 'acme-staging-v02.api.letsencrypt.org')
        .replace('name: letsencrypt-account-key', 'name: letsencrypt-staging-account-key');
      c.write(CLUSTER_ISSUERS, `${c.read(CLUSTER_ISSUERS)}---\n${staging}`);
      swap(RADARR_4K_INGRESS, '    name: letsencrypt\n', '    name: letsencrypt-staging\n')(c);
    },
    at: inFile(JELLYSEERR, 'hostname: radarr-4k.lan.example.net'),
  },
];

/** The checks of the download chain's settings: the managers', the queue cleaner's, and what keeps a torrent seeding. */
const DOWNLOADS = new Set(['media-manager-settings', 'media-queue-cleaner', 'media-seeding-chain']);

/** What the library, playback and request apps read of their settings: profiles, sharing, servers, TLS, subtitles, the transcoder, each schema. */
export const mediaSettingsMutations: Mutation[] = mutations.filter((m) => !DOWNLOADS.has(m.check));

/** What the download chain reads of its settings: the managers', the queue cleaner's, and the seeding chain's. */
export const downloadSettingsMutations: Mutation[] = mutations.filter((m) => DOWNLOADS.has(m.check));
