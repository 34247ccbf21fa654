/** Mutations for media-exporter-starts: exportarr sidecars given what v2.2.0 exits on, or a port or app they do not reach. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const SONARR = 'apps/media/sonarr/deployment.yaml';
const CHECK = 'media-exporter-starts';

export const exporterStartsMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the app URL's scheme misspelt (htpt): exportarr starts, and its Go HTTP client refuses every request with unsupported protocol scheme",
    mutate: swap('apps/media/bazarr-4k/deployment.yaml', '              value: http://localhost:6767\n', '              value: htpt://localhost:6767\n'),
    at: 'value: htpt://localhost:6767',
  },
  {
    check: CHECK,
    why: 'the subcommand misspelt (sonar): exportarr exits 1 with unknown command, and restarts for good',
    mutate: swap(SONARR, '          args: ["sonarr"]\n', '          args: ["sonar"]\n'),
    at: 'args: ["sonar"]',
  },
  {
    check: CHECK,
    why: "sonarr's exporter told to read radarr's API: no container of the pod runs radarr, and every query 404s",
    mutate: swap(SONARR, '          args: ["sonarr"]\n', '          args: ["radarr"]\n'),
    at: 'value: http://localhost:8989',
  },
  {
    check: CHECK,
    why: "the app URL's port off by one: sonarr listens on 8989, so every scrape of the exporter fails",
    mutate: swap(SONARR, '              value: http://localhost:8989\n', '              value: http://localhost:8990\n'),
    at: 'value: http://localhost:8990',
  },
  {
    check: CHECK,
    why: 'PORT moved to 9708 while the container declares 9707: the ServiceMonitor and the readiness probe reach nothing',
    mutate: swap(SONARR, '              value: "9707"\n', '              value: "9708"\n'),
    at: 'value: "9708"',
  },
  {
    check: CHECK,
    why: 'LOG_LEVEL given "verbose", not a zap level: exportarr exits 1 at start',
    mutate: swap(
      'apps/media/bazarr/deployment.yaml',
      '            - name: URL\n',
      '            - name: LOG_LEVEL\n              value: verbose\n            - name: URL\n',
    ),
    at: 'value: verbose',
  },
  {
    check: CHECK,
    why: 'the app URL given as a flag, --url=$(APP_URL), with APP_URL off by one (8990): the kubelet expands it, and every scrape of the exporter fails',
    mutate: (c) => {
      swap(SONARR, '          args: ["sonarr"]\n', '          args: ["sonarr", "--url=$(APP_URL)"]\n')(c);
      swap(
        SONARR,
        '            - name: PORT\n              value: "9707"\n',
        '            - name: PORT\n              value: "9707"\n            - name: APP_URL\n              value: http://localhost:8990\n',
      )(c);
    },
    at: 'args: ["sonarr", "--url=$(APP_URL)"]',
  },
];

/** The qBittorrent exporter beside qBittorrent in the VPN pod. */
export const qbittorrentExporterMutations: Mutation[] = [
  {
    check: CHECK,
    why: "the exporter's log level written info: Python's logging takes a level's name in capitals, so setLevel raises and the exporter exits",
    mutate: swap(
      'apps/media/gluetun/deployment.yaml',
      '            - name: QBITTORRENT_HOST\n',
      '            - name: EXPORTER_LOG_LEVEL\n              value: info\n            - name: QBITTORRENT_HOST\n',
    ),
    at: 'value: info',
  },
  {
    check: CHECK,
    why: "QBITTORRENT_PORT 8081 where qBittorrent's web UI listens on 8080: every scrape of the exporter fails",
    mutate: swap('apps/media/gluetun/deployment.yaml', '              value: "8080"\n', '              value: "8081"\n'),
    at: 'value: "8081"',
  },
];
