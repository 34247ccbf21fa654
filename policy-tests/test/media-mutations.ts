/** Broken copies of the real repository for the media checks. */
import { isSeq } from 'yaml';
import type { RepoCopy } from './helpers.ts';
import type { Mutation } from './mutation-runner.ts';

const SONARR = 'apps/media/sonarr/deployment.yaml';
const GLUETUN = 'apps/media/gluetun/deployment.yaml';
const PLEX = 'apps/media/plex/deployment.yaml';
const FOLDERS = 'apps/media/storage/folders.yaml';
const QBT = ['spec', 'template', 'spec', 'containers', 2];

export const mediaMutations: Mutation[] = [
  ['media-one-share', 'the TV manager gets its own volume at /data', (c) => c.edit(SONARR, 0, (d) => d.setIn(['spec', 'template', 'spec', 'volumes', 1, 'persistentVolumeClaim', 'claimName'], 'sonarr-data')), 'mountPath: /data'],
  ['media-one-share', 'the archive extractor mounts only the torrents folder', (c) => c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0, 'subPath'], 'torrents')), '      containers:'],
  ['media-torrent-layout', 'the torrent client sees the whole share', (c) => c.edit(GLUETUN, 0, (d) => d.deleteIn([...QBT, 'volumeMounts', 1, 'subPath'])), '      containers:'],
  ['media-torrent-layout', 'the torrent client also mounts the library', (c) => c.edit(GLUETUN, 0, (d) => {
    const mounts = d.getIn([...QBT, 'volumeMounts']);
    if (isSeq(mounts)) mounts.add(d.createNode({ name: 'data', mountPath: '/movies', subPath: 'movies' }));
  }), 'mountPath: /movies'],
  ['media-library-mounts', 'the Courses library is missing', (c) => c.edit(PLEX, 0, (d) => d.deleteIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 4])), '      containers:'],
  ['media-library-mounts', 'a library is mounted writable', (c) => c.edit(PLEX, 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 1, 'readOnly'], false)), 'mountPath: /libraries/movies\n'],
  ['media-folders-prepared', 'the 4K folder is not world-writable', (c) => c.write(FOLDERS, c.read(FOLDERS).replace('/data/movies-4k\t777', '/data/movies-4k\t775')), 'folders.tsv: |'],
  ['media-folders-prepared', 'a library folder is never created', (c) => c.write(FOLDERS, c.read(FOLDERS).replace('    /data/youtube\t775\t1026:100\n', '')), 'folders.tsv: |'],
  ['media-vpn-sidecars', 'the cluster resolver is dropped', (c) => c.write(GLUETUN, c.read(GLUETUN).replace('value: "on"', 'value: "off"')), '- name: DNS_KEEP_NAMESERVER'],
  // Renamed rather than removed: removing it would also (rightly) orphan its database backup job.
  ['media-vpn-sidecars', 'the indexer manager is no longer a container of the VPN pod', (c) => c.edit(GLUETUN, 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 1, 'name'], 'indexer')), '      containers:'],
  ['media-exposure', 'a subtitle manager published on the public gateway', (c) => c.edit('apps/media/bazarr/ingress.yaml', 0, (d) => d.setIn(['spec', 'ingressClassName'], 'gateway')), 'ingressClassName: gateway'],
  ['media-exposure', 'the login-less annotation is dropped', (c) => c.edit('apps/media/bazarr-4k/deployment.yaml', 0, (d) => d.deleteIn(['metadata', 'annotations'])), 'metadata:'],
  ['media-one-tv-manager', 'a 4K TV manager appears', (c) => c.write('apps/media/sonarr/sonarr-4k.yaml', c.read(SONARR).replace(/name: sonarr\b/g, 'name: sonarr-4k').replace(/sonarr-config/g, 'sonarr-4k-config').replace('app.kubernetes.io/name: sonarr\n', 'app.kubernetes.io/name: sonarr-4k\n')), (cp: RepoCopy) => cp.read('apps/media/sonarr/sonarr-4k.yaml').split('\n').findIndex((l) => l.trim() === 'name: sonarr-4k') + 1],
  ['media-exporters', 'the API key committed in the manifest', (c) => c.write(SONARR, c.read(SONARR).replace(/- name: APIKEY\n              valueFrom:\n                secretKeyRef:\n                  name: sonarr-api-key\n                  key: api-key/, '- name: APIKEY\n              value: "0123456789abcdef"')), '- name: APIKEY'],
  ['media-exporters', 'nothing scrapes the 4K manager', (c) => c.write('apps/media/radarr-4k/exporter.yaml', c.read('apps/media/radarr-4k/exporter.yaml').split('---\n').slice(0, 2).join('---\n')), (cp: RepoCopy) => cp.read('apps/media/radarr-4k/deployment.yaml').split('\n').findIndex((l) => l.trim() === '- name: exportarr') + 1],
  ['media-one-tv-manager', 'both movie managers share one config (its backup job pointed there too)', (c) => {
    c.edit('apps/media/radarr-4k/deployment.yaml', 0, (d) => d.setIn(['spec', 'template', 'spec', 'volumes', 0, 'persistentVolumeClaim', 'claimName'], 'radarr-config'));
    c.write('apps/media/radarr-4k/backup-jobs.yaml', c.read('apps/media/radarr-4k/backup-jobs.yaml').replace('claimName: radarr-4k-config', 'claimName: radarr-config'));
  }, '      volumes:'],
];

const SONARR_SETTINGS = 'apps/media/sonarr/settings/sonarr.yaml';
const RADARR_SETTINGS = 'apps/media/radarr/settings/radarr.yaml';
const RADARR4K_SETTINGS = 'apps/media/radarr-4k/settings/radarr-4k.yaml';
const QBT_SETTINGS = 'apps/media/gluetun/settings/qbittorrent.yaml';
const PROWLARR_SETTINGS = 'apps/media/gluetun/settings/prowlarr.yaml';
const CLEANUPARR_SETTINGS = 'apps/media/cleanuparr/settings/cleanuparr.yaml';
const swap = (file: string, from: string, to: string) => (c: RepoCopy) => c.write(file, c.read(file).replace(from, to));

export const mediaSettingsMutations: Mutation[] = [
  ['media-settings-schema', 'a misspelt setting', swap(SONARR_SETTINGS, 'copyUsingHardlinks: true', 'copyUsingHardlink: true'), 'copyUsingHardlink: true'],
  ['media-settings-schema', 'a string where a port number goes', swap(QBT_SETTINGS, 'queueing_enabled: false', 'queueing_enabled: "no"'), 'queueing_enabled'],
  ['media-manager-settings', 'hardlinks off in the TV manager', swap(SONARR_SETTINGS, 'copyUsingHardlinks: true', 'copyUsingHardlinks: false'), 'mediaManagement:'],
  ['media-manager-settings', 'Remove Completed on in a movie manager', swap(RADARR_SETTINGS, 'removeCompletedDownloads: false', 'removeCompletedDownloads: true'), 'removeCompletedDownloads'],
  ['media-manager-settings', 'the mapping host differs from the client host by a trailing dot', swap(RADARR4K_SETTINGS, '  - host: qbittorrent.media.svc.cluster.local\n    remotePath', '  - host: qbittorrent.media.svc.cluster.local.\n    remotePath'), 'remotePathMappings:'],
  ['media-manager-settings', 'two movie managers share a root', swap(RADARR4K_SETTINGS, 'rootFolders: [/data/movies-4k]', 'rootFolders: [/data/movies]'), 'rootFolders:'],
  ['media-manager-settings', 'backups kept 7 days', swap(PROWLARR_SETTINGS, 'retentionDays: 14', 'retentionDays: 7'), 'backup:'],
  ['media-seeding-chain', 'an indexer with a seed time limit', swap(PROWLARR_SETTINGS, 'seedTime: null', 'seedTime: 4320'), 'seedTime: 4320'],
  ['media-seeding-chain', 'a global ratio limit in the torrent client', swap(QBT_SETTINGS, 'max_ratio_enabled: false', 'max_ratio_enabled: true'), 'max_ratio_enabled'],
  ['media-seeding-chain', 'the 4K manager only gets new indexers added', swap(PROWLARR_SETTINGS, '    baseUrl: http://radarr-4k.media.svc:7878\n    syncLevel: fullSync', '    baseUrl: http://radarr-4k.media.svc:7878\n    syncLevel: addOnly'), '  - name: Radarr 4K'],
  ['media-seeding-chain', 'the download cleaner turned on', swap(CLEANUPARR_SETTINGS, 'downloadCleaner:\n  enabled: false', 'downloadCleaner:\n  enabled: true'), 'downloadCleaner:'],
  ['media-queue-cleaner', 'the queue cleaner every 15 minutes', swap(CLEANUPARR_SETTINGS, '  enabled: true\n  intervalMinutes: 5\n  failedImport', '  enabled: true\n  intervalMinutes: 15\n  failedImport'), 'intervalMinutes: 15'],
  ['media-queue-cleaner', 'proactive search on', swap(CLEANUPARR_SETTINGS, 'proactiveSearch: false', 'proactiveSearch: true'), 'seeker:'],
  ['media-queue-cleaner', 'the TV manager addressed on the wrong port', swap(CLEANUPARR_SETTINGS, 'http://sonarr.media.svc:8989', 'http://sonarr.media.svc:7878'), 'url: http://sonarr.media.svc:7878'],
  ['media-subtitle-settings', 'the 4K subtitle manager integrates with the TV manager', swap('apps/media/bazarr-4k/settings/bazarr-4k.yaml', 'sonarr:\n  enabled: false', 'sonarr:\n  enabled: true'), 'sonarr:'],
  ['media-subtitle-settings', 'upgrades for 30 days', swap('apps/media/bazarr/settings/bazarr.yaml', 'days: 7', 'days: 30'), 'upgrade:'],
  ['media-subtitle-settings', 'the 4K subtitle manager pointed at the 1080p movie manager', swap('apps/media/bazarr-4k/settings/bazarr-4k.yaml', 'http://radarr-4k.media.svc:7878', 'http://radarr.media.svc:7878'), 'radarr:'],
  ['media-request-servers', 'the 4K server not marked default', swap('apps/media/jellyseerr/settings/jellyseerr.yaml', '    is4k: true\n    isDefault: true', '    is4k: true\n    isDefault: false'), '  - name: Radarr 4K'],
  ['media-request-servers', 'a 4K TV server', swap('apps/media/jellyseerr/settings/jellyseerr.yaml', '    port: 8989\n    useSsl: false\n    is4k: false', '    port: 8989\n    useSsl: false\n    is4k: true'), (c: RepoCopy) => c.read('apps/media/jellyseerr/settings/jellyseerr.yaml').split('\n').lastIndexOf('    is4k: true') + 1],
  ['media-4k-profile', 'remux allowed in 2160p', swap(RADARR4K_SETTINGS, 'items: [WEB 2160p, Bluray-2160p]', 'items: [WEB 2160p, Bluray-2160p, Remux-2160p]'), '  - name: "2160p"'],
  ['media-4k-profile', 'Dolby Vision without HDR merely discouraged', swap(RADARR4K_SETTINGS, 'score: -10000', 'score: -100'), 'score: -100'],
  ['media-transcoder', 'the 4K library is not transcoded', swap('apps/media/tdarr/settings/tdarr.yaml', '  - name: Movies 4K\n    folder: /data/movies-4k\n    flow: h264ToHevcQsv', '  - name: Movies 4K\n    folder: /data/movies-4k\n    flow: none'), '  - name: Movies 4K'],
  ['media-transcoder', 'two CPU workers on the node', swap('apps/media/tdarr/settings/tdarr.yaml', 'cpuWorkers: 0', 'cpuWorkers: 2'), 'node:'],
  ['media-transcoder', 'a flow edge bypasses the link-count gate', (c) => {
    const file = 'apps/media/tdarr/settings/h264ToHevcQsv.flow.json';
    const flow = JSON.parse(c.read(file));
    flow.flowEdges.push({ id: 'shortcut', source: 'codec', sourceHandle: '1', target: 'remux', targetHandle: 'in' });
    c.write(file, JSON.stringify(flow, null, 2));
  }, '"flowEdges": ['],
  ['media-transcoder', 'the size window widened to 95 %', (c) => {
    const file = 'apps/media/tdarr/settings/h264ToHevcQsv.flow.json';
    c.write(file, c.read(file).replace('"lessThan": "85"', '"lessThan": "95"'));
  }, '"flowEdges": ['],
  ['media-4k-sharing', '4K shared with devices that cannot play it', swap('apps/media/plex/settings/plex.yaml', '    libraries: [Movies, TV Shows, Courses, Youtube]', '    libraries: [Movies, Movies 4K, TV Shows, Courses, Youtube]'), '  - user: family-tablets'],
];
