/**
 * The media sidecar exporters' reading of their container: exportarr v2.2.0's (the subcommand cobra finds, koanf's keys
 * of the env, the flags over them, and its checks) and the qBittorrent exporter 1.3.0's (its env, and what main exits on).
 */
import { describe, expect, it } from 'vitest';
import { exportarrPort, exportarrRequestProblem, exportarrSettingProblems, exportarrSettings, exportarrTarget } from '../../model/apps/exportarr.ts';
import { exporterReading, type ExporterReading } from '../../model/apps/sidecar-exporters.ts';
import { expandedWords } from '../../model/cluster/environment.ts';

const container = (args: unknown[], env: Record<string, string> = { URL: 'http://localhost:8989', APIKEY: 'k' }) => ({
  image: 'ghcr.io/onedr0p/exportarr:v2.2.0',
  args,
  env: Object.entries(env).map(([name, value]) => ({ name, value })),
});

describe('exportarr settings', () => {
  it('finds the subcommand by name or alias, the first added for a shared alias', () => {
    expect(exportarrSettings(container(['sonarr']))!.app).toEqual({ name: 'sonarr' });
    expect(exportarrSettings(container(['b']))!.app).toEqual({ name: 'readarr' });
    expect(exportarrSettings(container(['--port', '9707', 'sab']))!.app).toEqual({ name: 'sabnzbd' });
    expect(exportarrSettings(container([]))!.app).toEqual({ problem: expect.stringContaining('no subcommand') });
    expect(exportarrSettings(container(['sonar']))!.app).toEqual({ problem: expect.stringContaining('unknown command "sonar"') });
  });

  it('reads env as koanf keys (APIKEY as api-key, LOG_LEVEL as log-level), and the flags over them', () => {
    const s = exportarrSettings(container(['radarr', '-p', '9800', '--url=http://127.0.0.1:7878'], { PORT: '9707', APIKEY: 'k', LOG_LEVEL: 'debug' }))!;
    expect(exportarrPort(s)).toBe(9800);
    expect(exportarrTarget(s)).toEqual({ host: '127.0.0.1', port: 7878 });
    expect(s.settings.get('api-key')).toMatchObject({ from: 'env' });
    expect(exportarrSettingProblems(s)).toEqual([]);
  });

  it('refuses what its checks refuse, and defaults the port to 8081', () => {
    const s = exportarrSettings(container(['sonarr'], { PORT: 'x', INTERFACE: 'all', LOG_FORMAT: 'text' }))!;
    expect(exportarrSettingProblems(s).map((p) => p.key)).toEqual(['port', 'interface', 'log-format', 'url', 'api-key']);
    expect(exportarrPort(exportarrSettings(container(['sonarr'], {}))!)).toBe(8081);
    expect(exportarrSettingProblems(exportarrSettings(container(['sonarr'], { CONFIG: '/config/config.xml' }))!)).toEqual([]);
  });

  it('takes a URL of any scheme at start, and then speaks http and https alone (Go net/http), the scheme case aside', () => {
    const at = (url: string) => exportarrRequestProblem(exportarrSettings(container(['bazarr'], { URL: url, APIKEY: 'k' }))!);
    expect([at('http://localhost:6767'), at('HTTPS://localhost:6767'), at('$(APP_URL)')]).toEqual([undefined, undefined, undefined]);
    const problem = at('htpt://localhost:6767');
    expect(problem).toMatchObject({ key: 'url', message: expect.stringContaining('unsupported protocol scheme') });
    expect(exportarrSettingProblems(exportarrSettings(container(['bazarr'], { URL: 'htpt://localhost:6767', APIKEY: 'k' }))!)).toEqual([]);
    // With the app's config.xml, exportarr builds the URL from it too: not judged here.
    expect(exportarrRequestProblem(exportarrSettings(container(['bazarr'], { URL: 'htpt://x', CONFIG: '/config/config.xml' }))!)).toBeUndefined();
  });

  it('judges nothing of a container that runs its own command', () => {
    expect(exportarrSettings({ ...container(['sonarr']), command: ['/bin/sh', '-c', 'exportarr sonarr'] })).toBeUndefined();
  });
});

describe('the qBittorrent exporter 1.3.0', () => {
  const exporter = (env: Record<string, string>) => ({
    image: 'ghcr.io/esanchezm/prometheus-qbittorrent-exporter:v1.3.0',
    env: Object.entries(env).map(([name, value]) => ({ name, value })),
  });
  const problems = (env: Record<string, string>) => (exporterReading(exporter(env), exporter(env).image) as ExporterReading).problems.map((p) => p.message);

  it('takes its host and port, an int EXPORTER_PORT and a level in capitals; a FILE__ variable counts as set', () => {
    expect(problems({ QBITTORRENT_HOST: 'localhost', QBITTORRENT_PORT: '8080', EXPORTER_PORT: '9_713', EXPORTER_LOG_LEVEL: 'DEBUG' })).toEqual([]);
    expect(problems({ FILE__QBITTORRENT_HOST: '/run/host', QBITTORRENT_PORT: '8080' })).toEqual([]);
  });

  it('exits on what main refuses', () => {
    expect(problems({ EXPORTER_PORT: '97x', EXPORTER_LOG_LEVEL: 'info' })).toEqual([
      'No host specified, please set QBITTORRENT_HOST environment variable: the exporter exits at start',
      'No port specified, please set QBITTORRENT_PORT environment variable: the exporter exits at start',
      'invalid literal for int() with base 10: "97x": the exporter exits at start',
      'Unknown level: "info": the exporter exits at start',
    ]);
  });

  it('listens on 8000 where EXPORTER_PORT is unset, and reads the host and port it is given', () => {
    const r = exporterReading(
      exporter({ QBITTORRENT_HOST: 'localhost', QBITTORRENT_PORT: '8080' }),
      'esanchezm/prometheus-qbittorrent-exporter:v1.3.0',
    ) as ExporterReading;
    expect(r.listens).toMatchObject({ port: 8000, byDefault: true });
    expect(r.target).toMatchObject({ host: 'localhost', port: 8080 });
  });
});

describe("exportarr's args as the kubelet expands them", () => {
  const expand = (setting: Record<string, string>) => {
    const environment = {
      setting: (name: string) => (setting[name] === undefined ? undefined : setting[name] === 'held' ? ('held' as const) : { value: setting[name]! }),
    };
    return (word: string) => expandedWords(environment, [word])[0]!;
  };

  it('reads a flag whose value is a $(NAME) by the variable, and one it cannot read as set, its text unknown', () => {
    const args = ['sonarr', '--port=$(EXPORTER_PORT)', '--url', '$(APP_URL)'];
    const s = exportarrSettings(container(args, { APIKEY: 'k' }), expand({ EXPORTER_PORT: '9707', APP_URL: 'http://127.0.0.1:8989' }))!;
    expect([exportarrPort(s), s.settings.get('url')?.value, exportarrSettingProblems(s)]).toEqual([9707, 'http://127.0.0.1:8989', []]);
    const held = exportarrSettings(container(args, { APIKEY: 'k' }), expand({ EXPORTER_PORT: 'held', APP_URL: 'held' }))!;
    expect([held.settings.get('port'), held.settings.get('url')]).toEqual([
      { value: '<from>', from: 'flag', index: 1 },
      { value: '<from>', from: 'flag', index: 3 },
    ]);
    // A name the container does not set stays as written, as the kubelet leaves it: exportarr then reads "$(NOPE)".
    const unset = exportarrSettings(container(['sonarr', '--port=$(NOPE)'], { URL: 'http://localhost:8989', APIKEY: 'k' }), expand({}))!;
    expect(unset.settings.get('port')?.value).toBe('$(NOPE)');
  });
});
