/**
 * Where the media apps' settings put files, against the volumes their containers mount: the torrent client's download
 * folders (M3) and the media server's library folders (M16). The settings script gives each app the paths its settings
 * name; a path no volume holds, or one outside the folder it must be, loses the files or shows nothing.
 */
import type { Path } from '../../model/core/positions.ts';
import type { DataFile, Repo } from '../../model/repository/repo.ts';
import { isMap, objects } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { settingsByApp } from '../../model/apps/media-settings.ts';

/** A volume mount of a container, as media.ts's mountsOf gives it. */
export interface PathMount {
  claim?: string;
  mountPath: string;
  subPath?: string;
  readOnly: boolean;
}
type Share = { claim: string; mountPath: string };

export interface SettingsPathProblem {
  at: { data: DataFile; path: Path };
  message: string;
}

/** `path` under `dir` (or `dir` itself), as directories nest: `/torrents/completed` is under `/torrents`, `/torrentsx` is not. */
const isUnder = (path: string, dir: string): boolean => {
  const d = dir.replace(/\/+$/, '');
  return path === d || path.startsWith(`${d}/`);
};

/** The mount of a container that holds a path it writes to: the deepest mount path above it, as the kernel resolves it. */
const mountHolding = (mounts: readonly PathMount[], path: string): PathMount | undefined =>
  mounts.filter((m) => isUnder(path, m.mountPath)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];

/** Where a container path of a share mount lies on the share, as the apps that mount it whole at `share.mountPath` see it. */
const onShare = (m: PathMount, path: string, share: Share): string =>
  `${share.mountPath.replace(/\/+$/, '')}${m.subPath ? `/${m.subPath.replace(/^\/+|\/+$/g, '')}` : ''}${path.slice(m.mountPath.replace(/\/+$/, '').length)}`;

/** The torrent client's save_path and, where it keeps incomplete downloads apart, temp_path (M3). */
export function torrentClientPathProblems(
  repo: Repo,
  own: readonly PathMount[],
  { client: instance, share, folders }: { client: string; share: Share; folders: readonly string[] },
): SettingsPathProblem[] {
  // A settings file the schema refuses is the schema check's.
  const client = settingsByApp(repo).get(instance);
  if (!client?.valid) return [];
  const problems: SettingsPathProblem[] = [];
  const prefs = isMap(client.s.preferences) ? client.s.preferences : {};
  const paths: [string, string][] = [['save_path', 'completed downloads']];
  if (prefs.temp_path_enabled === true) paths.push(['temp_path', 'incomplete downloads']);
  for (const [key, what] of paths) {
    if (typeof prefs[key] !== 'string') continue;
    const path = prefs[key];
    const at = { data: client.file, path: ['preferences', key] };
    const m = mountHolding(own, path);
    if (!m || m.readOnly)
      problems.push({
        at,
        message: `the torrent client puts its ${what} in ${path}, ${m ? `on a read-only mount (${m.mountPath})` : 'which no volume of its container holds: they go to the container’s own filesystem, lost at a restart'}${key === 'save_path' ? ', and no manager sees them' : ''}`,
      });
    else if (key === 'save_path' && !isUnder(path, '/torrents/completed'))
      problems.push({
        at,
        message: `the torrent client reports completed downloads under ${path}, not under /torrents/completed/: the managers import from /data/torrents/completed, and find nothing there`,
      });
    else if (m.claim === share.claim && !folders.some((f) => isUnder(onShare(m, path, share), f)))
      problems.push({
        at,
        message: `the torrent client puts its ${what} in ${path} (${onShare(m, path, share)} on the share), a folder the storage table does not list: the PreSync job never makes it with the apps' owner`,
      });
  }
  return problems;
}

/** Each library of the media server's settings at the folder of its read-only mount (M16). */
export function libraryFolderProblems(
  repo: Repo,
  { server: instance, share, libraries }: { server: string; share: Share; libraries: Readonly<Record<string, string>> },
  mounts: readonly PathMount[],
): SettingsPathProblem[] {
  const server = settingsByApp(repo).get(instance);
  if (!server?.valid) return [];
  return objects(server.s.libraries).flatMap((lib, i) => {
    const folder = libraries[scalarText(lib.name ?? '')];
    const mount = folder === undefined ? undefined : mounts.find((m) => m.subPath === folder && m.readOnly);
    const path = scalarText(lib.folder ?? '');
    return mount && !isUnder(path, mount.mountPath)
      ? [
          {
            at: { data: server.file, path: ['libraries', i, 'folder'] },
            message: `library ${scalarText(lib.name)} reads ${path || 'no folder'}, not the media server's mount of ${share.mountPath}/${folder} (${mount.mountPath}): the library shows none of it`,
          },
        ]
      : [];
  });
}
