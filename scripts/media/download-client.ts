/**
 * A manager's download clients (Sonarr and Radarr API v3 `downloadclient`), with the torrent
 * client's login. Sonarr v4.0.16 (Download/Clients/QBittorrent/QBittorrentProxyV2.cs) logs in to
 * qBittorrent only when both a username and a password are set, and otherwise calls it without
 * a session, which qBittorrent answers 403 for every API path: the client must carry the login.
 * Its password is a provider secret (provider.ts), judged by the client's own test.
 */
import type { HttpClient } from './http.ts';
import { fieldOf, MASKED, secretNeeded, secretTestDrift, withFields, type ProviderField } from './provider.ts';
import { changedFields, type Drift, type FieldChange } from './drift.ts';

/** A download client as a manager's settings file declares it. */
export interface DeclaredDownloadClient {
  name: string;
  implementation: string;
  host: string;
  port: number;
  useSsl: boolean;
  category: string;
  removeCompletedDownloads: boolean;
  removeFailedDownloads: boolean;
  /** The media-settings instance whose login (MEDIA_<INSTANCE>_USERNAME and _PASSWORD) the client logs in with. */
  loginFrom: string;
}

/** What the download clients are read with: the manager's kind and instance, and the clients it declares. */
interface ManagerClients {
  app: 'sonarr' | 'radarr';
  instance: string;
  downloadClients: DeclaredDownloadClient[];
}

interface DownloadClient {
  id?: number;
  name: string;
  implementation: string;
  configContract?: string;
  enable?: boolean;
  protocol?: string;
  priority?: number;
  removeCompletedDownloads: boolean;
  removeFailedDownloads: boolean;
  fields: ProviderField[];
}

/** A torrent client's login as media-settings holds it (either part undefined when its variable is not set). */
export interface Login {
  username?: string;
  password?: string;
}

const categoryField = (app: string) => (app === 'sonarr' ? 'tvCategory' : 'movieCategory');
const variables = (instance: string) => `MEDIA_${instance.toUpperCase().replace(/-/g, '_')}_USERNAME and _PASSWORD`;

/** Each declared download client present, with its fields and the torrent client's login, and passing its test. */
export async function downloadClientDrift(api: HttpClient, s: ManagerClients, loginOf: (instance: string) => Login): Promise<Drift[]> {
  const app = s.instance;
  const drift: Drift[] = [];
  const clients = await api.get<DownloadClient[]>('/api/v3/downloadclient');
  for (const want of s.downloadClients) {
    const live = clients.find((c) => c.name === want.name);
    const login = loginOf(want.loginFrom);
    const needLogin = (why: string): Login => {
      const [what, variable] = [`${why} needs ${want.loginFrom}'s login`, variables(want.loginFrom)];
      return { username: secretNeeded(login.username, what, variable), password: secretNeeded(login.password, what, variable) };
    };
    const declared: Record<string, unknown> = { host: want.host, port: want.port, useSsl: want.useSsl, [categoryField(s.app)]: want.category };
    const desired = (base: DownloadClient, with_: Login): DownloadClient => ({
      ...base,
      removeCompletedDownloads: want.removeCompletedDownloads,
      removeFailedDownloads: want.removeFailedDownloads,
      fields: withFields(base.fields, { ...declared, username: with_.username ?? fieldOf(base, 'username'), password: with_.password ?? MASKED }),
    });
    if (!live) {
      const fresh: DownloadClient = {
        name: want.name,
        implementation: want.implementation,
        configContract: `${want.implementation}Settings`,
        enable: true,
        protocol: 'torrent',
        priority: 1,
        removeCompletedDownloads: want.removeCompletedDownloads,
        removeFailedDownloads: want.removeFailedDownloads,
        fields: [],
      };
      drift.push({
        app,
        field: `downloadClients[${want.name}]`,
        live: 'absent',
        declared: 'present',
        fix: () => api.post('/api/v3/downloadclient', desired(fresh, needLogin('adding it'))),
      });
      continue;
    }
    const diffs: FieldChange[] = [
      ['removeCompletedDownloads', live.removeCompletedDownloads, want.removeCompletedDownloads],
      ['removeFailedDownloads', live.removeFailedDownloads, want.removeFailedDownloads],
      ...Object.entries(declared).map(([name, value]): FieldChange => [name, fieldOf(live, name), value]),
      // The username is answered as it is stored; only the password is masked.
      ...(login.username === undefined ? [] : [['username', fieldOf(live, 'username'), login.username] as FieldChange]),
    ];
    const changed = diffs.filter(([, l, d]) => l !== d);
    // One PUT carries every change of this client, with the login when it is known.
    drift.push(
      ...changedFields(
        app,
        (name) => `downloadClients[${want.name}].${name}`,
        changed,
        () => api.put(`/api/v3/downloadclient/${live.id}`, desired(live, login)),
      ),
    );
    if (changed.length > 0 || live.enable === false) continue;
    // The password cannot be read back: the client's own test tells whether the torrent client takes the stored login.
    const tested = await secretTestDrift(api, { app, field: `downloadClients[${want.name}]`, testPath: '/api/v3/downloadclient/test', provider: live }, () =>
      api.put(`/api/v3/downloadclient/${live.id}`, desired(live, needLogin('setting its login'))),
    );
    if (tested) drift.push(tested);
  }
  return drift;
}
