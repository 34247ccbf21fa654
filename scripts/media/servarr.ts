/**
 * The Sonarr/Radarr REST API (both serve /api/v3 with an X-Api-Key header:
 * Sonarr v4, Radarr v6) for the rebuild settings: media management, root
 * folders, the download client (download-client.ts), remote path mappings and backups.
 */
import { downloadClientDrift, type DeclaredDownloadClient, type Login } from './download-client.ts';
import { backupDrift, type BackupSettings, type Drift } from './drift.ts';
import { type HttpClient } from './http.ts';

export interface ManagerSettings {
  app: 'sonarr' | 'radarr';
  instance: string;
  mediaManagement: { copyUsingHardlinks: boolean };
  rootFolders: string[];
  downloadClients: DeclaredDownloadClient[];
  remotePathMappings: { host: string; remotePath: string; localPath: string }[];
  backup: BackupSettings;
}

/** The media management settings (hardlinks). */
async function mediaManagementDrift(api: HttpClient, s: ManagerSettings, app: string): Promise<Drift[]> {
  const drift: Drift[] = [];
  const mm = await api.get<Record<string, unknown> & { copyUsingHardlinks: boolean }>('/api/v3/config/mediamanagement');
  if (mm.copyUsingHardlinks !== s.mediaManagement.copyUsingHardlinks) {
    drift.push({
      app,
      field: 'mediaManagement.copyUsingHardlinks',
      live: mm.copyUsingHardlinks,
      declared: s.mediaManagement.copyUsingHardlinks,
      fix: () => api.put(`/api/v3/config/mediamanagement/${String(mm.id)}`, { ...mm, copyUsingHardlinks: s.mediaManagement.copyUsingHardlinks }),
    });
  }
  return drift;
}

/** Root folders present and absent. */
async function rootFolderDrift(api: HttpClient, s: ManagerSettings, app: string): Promise<Drift[]> {
  const drift: Drift[] = [];
  const roots = await api.get<{ id: number; path: string }[]>('/api/v3/rootfolder');
  const norm = (p: string) => p.replace(/\/+$/, '');
  for (const path of s.rootFolders.filter((p) => !roots.some((r) => norm(r.path) === norm(p)))) {
    drift.push({ app, field: `rootFolders[${path}]`, live: 'absent', declared: 'present', fix: () => api.post('/api/v3/rootfolder', { path }) });
  }
  for (const root of roots.filter((r) => !s.rootFolders.some((p) => norm(p) === norm(r.path)))) {
    drift.push({ app, field: `rootFolders[${root.path}]`, live: 'present', declared: 'absent', fix: () => api.delete(`/api/v3/rootfolder/${root.id}`) });
  }
  return drift;
}

/** Remote path mappings. */
async function remotePathDrift(api: HttpClient, s: ManagerSettings, app: string): Promise<Drift[]> {
  const drift: Drift[] = [];
  const mappings = await api.get<{ id: number; host: string; remotePath: string; localPath: string }[]>('/api/v3/remotepathmapping');
  for (const want of s.remotePathMappings) {
    const live = mappings.find((m) => m.remotePath === want.remotePath);
    if (!live)
      drift.push({
        app,
        field: `remotePathMappings[${want.remotePath}]`,
        live: 'absent',
        declared: `${want.host} ${want.remotePath} -> ${want.localPath}`,
        fix: () => api.post('/api/v3/remotepathmapping', want),
      });
    else if (live.host !== want.host || live.localPath !== want.localPath) {
      drift.push({
        app,
        field: `remotePathMappings[${want.remotePath}]`,
        live: `${live.host} -> ${live.localPath}`,
        declared: `${want.host} -> ${want.localPath}`,
        fix: () => api.put(`/api/v3/remotepathmapping/${live.id}`, { ...live, ...want }),
      });
    }
  }
  return drift;
}

/** `loginOf` gives a torrent client's login by its media-settings instance: the download client logs in with it. */
export async function managerDrift(api: HttpClient, s: ManagerSettings, loginOf: (instance: string) => Login): Promise<Drift[]> {
  const app = s.instance;
  // One area after another, in the order the app's API is read.
  const drift: Drift[] = [];
  for (const area of [mediaManagementDrift, rootFolderDrift]) drift.push(...(await area(api, s, app)));
  drift.push(...(await downloadClientDrift(api, s, loginOf)));
  drift.push(...(await remotePathDrift(api, s, app)));
  drift.push(...(await backupDrift(api, app, '/api/v3', s.backup)));
  return drift;
}
