/** Broken copies of the real repository for the checks of policy-tests/checks/media/media.ts: each fails exactly its check, at its line. */
import { isSeq } from 'yaml';
import type { Mutation } from '../support/mutation-runner.ts';
import { SONARR, GLUETUN, PLEX, FOLDERS, QBT, after, appendConfigMap, swap } from './edits.ts';

const QBT_SETTINGS = 'apps/media/gluetun/settings/qbittorrent.yaml';
const TDARR = 'apps/media/tdarr/deployment.yaml';

export const mediaMutations: Mutation[] = [
  {
    check: 'media-one-share',
    why: 'the TV manager gets its own volume at /data',
    mutate: (c) => c.edit(SONARR, 0, (d) => d.setIn(['spec', 'template', 'spec', 'volumes', 1, 'persistentVolumeClaim', 'claimName'], 'sonarr-config')),
    at: 'mountPath: /data',
  },
  {
    check: 'media-one-share',
    why: 'the archive extractor mounts only the torrents folder',
    mutate: (c) =>
      c.edit('apps/media/unpackerr/deployment.yaml', 0, (d) =>
        d.setIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 0, 'subPath'], 'torrents'),
      ),
    at: '      containers:',
  },
  {
    check: 'media-torrent-layout',
    why: 'the torrent client sees the whole share',
    mutate: (c) => c.edit(GLUETUN, 0, (d) => d.deleteIn([...QBT, 'volumeMounts', 1, 'subPath'])),
    at: '      containers:',
  },
  {
    check: 'media-torrent-layout',
    why: 'the torrent client also mounts the library',
    mutate: (c) =>
      c.edit(GLUETUN, 0, (d) => {
        const mounts = d.getIn([...QBT, 'volumeMounts']);
        if (isSeq(mounts)) mounts.add(d.createNode({ name: 'data', mountPath: '/movies', subPath: 'movies' }));
      }),
    at: 'mountPath: /movies',
  },
  {
    check: 'media-torrent-layout',
    why: 'the torrent client saves completed downloads to /torrents/done: the managers look in /data/torrents/completed and import nothing',
    mutate: swap(QBT_SETTINGS, 'save_path: /torrents/completed', 'save_path: /torrents/done'),
    at: 'save_path: /torrents/done',
  },
  {
    check: 'media-torrent-layout',
    why: "the torrent client keeps incomplete downloads in /downloads, which no volume of its container holds: they live in the container's filesystem and are lost at a restart",
    mutate: swap(QBT_SETTINGS, 'temp_path: /torrents/download', 'temp_path: /downloads'),
    at: 'temp_path: /downloads',
  },
  {
    check: 'media-torrent-layout',
    why: 'the torrent client keeps incomplete downloads in /torrents/incomplete, a folder the storage table does not list and the PreSync job never makes',
    mutate: swap(QBT_SETTINGS, 'temp_path: /torrents/download', 'temp_path: /torrents/incomplete'),
    at: 'temp_path: /torrents/incomplete',
  },
  {
    check: 'media-library-mounts',
    why: "the media server's TV library reads /libraries/tv, which it does not mount: the settings create a library that shows no series",
    mutate: swap('apps/media/plex/settings/plex.yaml', '{name: TV Shows, folder: /libraries/series}', '{name: TV Shows, folder: /libraries/tv}'),
    at: 'folder: /libraries/tv',
  },
  {
    check: 'media-library-mounts',
    why: 'the Courses library is missing',
    mutate: (c) => c.edit(PLEX, 0, (d) => d.deleteIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 4])),
    at: '      containers:',
  },
  {
    check: 'media-library-mounts',
    why: 'a library is mounted writable',
    mutate: (c) => c.edit(PLEX, 0, (d) => d.setIn(['spec', 'template', 'spec', 'containers', 0, 'volumeMounts', 1, 'readOnly'], false)),
    at: 'mountPath: /libraries/movies\n',
  },
  {
    check: 'media-folders-prepared',
    why: 'the 4K folder writable by the apps’ group alone, not by all',
    mutate: swap(FOLDERS, '/data/movies-4k\t777\t1026:100', '/data/movies-4k\t775\t1026:1000'),
    at: 'folders.tsv: |',
  },
  {
    check: 'media-folders-prepared',
    why: 'a library folder is never created',
    mutate: (c) => c.write(FOLDERS, c.read(FOLDERS).replace('    /data/youtube\t775\t1026:100\n', '')),
    at: 'folders.tsv: |',
  },
  {
    check: 'media-folders-prepared',
    why: 'the job mounts the share at /dtaa: it makes every folder in its own filesystem, succeeds, and the share has none',
    mutate: swap(FOLDERS, '              mountPath: /data\n', '              mountPath: /dtaa\n'),
    at: 'mountPath: /dtaa',
  },
  {
    check: 'media-folders-prepared',
    why: 'the job mounts the share read-only: mkdir fails, and so does every sync after it',
    mutate: swap(FOLDERS, '              mountPath: /data\n', '              mountPath: /data\n              readOnly: true\n'),
    at: 'mountPath: /data\n',
  },
  {
    check: 'media-share-writable',
    why: 'the TV root left to the share user and group 100, which no app runs in',
    mutate: swap(FOLDERS, '/data/series\t775\t1026:1000', '/data/series\t775\t1026:100'),
    at: after(SONARR, 'volumeMounts:', '- name: data'),
  },
  {
    check: 'media-share-writable',
    why: "Tdarr's user moved into a ConfigMap its server takes through envFrom, as 1001: its init drops to that PUID, another user than the apps whose files it transcodes in place",
    mutate: (c) => {
      swap(
        TDARR,
        '          env:\n            - name: TZ\n              value: "Europe/Oslo"\n            # The user the app runs as once the init drops root (the share\'s apps all run as 1000).\n            - name: PUID\n              value: "1000"\n            - name: PGID\n              value: "1000"\n',
        '          envFrom:\n            - configMapRef:\n                name: tdarr-user\n          env:\n            - name: TZ\n              value: "Europe/Oslo"\n',
      )(c);
      appendConfigMap(TDARR, { name: 'tdarr-user', namespace: 'media', data: { PUID: '1001', PGID: '1000' } })(c);
    },
    at: after(TDARR, 'volumeMounts:', '- name: data'),
  },
  {
    check: 'media-share-writable',
    why: "Tdarr's PUID written as $(APP_UID), which an earlier entry sets to 1001: the kubelet expands it, and its init drops to another user than the apps whose files it transcodes in place",
    mutate: swap(
      TDARR,
      '            - name: PUID\n              value: "1000"\n',
      '            - name: APP_UID\n              value: "1001"\n            - name: PUID\n              value: "$(APP_UID)"\n',
    ),
    at: after(TDARR, 'volumeMounts:', '- name: data'),
  },
  {
    check: 'media-share-writable',
    why: 'the archive extractor runs as another user than the apps whose downloads it unpacks',
    mutate: swap('apps/media/unpackerr/deployment.yaml', '        runAsUser: 1000\n', '        runAsUser: 1001\n'),
    at: after('apps/media/unpackerr/deployment.yaml', 'volumeMounts:', '- name: data'),
  },
];
