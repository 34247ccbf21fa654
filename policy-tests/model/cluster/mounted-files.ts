/**
 * Where a file a container reads comes from: the volume mounted over its path, and, for a Secret or a ConfigMap,
 * the key the kubelet writes there (the file's name under the mount, or the item projected to it).
 */
import { dig, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { keysOf } from './provided-keys.ts';
import { onePartSlipped } from '../core/did-you-mean.ts';

interface Mount {
  name?: string;
  mountPath?: string;
  subPath?: string;
}

export type MountedFile =
  /** No volume is mounted over the path: the file is the image's, or nothing. */
  | { on: 'image' }
  /**
   * A volume whose files the repository does not write (emptyDir, a claim, a projected or optional source); of an
   * optional Secret or ConfigMap, the key the file would be (`optional`), which a program may write at run time.
   */
  | { on: 'volume'; optional?: { kind: 'Secret' | 'ConfigMap'; name: string; key: string } }
  /** A Secret's or ConfigMap's key; `problem` says why the file is not there, when the provider's keys are known. */
  | { on: 'Secret' | 'ConfigMap'; name: string; problem?: string };

/** What puts `file` where `container` of the pod `spec` (in `namespace`) reads it. */
export function mountedFile(
  { repo, resources }: { repo: Repo; resources: readonly Resource[] },
  { spec, namespace }: { spec: unknown; namespace?: string },
  container: unknown,
  file: string,
): MountedFile {
  const mount = (objects(dig(container, ['volumeMounts'])) as Mount[]).find(
    (m) => typeof m.mountPath === 'string' && (file === m.mountPath || file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)),
  );
  if (!mount?.mountPath) return { on: 'image' };
  const volume = objects(dig(spec, ['volumes'])).find((v) => v.name === mount.name);
  const field = dig(volume, ['secret']) ? 'secret' : dig(volume, ['configMap']) ? 'configMap' : undefined;
  const name = field && dig(volume, field === 'secret' ? ['secret', 'secretName'] : ['configMap', 'name']);
  if (!field || typeof name !== 'string') return { on: 'volume' };
  const kind = field === 'secret' ? 'Secret' : 'ConfigMap';
  const items = objects(dig(volume, [field, 'items'])) as { key?: string; path?: string }[];
  const root = mount.mountPath.replace(/\/$/, '');
  const optional = dig(volume, [field, 'optional']) === true;
  // The mount itself: the volume's folder (a program given a config directory), or the one file a subPath puts there.
  if (file.replace(/\/$/, '') === root && !mount.subPath) return optional ? { on: 'volume' } : { on: kind, name };
  const below = file.replace(/\/$/, '') === root ? mount.subPath : file.slice(root.length + 1);
  const key = items.length > 0 ? items.find((i) => i.path === below)?.key : below;
  // An optional source may be absent, or written at run time: the caller knows what writes it, if anything does.
  if (!below || !key || (items.length === 0 && below.includes('/')))
    return optional ? { on: 'volume' } : { on: kind, name, problem: `${file} is no file the ${kind} volume ${String(mount.name)} puts at ${mount.mountPath}` };
  if (optional) return { on: 'volume', optional: { kind, name, key } };
  const keys = keysOf({ repo, resources }, { kind, namespace, name });
  if (keys && !keys.has(key))
    return {
      on: kind,
      name,
      problem: `${file} would be key ${key} of ${kind} ${name}, which has ${keys.size ? `only ${[...keys].sort().join(', ')}` : 'no key'}`,
    };
  return { on: kind, name };
}

/**
 * Where no mount of `container` holds `file`, the mount whose path is one keystroke from the folder the file lies in
 * (`/tsatus` for `/status/status.json`, or the path itself), with that folder: the likely slip that left the file on
 * the image.
 */
export function slippedMount(container: unknown, file: string): { mount: string; mountPath: string; folder: string } | undefined {
  const mounts = objects(dig(container, ['volumeMounts'])) as Mount[];
  const holds = (m: Mount) => typeof m.mountPath === 'string' && (file === m.mountPath || file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`));
  if (mounts.some(holds)) return undefined;
  for (const m of mounts) {
    if (typeof m.mountPath !== 'string') continue;
    const parts = m.mountPath.replace(/\/+$/, '').split('/').slice(1);
    const folder = file.split('/').slice(1, 1 + parts.length);
    if (parts.length > 0 && onePartSlipped(folder, parts)) return { mount: String(m.name), mountPath: m.mountPath, folder: `/${folder.join('/')}` };
  }
  return undefined;
}

/**
 * The absolute paths a string names as a program's argument or setting (`/etc/x.yml`, `--config.file=/etc/x.yml`),
 * not the paths inside URLs.
 */
export function namedPaths(text: string): string[] {
  return [...text.matchAll(/(?<=^|[\s=,])\/(?!\/)[^\s,;"'=]+/g)].map((m) => m[0]);
}
