/**
 * Where a file a container reads comes from: the volume mounted over its path, and, for a Secret or a ConfigMap,
 * the key the kubelet writes there (the file's name under the mount, or the item projected to it).
 */
import { dig, list } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import type { Repo } from '../repository/repo.ts';
import { providedKeys } from './provided-keys.ts';

interface Mount {
  name?: string;
  mountPath?: string;
  subPath?: string;
}

/**
 * Why `file` is not there for `container` of `workload`'s pod template, or undefined when it is, or when what
 * writes it cannot be known (a volume of another kind, a provider whose keys are not in the repository).
 */
export function mountedFileProblem(
  { repo, resources }: { repo: Repo; resources: readonly Resource[] },
  workload: Resource,
  container: unknown,
  file: string,
): string | undefined {
  const pod = dig(workload.object, ['spec', 'template', 'spec']);
  const mount = (list(dig(container, ['volumeMounts'])) as Mount[]).find(
    (m) => typeof m.mountPath === 'string' && (file === m.mountPath || file.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)),
  );
  if (!mount?.mountPath) return `${file} is on no volume the container mounts`;
  const volume = (list(dig(pod, ['volumes'])) as Record<string, unknown>[]).find((v) => v.name === mount.name);
  const secret = dig(volume, ['secret', 'secretName']);
  const configMap = dig(volume, ['configMap', 'name']);
  const source =
    typeof secret === 'string' ? { kind: 'Secret', name: secret } : typeof configMap === 'string' ? { kind: 'ConfigMap', name: configMap } : undefined;
  if (!source) return undefined;
  const items = list(dig(volume, [source.kind === 'Secret' ? 'secret' : 'configMap', 'items'])) as { key?: string; path?: string }[];
  const below = file === mount.mountPath ? mount.subPath : file.slice(mount.mountPath.replace(/\/$/, '').length + 1);
  const key = items.length > 0 ? items.find((i) => i.path === below)?.key : below;
  if (!below || !key || (items.length === 0 && below.includes('/')))
    return `${file} is no file the ${source.kind} volume ${String(mount.name)} puts at ${mount.mountPath}`;
  const keys = providedKeys(repo, resources).get(`${source.kind}/${namespaceOrDestination(repo, workload) ?? ''}/${source.name}`);
  if (keys && !keys.has(key)) return `${file} would be key ${key} of ${source.kind} ${source.name}, which has only ${[...keys].sort().join(', ')}`;
  return undefined;
}
