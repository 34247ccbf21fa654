/**
 * The media stack's storage and topology (M1-M3, M6, M7, M16, M19, M31),
 * checked on the workloads, the share and the facts in apps/media/facts.
 */
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { containersOf, podSpecOf, type ContainerRef } from '../../model/core/workloads.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { scalarText } from '../../model/core/text.ts';
import type { Ownership } from '../../model/repository/run-as.ts';
import { dig, isMap, objects } from '../../model/core/dig.ts';
import { SETTINGS_READS } from '../../model/apps/media-settings.ts';
import { libraryFolderProblems, misplacedFolders, torrentClientPathProblems } from './settings-paths.ts';

export const MEDIA_FACTS = 'apps/media/facts/media.yaml';
/** The media apps' namespaces: media, and media-vpn for the VPN pod alone (it needs NET_ADMIN, which only a privileged namespace admits). */
export const MEDIA_NAMESPACES: ReadonlySet<string> = new Set(['media', 'media-vpn']);

interface MediaFacts {
  share: { claim: string; mountPath: string; owner: string };
  roles: {
    tvManager: string;
    movieManager: string;
    movieManager4k: string;
    subtitleManagers: string[];
    archiveExtractor: string;
    transcoder: string[];
    torrentClient: { workload: string; container: string };
    indexerManager: { workload: string; container: string };
    vpn: { workload: string; container: string };
    mediaServer: string;
  };
  folders: string[];
  /** Folders no app of the stack writes (the operator fills them): not held to the apps' user. */
  filledByHand?: string[];
  libraries: Record<string, string>;
}

interface Mount {
  container: ContainerRef;
  index: number;
  claim?: string;
  mountPath: string;
  subPath?: string;
  readOnly: boolean;
}

/** The facts' fields by the shape the checks read them in: a name, a list of names, a container of a workload. */
const FACT_SHAPES: [Path, 'name' | 'names' | 'container' | 'map' | 'optional names'][] = [
  ...(['claim', 'mountPath', 'owner'] as const).map((k): [Path, 'name'] => [['share', k], 'name']),
  ...(['tvManager', 'movieManager', 'movieManager4k', 'archiveExtractor', 'mediaServer'] as const).map((k): [Path, 'name'] => [['roles', k], 'name']),
  [['roles', 'subtitleManagers'], 'names'],
  [['roles', 'transcoder'], 'names'],
  ...(['torrentClient', 'indexerManager', 'vpn'] as const).map((k): [Path, 'container'] => [['roles', k], 'container']),
  [['folders'], 'names'],
  [['filledByHand'], 'optional names'],
  [['libraries'], 'map'],
];
const SHAPE_WORDS = {
  name: 'a name',
  names: 'a list of names',
  'optional names': 'a list of names, where it is given',
  container: 'a workload and a container (workload:, container:)',
  map: 'a map of names',
};
const isName = (v: unknown) => typeof v === 'string' && v !== '';
const fits = (v: unknown, shape: (typeof FACT_SHAPES)[number][1]): boolean =>
  shape === 'optional names'
    ? v === undefined || fits(v, 'names')
    : shape === 'name'
      ? isName(v)
      : shape === 'names'
        ? Array.isArray(v) && v.every(isName)
        : shape === 'container'
          ? isMap(v) && isName(v.workload) && isName(v.container)
          : isMap(v) && Object.values(v).every(isName);

/** The media facts, each field of the shape the checks read it in; otherwise each field that is not, and no check runs on them. */
export function withFacts(ctx: CheckContext, body: (facts: MediaFacts) => void): void {
  const data = ctx.repo.dataFiles.get(MEDIA_FACTS);
  if (!data || !isMap(data.data)) return ctx.fail({ file: 'apps/README.md' }, `${MEDIA_FACTS} is missing or incomplete`);
  const wrong = FACT_SHAPES.filter(([path, shape]) => !fits(dig(data.data, path), shape));
  for (const [path, shape] of wrong) ctx.fail({ data, path }, `${MEDIA_FACTS}: ${path.join('.')} must be ${SHAPE_WORDS[shape]}`);
  if (wrong.length === 0) body(data.data as unknown as MediaFacts);
}

export function workload(ctx: CheckContext, name: string): Resource | undefined {
  return ctx.repo.resources.find((r) => (r.kind === 'Deployment' || r.kind === 'StatefulSet') && MEDIA_NAMESPACES.has(r.namespace ?? '') && r.name === name);
}

/** Every volume mount of a workload, with the PVC behind it. */
export function mountsOf(resource: Resource): Mount[] {
  const pod = podSpecOf(resource);
  if (!pod) return [];
  const volumes = new Map(
    (objects(pod.spec.volumes) as { name?: string; persistentVolumeClaim?: { claimName?: string } }[]).map((v) => [v.name, v.persistentVolumeClaim?.claimName]),
  );
  // A mount path or subPath of another type is the schema layer's finding (the API server refuses the object): no mount here.
  return containersOf(pod).flatMap((c) =>
    (objects(c.container.volumeMounts) as { name: string; mountPath: unknown; subPath?: unknown; readOnly?: boolean }[]).flatMap((m, index) =>
      typeof m.mountPath === 'string' && (m.subPath === undefined || typeof m.subPath === 'string')
        ? [{ container: c, index, claim: volumes.get(m.name), mountPath: m.mountPath, subPath: m.subPath, readOnly: m.readOnly === true }]
        : [],
    ),
  );
}

const mountPath = (m: Mount): Path => [...m.container.at, 'volumeMounts', m.index, 'mountPath'];

/** The media-folders ConfigMap the PreSync job walks, in the media namespaces. */
export const foldersList = (resources: readonly Resource[]): Resource | undefined =>
  resources.find((r) => r.kind === 'ConfigMap' && MEDIA_NAMESPACES.has(r.namespace ?? '') && r.name === 'media-folders');

/** Its folders.tsv: path, mode and owner separated by tabs, one folder per line; by path. */
export function folderTable(list: Resource): Map<string, Ownership> {
  const rows = scalarText((list.object.data as Record<string, unknown>)?.['folders.tsv'] ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
  return new Map(rows.map(([path = '', mode = '', owner = '']) => [path, { mode, owner }]));
}

export function requireWorkload(ctx: CheckContext, name: string, role: string): Resource | undefined {
  const found = workload(ctx, name);
  if (!found) ctx.fail({ file: MEDIA_FACTS }, `the ${role} (${name}) is not declared in apps/media`);
  return found;
}

export const mediaChecks: PolicyCheck[] = [
  {
    id: 'media-one-share',
    description:
      'One network share is mounted whole at /data in the TV manager, both movie managers, both subtitle managers, the archive extractor and the transcoder, so imports are hardlinks (Storage layout 1; M1, M2).',
    invariants: ['M1', 'M2'],
    remediation: 'mount the media-data claim at /data, without subPath, in every workload apps/media/facts/media.yaml lists',
    reads: { kinds: ['Deployment', 'StatefulSet', 'PersistentVolumeClaim', 'PersistentVolume'], files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, (facts) => {
        const { roles, share } = facts;
        const needs: [string, string][] = [
          [roles.tvManager, 'TV manager'],
          [roles.movieManager, 'movie manager'],
          [roles.movieManager4k, '4K movie manager'],
          ...roles.subtitleManagers.map((n): [string, string] => [n, 'subtitle manager']),
          [roles.archiveExtractor, 'archive extractor'],
          ...roles.transcoder.map((n): [string, string] => [n, 'transcoder']),
        ];
        for (const [name, role] of needs) {
          const w = requireWorkload(ctx, name, role);
          if (!w) continue;
          const whole = mountsOf(w).filter((m) => m.claim === share.claim && m.mountPath === share.mountPath && !m.subPath);
          if (whole.length === 0)
            ctx.fail(
              { resource: w, path: ['spec', 'template', 'spec', 'containers'] },
              `the ${role} ${name} does not mount the share ${share.claim} whole at ${share.mountPath}`,
            );
          for (const m of mountsOf(w).filter((m) => m.mountPath === share.mountPath && m.claim !== share.claim))
            ctx.fail(
              { resource: w, path: mountPath(m) },
              `${name} mounts ${m.claim ?? 'another volume'} at ${share.mountPath}: library and torrents must be on the one share`,
            );
        }
        const claim = ctx.repo.resources.find((r) => r.kind === 'PersistentVolumeClaim' && MEDIA_NAMESPACES.has(r.namespace ?? '') && r.name === share.claim);
        const volumeName = dig(claim?.object, ['spec', 'volumeName']);
        const pv = ctx.repo.resources.find((r) => r.kind === 'PersistentVolume' && r.name === volumeName);
        if (!claim || !pv || !isMap(dig(pv.object, ['spec', 'nfs'])))
          ctx.fail({ file: MEDIA_FACTS }, `the share ${share.claim} must be a claim bound to an NFS PersistentVolume`);
      });
    },
  },
  {
    id: 'media-torrent-layout',
    description:
      'The torrent client mounts only the share’s torrents folder, at /torrents, and reports paths under /torrents/completed/: its settings save completed downloads there (save_path), and, where it keeps incomplete ones apart (temp_path_enabled), in a folder of the storage table it mounts writable; otherwise they land in the container’s own filesystem or where no manager’s mapping finds them, and no import happens (Storage layout 2; M3).',
    invariants: ['M3'],
    remediation:
      'mount media-data with subPath: torrents at /torrents in the torrent client, and nothing else of the share; set save_path: /torrents/completed and temp_path: /torrents/download in its settings',
    reads: { kinds: ['Deployment'], files: ['apps/media/facts/media.yaml', ...SETTINGS_READS] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles, share, folders }) => {
        const w = requireWorkload(ctx, roles.torrentClient.workload, 'torrent client pod');
        if (!w) return;
        const mounts = mountsOf(w).filter((m) => m.container.name === roles.torrentClient.container && m.claim === share.claim);
        if (!mounts.some((m) => m.subPath === 'torrents' && m.mountPath === '/torrents'))
          ctx.fail(
            { resource: w, path: ['spec', 'template', 'spec', 'containers'] },
            `${roles.torrentClient.container} does not mount the share's torrents folder at /torrents`,
          );
        for (const m of mounts.filter((m) => !(m.subPath === 'torrents' && m.mountPath === '/torrents')))
          ctx.fail(
            { resource: w, path: mountPath(m) },
            `${roles.torrentClient.container} sees more of the share than /torrents (${m.mountPath}${m.subPath ? `, subPath ${m.subPath}` : ''})`,
          );
        const own = mountsOf(w).filter((m) => m.container.name === roles.torrentClient.container);
        for (const p of torrentClientPathProblems(ctx.repo, own, { client: roles.torrentClient.container, share, folders })) ctx.fail(p.at, p.message);
      });
    },
  },
  {
    id: 'media-library-mounts',
    description:
      'The media server mounts each library (Movies, Movies 4K, TV Shows, Courses, Youtube) read-only from its folder, and nothing of the share writable, and its settings read each library from that mount (M16).',
    invariants: ['M16'],
    remediation:
      "mount each library folder as its own readOnly subPath of media-data, and give the library in the media server's settings a folder under that mount",
    reads: { kinds: ['Deployment'], files: ['apps/media/facts/media.yaml', ...SETTINGS_READS] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ roles, share, libraries }) => {
        const w = requireWorkload(ctx, roles.mediaServer, 'media server');
        if (!w) return;
        const mounts = mountsOf(w).filter((m) => m.claim === share.claim);
        for (const [library, folder] of Object.entries(libraries)) {
          if (!mounts.some((m) => m.subPath === folder && m.readOnly))
            ctx.fail(
              { resource: w, path: ['spec', 'template', 'spec', 'containers'] },
              `library ${library} is not a read-only mount of ${share.mountPath}/${folder}`,
            );
        }
        for (const m of mounts.filter((m) => !m.readOnly)) ctx.fail({ resource: w, path: mountPath(m) }, `the media server mounts ${m.mountPath} writable`);
        for (const p of libraryFolderProblems(ctx.repo, { server: roles.mediaServer, share, libraries }, mounts)) ctx.fail(p.at, p.message);
      });
    },
  },
  {
    id: 'media-folders-prepared',
    description:
      'A PreSync job creates every folder of the storage table and every library folder on the share: its container mounts the share writable, whole and at the path the apps mount it, over every folder of its table (else it makes them in its own filesystem and succeeds, fails on a read-only mount, or makes them elsewhere on the share); /data/movies-4k gets mode 777 and the share user (M6).',
    invariants: ['M6'],
    remediation: 'list the folder in the media-folders ConfigMap (path, mode, owner) that the PreSync job walks',
    reads: { kinds: ['ConfigMap', 'Job'], files: ['apps/media/facts/media.yaml'] },
    exemptible: false,
    run(ctx) {
      withFacts(ctx, ({ folders, share }) => {
        const isPreSync = (r: Resource) =>
          (r.object.metadata as { annotations?: Record<string, string> })?.annotations?.['argocd.argoproj.io/hook'] === 'PreSync';
        const list = foldersList(ctx.resources);
        const job = ctx.resources.find((r) => r.kind === 'Job' && MEDIA_NAMESPACES.has(r.namespace ?? '') && isPreSync(r));
        if (!list || !job) {
          ctx.fail({ file: MEDIA_FACTS }, 'no PreSync Job with its media-folders ConfigMap prepares the share');
          return;
        }
        if (!isPreSync(list)) ctx.fail({ resource: list, path: ['metadata'] }, 'media-folders must be a PreSync hook too, or the job may run before it exists');
        const byPath = folderTable(list);
        for (const folder of folders)
          if (!byPath.has(folder)) ctx.fail({ resource: list, path: ['data', 'folders.tsv'] }, `${folder} is not created before use`);
        const fourK = byPath.get(`${share.mountPath}/movies-4k`);
        if (fourK && (fourK.mode !== '777' || fourK.owner !== share.owner))
          ctx.fail(
            { resource: list, path: ['data', 'folders.tsv'] },
            `${share.mountPath}/movies-4k must be mode 777 owned by ${share.owner}, is ${fourK.mode} ${fourK.owner}`,
          );
        const jobMounts = mountsOf(job);
        if (!jobMounts.some((m) => m.claim === share.claim))
          return ctx.fail({ resource: job, path: ['spec', 'template', 'spec'] }, `the PreSync job does not mount the share ${share.claim}`);
        for (const { at, message } of misplacedFolders(jobMounts, share, [...byPath.keys()]))
          ctx.fail(
            { resource: job, path: at ? mountPath(at) : ['spec', 'template', 'spec', 'containers'] },
            message,
            `mount ${share.claim} whole (no subPath) and writable at ${share.mountPath}, where the apps mount it`,
          );
      });
    },
  },
];
