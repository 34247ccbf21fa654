/**
 * Where the media apps' settings put files, against the volumes their containers mount: the torrent client's download
 * folders (M3) and the media server's library folders (M16). The settings script gives each app the paths its settings
 * name; a path no volume holds, or one outside the folder it must be, loses the files or shows nothing. And where the
 * PreSync job makes the share's folders (M6).
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
const mountHolding = <M extends PathMount>(mounts: readonly M[], path: string): M | undefined =>
  mounts.filter((m) => isUnder(path, m.mountPath)).sort((a, b) => b.mountPath.length - a.mountPath.length)[0];

/** Where a container path of a share mount lies on the share, as the apps that mount it whole at `share.mountPath` see it. */
const onShare = (m: PathMount, path: string, share: Share): string =>
  `${share.mountPath.replace(/\/+$/, '')}${m.subPath ? `/${m.subPath.replace(/^\/+|\/+$/g, '')}` : ''}${path.slice(m.mountPath.replace(/\/+$/, '').length)}`;

/**
 * Why the job's folders do not land on the share where the table means them (under the share's mount path, as the
 * apps mount it): the deepest mount over a folder is another volume or none (the folder is made in the container's
 * own filesystem, and the job still succeeds), the share read-only (mkdir fails), or the share at a subPath that puts
 * it elsewhere on the share. One sentence per mount, with the folders it misplaces.
 */
export function misplacedFolders<M extends PathMount>(
  jobMounts: readonly M[],
  share: Share,
  folders: readonly string[],
): { at: M | undefined; message: string }[] {
  const byMount = new Map<M | undefined, string[]>();
  for (const folder of folders) {
    const m = mountHolding(jobMounts, folder);
    const lands = m?.claim === share.claim && !m.readOnly && onShare(m, folder, share) === folder;
    if (!lands) byMount.set(m, [...(byMount.get(m) ?? []), folder]);
  }
  const shareMount = jobMounts.find((m) => m.claim === share.claim);
  return [...byMount].map(([m, list]) => {
    const [named, them] = list.length === 1 ? [`folder ${list[0]} of its table`, 'it'] : [`${list.length} folders of its table (${list.join(', ')})`, 'them'];
    if (m?.claim !== share.claim)
      return {
        at: shareMount,
        message: `the PreSync job mounts the share ${share.claim} at ${shareMount!.mountPath}, not over the ${named}${m ? ` (${m.mountPath} is another volume)` : ''}: it makes ${them} in the container's own filesystem, succeeds, and the share never has ${them}`,
      };
    if (m.readOnly)
      return {
        at: m,
        message: `the PreSync job mounts the share ${share.claim} read-only at ${m.mountPath}: mkdir of the ${named} fails, and so does the sync`,
      };
    return {
      at: m,
      message: `the PreSync job mounts the share ${share.claim} at ${m.mountPath}${m.subPath ? ` (subPath ${m.subPath})` : ''}, so it makes the ${named} elsewhere on the share than the apps find ${them} at ${share.mountPath}`,
    };
  });
}

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
