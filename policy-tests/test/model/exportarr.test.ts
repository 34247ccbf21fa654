/** exportarr v2.2.0's reading of its container: the subcommand cobra finds, koanf's keys of the env, the flags over them, and its checks. */
import { describe, expect, it } from 'vitest';
import { exportarrPort, exportarrSettingProblems, exportarrSettings, exportarrTarget } from '../../model/apps/exportarr.ts';

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

  it('judges nothing of a container that runs its own command', () => {
    expect(exportarrSettings({ ...container(['sonarr']), command: ['/bin/sh', '-c', 'exportarr sonarr'] })).toBeUndefined();
  });
});
