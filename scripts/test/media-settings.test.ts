/** scripts/media/settings.ts against contract fakes of Sonarr/Radarr (API v3), Prowlarr (API v1) and qBittorrent (WebUI API v2). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { loadSettings, run } from '../media/settings.ts';
import type { ManagerSettings } from '../media/servarr.ts';
import type { ProwlarrSettings } from '../media/prowlarr.ts';
import { prowlarrApplications, qbittorrentClients, qbittorrentFake, servarrFake, type Fake } from './media-fakes.ts';

/** The torrent client's Web UI login, as the fake qBittorrent takes it and the managers' clients store it. */
const QBT_LOGIN = { username: 'admin', password: 'secret' };

const settings = loadSettings(REPO_ROOT);

/** Live state that already matches the declared settings of a manager instance. */
function managerState(instance: string): Record<string, unknown> {
  const s = settings.get(instance) as ManagerSettings;
  const client = s.downloadClients[0]!;
  return {
    'config/mediamanagement': { id: 1, copyUsingHardlinks: s.mediaManagement.copyUsingHardlinks, recycleBin: '' },
    rootfolder: s.rootFolders.map((path, i) => ({ id: i + 1, path })),
    downloadclient: [
      {
        id: 1,
        name: client.name,
        implementation: client.implementation,
        enable: true,
        removeCompletedDownloads: client.removeCompletedDownloads,
        removeFailedDownloads: client.removeFailedDownloads,
        fields: [
          { name: 'host', value: client.host },
          { name: 'port', value: client.port },
          { name: 'useSsl', value: client.useSsl },
          { name: s.app === 'sonarr' ? 'tvCategory' : 'movieCategory', value: client.category },
          { name: 'username', value: QBT_LOGIN.username },
          { name: 'password', value: QBT_LOGIN.password },
        ],
      },
    ],
    remotepathmapping: s.remotePathMappings.map((m, i) => ({ id: i + 1, ...m })),
    'config/host': { id: 1, backupInterval: s.backup.intervalDays, backupRetention: s.backup.retentionDays, backupFolder: s.backup.folder, port: 8989 },
  };
}

/** One app of Prowlarr's app sync as it stands once synced: the declared fields and the manager's key, stored. */
function syncedApp(a: ProwlarrSettings['applications'][number], prowlarrUrl: string, id: number) {
  return {
    id,
    name: a.name,
    implementation: a.implementation,
    implementationName: a.implementation,
    configContract: `${a.implementation}Settings`,
    syncLevel: a.syncLevel,
    tags: [],
    fields: [
      { name: 'prowlarrUrl', value: prowlarrUrl },
      { name: 'baseUrl', value: a.baseUrl },
      { name: 'apiKey', value: `${a.keyFrom}-key` },
      { name: 'syncCategories', value: a.syncCategories },
      { name: 'animeSyncCategories', value: [] },
    ],
  };
}
type LiveApp = ReturnType<typeof syncedApp>;
const liveApps = () => fakes.prowlarr!.state.applications as LiveApp[];
const appField = (a: LiveApp, name: string) => a.fields.find((f) => f.name === name)!;
/** Prowlarr's stored app of that name. */
const liveApp = (name: string) => liveApps().find((a) => a.name === name)!;
/** Prowlarr's app of that name removed, as if never added. */
const dropApp = (name: string) => liveApps().splice(liveApps().indexOf(liveApp(name)), 1);

let fakes: Record<string, Fake>;
let env: Record<string, string>;
let lines: string[];
const go = (...args: string[]) => run(args, { env, root: REPO_ROOT, out: (l) => lines.push(l) });

beforeEach(async () => {
  lines = [];
  fakes = {};
  env = {};
  for (const instance of ['sonarr', 'radarr', 'radarr-4k']) {
    fakes[instance] = await servarrFake('v3', `${instance}-key`, managerState(instance), { downloadclient: qbittorrentClients(QBT_LOGIN) });
    const key = instance.toUpperCase().replace(/-/g, '_');
    env[`MEDIA_${key}_URL`] = fakes[instance]!.url;
    env[`MEDIA_${key}_API_KEY`] = `${instance}-key`;
  }
  const prowlarr = settings.get('prowlarr') as ProwlarrSettings;
  const managerKeys = Object.fromEntries(prowlarr.applications.map((a) => [a.baseUrl, `${a.keyFrom}-key`]));
  fakes.prowlarr = await servarrFake(
    'v1',
    'prowlarr-key',
    {
      applications: prowlarr.applications.map((a, i) => syncedApp(a, prowlarr.prowlarrUrl, i + 1)),
      indexer: prowlarr.indexers.map((ix, i) => ({
        id: i + 1,
        name: ix.name,
        fields: [
          { name: 'torrentBaseSettings.seedRatio', value: ix.seedRatio },
          { name: 'torrentBaseSettings.seedTime', value: ix.seedTime },
        ],
      })),
      'config/host': { id: 1, backupInterval: 1, backupRetention: 14, backupFolder: 'Backups' },
    },
    { applications: prowlarrApplications(managerKeys) },
  );
  env.MEDIA_PROWLARR_URL = fakes.prowlarr.url;
  env.MEDIA_PROWLARR_API_KEY = 'prowlarr-key';
  fakes.qbittorrent = await qbittorrentFake(QBT_LOGIN.username, QBT_LOGIN.password, {
    max_ratio_enabled: false,
    max_seeding_time_enabled: false,
    max_inactive_seeding_time_enabled: false,
    queueing_enabled: false,
    save_path: '/torrents/completed',
    temp_path_enabled: true,
    temp_path: '/torrents/download',
    web_ui_port: 8080,
  });
  Object.assign(env, {
    MEDIA_QBITTORRENT_URL: fakes.qbittorrent.url,
    MEDIA_QBITTORRENT_USERNAME: QBT_LOGIN.username,
    MEDIA_QBITTORRENT_PASSWORD: QBT_LOGIN.password,
  });
});
afterEach(async () => {
  for (const f of Object.values(fakes)) await f.close();
});

describe('media-settings diff', () => {
  it('reports every app in sync and exits 0', async () => {
    expect(await go('diff')).toBe(0);
    expect(lines.sort()).toEqual(['prowlarr: in sync', 'qbittorrent: in sync', 'radarr-4k: in sync', 'radarr: in sync', 'sonarr: in sync']);
  });

  it('prints drift field by field and exits 1', async () => {
    const sonarr = fakes.sonarr!.state;
    (sonarr.downloadclient as { removeCompletedDownloads: boolean }[])[0]!.removeCompletedDownloads = false;
    (sonarr.remotepathmapping as { host: string }[])[0]!.host = 'qbittorrent';
    (fakes.qbittorrent!.state.preferences as Record<string, unknown>).queueing_enabled = true;
    expect(await go('diff')).toBe(1);
    expect(lines).toContain('sonarr: downloadClients[qBittorrent].removeCompletedDownloads: live false, declared true');
    expect(lines).toContain(
      'sonarr: remotePathMappings[/torrents/]: live qbittorrent -> /data/torrents/, declared qbittorrent.media-vpn.svc.cluster.local -> /data/torrents/',
    );
    expect(lines).toContain('qbittorrent: preferences.queueing_enabled: live true, declared false');
  });

  it('exits 1 when an app gives no answer or refuses the key, naming the cause, and checks the others', async () => {
    await fakes.radarr!.close();
    env.MEDIA_SONARR_API_KEY = 'wrong';
    expect(await go('diff')).toBe(1);
    expect(lines.filter((l) => l.includes('UNREACHABLE')).map((l) => l.split(':')[0])).toEqual(['radarr', 'sonarr']);
    expect(lines.find((l) => l.startsWith('radarr: UNREACHABLE'))).toMatch(/connection refused \(ECONNREFUSED/);
    expect(lines).toContain('prowlarr: in sync');
  });

  it('refuses wrong arguments with one line and exit 2, and prints help with exit 0', async () => {
    const errors: string[] = [];
    const io = { stdout: (t: string) => errors.push(`out:${t}`), stderr: (t: string) => errors.push(`err:${t}`) };
    const code = async (...args: string[]) => run(args, { env, root: REPO_ROOT, out: (l) => lines.push(l), io });
    expect(await code('sync')).toBe(2);
    expect(await code('diff', 'sabnzbd')).toBe(2);
    expect(await code('diff', '--yes')).toBe(2);
    expect(await code('diff', '--force')).toBe(2);
    expect(await code()).toBe(2);
    expect(errors).toEqual([
      'err:media-settings: unknown command "sync"; diff or apply (usage: media-settings diff|apply [instance...] [--yes])\n',
      'err:media-settings: no settings file this script can apply for sabnzbd; known: prowlarr, qbittorrent, radarr, radarr-4k, sonarr (usage: media-settings diff|apply [instance...] [--yes])\n',
      'err:media-settings: --yes applies changes; it goes with apply, not diff (usage: media-settings diff|apply [instance...] [--yes])\n',
      "err:media-settings: Unknown option '--force' (usage: media-settings diff|apply [instance...] [--yes])\n",
      'err:media-settings: missing argument (usage: media-settings diff|apply [instance...] [--yes])\n',
    ]);
    errors.length = 0;
    expect(await code('--help')).toBe(0);
    expect(errors[0]).toMatch(/^out:usage: media-settings diff\|apply/);
  });
});

describe('media-settings apply', () => {
  it('is a dry run by default and changes nothing', async () => {
    (fakes['radarr-4k']!.state.rootfolder as unknown[]).length = 0;
    expect(await go('apply')).toBe(1);
    expect(lines).toContain('radarr-4k: dry run, 1 change(s) not applied (add --yes)');
    expect(Object.values(fakes).flatMap((f) => f.writes)).toEqual([]);
  });

  it('pushes the declared settings with the documented fields, then has nothing left to do', async () => {
    const radarr = fakes.radarr!.state;
    (radarr.downloadclient as { removeFailedDownloads: boolean; fields: { name: string; value: unknown }[] }[])[0]!.removeFailedDownloads = true;
    (radarr.downloadclient as { fields: { name: string; value: unknown }[] }[])[0]!.fields.find((f) => f.name === 'port')!.value = 9090;
    radarr.remotepathmapping = [];
    (radarr['config/host'] as { backupRetention: number }).backupRetention = 28;
    (radarr['config/mediamanagement'] as { copyUsingHardlinks: boolean }).copyUsingHardlinks = false;
    Object.assign(fakes.qbittorrent!.state.preferences as object, { max_ratio_enabled: true });
    expect(await go('apply', '--yes')).toBe(0);
    expect(
      lines.filter((l) => l.startsWith('radarr:')),
      lines.join('\n'),
    ).toContain('radarr: applied 5 change(s)');
    expect(fakes.radarr!.writes.sort()).toEqual([
      'POST /api/v3/remotepathmapping',
      'PUT /api/v3/config/host/1',
      'PUT /api/v3/config/mediamanagement/1',
      'PUT /api/v3/downloadclient/1',
    ]);
    expect(radarr.remotepathmapping).toEqual([
      { id: expect.any(Number), host: 'qbittorrent.media-vpn.svc.cluster.local', remotePath: '/torrents/', localPath: '/data/torrents/' },
    ]);
    const client = (radarr.downloadclient as { removeFailedDownloads: boolean; removeCompletedDownloads: boolean }[])[0]!;
    expect([client.removeFailedDownloads, client.removeCompletedDownloads]).toEqual([false, false]);
    expect(fakes.qbittorrent!.writes).toEqual(['setPreferences {"max_ratio_enabled":false}']);
    lines = [];
    for (const f of Object.values(fakes)) f.writes.length = 0;
    expect(await go('apply', '--yes')).toBe(0);
    expect(Object.values(fakes).flatMap((f) => f.writes)).toEqual([]);
    expect(lines.every((l) => l.endsWith('in sync'))).toBe(true);
  });
});

describe("media-settings: Prowlarr's app sync", () => {
  it('reports a missing app, a changed field, a key the manager refuses and an undeclared app', async () => {
    dropApp('Radarr 4K');
    appField(liveApp('Radarr'), 'baseUrl').value = 'http://localhost:7878';
    appField(liveApp('Sonarr'), 'apiKey').value = 'the key Sonarr made itself';
    liveApps().push({
      ...syncedApp(
        { name: 'Lidarr', implementation: 'Sonarr', baseUrl: 'http://lidarr.media.svc:8686', syncLevel: 'addOnly', syncCategories: [3000], keyFrom: 'lidarr' },
        '',
        9,
      ),
    });
    expect(await go('diff', 'prowlarr')).toBe(1);
    expect(lines).toEqual([
      'prowlarr: applications[Sonarr].test: live failing: API Key is invalid, declared passing',
      'prowlarr: applications[Radarr].baseUrl: live http://localhost:7878, declared http://radarr.media.svc:7878',
      'prowlarr: applications[Radarr 4K]: live absent, declared Radarr at http://radarr-4k.media.svc:7878, fullSync',
      'prowlarr: applications[Lidarr]: live present, declared absent',
    ]);
    expect(fakes.prowlarr!.writes).toEqual([]);
  });

  it("applies them with each manager's key from its variable, then has nothing left to do", async () => {
    dropApp('Radarr 4K');
    appField(liveApp('Radarr'), 'syncCategories').value = [2000];
    appField(liveApp('Sonarr'), 'apiKey').value = 'stale';
    expect(await go('apply', 'prowlarr', '--yes')).toBe(0);
    expect(lines).toContain('prowlarr: applied 3 change(s)');
    expect(fakes.prowlarr!.writes.sort()).toEqual(['POST /api/v1/applications', 'PUT /api/v1/applications/1', 'PUT /api/v1/applications/2']);
    const byName = new Map(liveApps().map((a) => [a.name, a]));
    expect(appField(byName.get('Radarr 4K')!, 'apiKey').value).toBe('radarr-4k-key');
    expect(appField(byName.get('Radarr 4K')!, 'prowlarrUrl').value).toBe('http://prowlarr.media-vpn.svc.cluster.local:9696');
    expect(appField(byName.get('Sonarr')!, 'apiKey').value).toBe('sonarr-key');
    expect(appField(byName.get('Radarr')!, 'syncCategories').value).toEqual([2000, 2040]);
    expect(appField(byName.get('Radarr')!, 'apiKey').value).toBe('radarr-key');
    lines = [];
    fakes.prowlarr!.writes.length = 0;
    expect(await go('apply', 'prowlarr', '--yes')).toBe(0);
    expect(lines).toEqual(['prowlarr: in sync']);
    expect(fakes.prowlarr!.writes).toEqual([]);
  });

  it("stops that app with one line naming the variable when a manager's key is needed and not set, and applies the others", async () => {
    dropApp('Radarr');
    delete env.MEDIA_RADARR_API_KEY;
    (fakes.sonarr!.state['config/host'] as { backupRetention: number }).backupRetention = 28;
    expect(await go('apply', 'prowlarr', 'sonarr', '--yes')).toBe(1);
    expect(lines).toEqual([
      'prowlarr: applications[Radarr]: live absent, declared Radarr at http://radarr.media.svc:7878, fullSync',
      "prowlarr: REFUSED applications[Radarr]: adding it needs Radarr's API key, and the variable for radarr (MEDIA_<INSTANCE>_API_KEY) is not set",
      'sonarr: backup.backupRetention: live 28, declared 14',
      'sonarr: applied 1 change(s)',
    ]);
    expect(fakes.prowlarr!.writes).toEqual([]);
  });
});

describe("media-settings: a manager's download client logs in to the torrent client", () => {
  type LiveClient = { id: number; enable?: boolean; fields: { name: string; value: unknown }[] };
  const sonarrClient = () => (fakes.sonarr!.state.downloadclient as LiveClient[])[0]!;
  const clientField = (name: string) => sonarrClient().fields.find((f) => f.name === name)!;

  it('reports a client with another username, and one whose stored password qBittorrent refuses', async () => {
    clientField('password').value = 'old';
    expect(await go('diff', 'sonarr', 'radarr')).toBe(1);
    expect(lines).toEqual(['sonarr: downloadClients[qBittorrent].test: live failing: Authentication failure, declared passing', 'radarr: in sync']);
    lines = [];
    clientField('username').value = '';
    expect(await go('diff', 'sonarr')).toBe(1);
    expect(lines).toEqual(['sonarr: downloadClients[qBittorrent].username: live , declared admin']);
  });

  it('adds a missing client and mends a refused login with the login from its variables, then has nothing left to do', async () => {
    (fakes.radarr!.state.downloadclient as unknown[]).length = 0;
    clientField('password').value = 'old';
    expect(await go('apply', 'sonarr', 'radarr', '--yes')).toBe(0);
    expect(lines).toEqual([
      'sonarr: downloadClients[qBittorrent].test: live failing: Authentication failure, declared passing',
      'sonarr: applied 1 change(s)',
      'radarr: downloadClients[qBittorrent]: live absent, declared present',
      'radarr: applied 1 change(s)',
    ]);
    expect(clientField('password').value).toBe(QBT_LOGIN.password);
    const added = (fakes.radarr!.state.downloadclient as LiveClient[])[0]!;
    expect(Object.fromEntries(added.fields.map((f) => [f.name, f.value]))).toEqual({
      host: 'qbittorrent.media-vpn.svc.cluster.local',
      port: 8080,
      useSsl: false,
      movieCategory: 'movies',
      username: QBT_LOGIN.username,
      password: QBT_LOGIN.password,
    });
    lines = [];
    expect(await go('diff', 'sonarr', 'radarr')).toBe(0);
    expect(lines).toEqual(['sonarr: in sync', 'radarr: in sync']);
  });

  it('keeps the stored password when another field changes and no login is given, and stops with one line when a new client needs one', async () => {
    delete env.MEDIA_QBITTORRENT_USERNAME;
    delete env.MEDIA_QBITTORRENT_PASSWORD;
    clientField('port').value = 9090;
    expect(await go('apply', 'sonarr', '--yes')).toBe(0);
    expect(clientField('password').value).toBe(QBT_LOGIN.password);
    expect(clientField('port').value).toBe(8080);
    (fakes.radarr!.state.downloadclient as unknown[]).length = 0;
    lines = [];
    expect(await go('apply', 'radarr', '--yes')).toBe(1);
    expect(lines).toEqual([
      'radarr: downloadClients[qBittorrent]: live absent, declared present',
      "radarr: REFUSED downloadClients[qBittorrent]: adding it needs qbittorrent's login, and MEDIA_QBITTORRENT_USERNAME and _PASSWORD is not set",
    ]);
  });

  it('stops an app whose manager refuses a change with the reasons it gives, and applies the others', async () => {
    (fakes.radarr!.state.downloadclient as unknown[]).length = 0;
    env.MEDIA_QBITTORRENT_PASSWORD = 'wrong';
    (fakes.sonarr!.state['config/host'] as { backupRetention: number }).backupRetention = 28;
    expect(await go('apply', 'radarr', 'sonarr', '--yes')).toBe(1);
    expect(lines.filter((l) => l.includes('REFUSED') || l.includes('applied'))).toEqual([
      // The app's reasons, never the password it was sent (FluentValidation's attemptedValue).
      `radarr: REFUSED downloadClients[qBittorrent]: POST ${fakes.radarr!.url}/api/v3/downloadclient: HTTP 400 Authentication failure`,
      'sonarr: applied 1 change(s)',
    ]);
  });
});
