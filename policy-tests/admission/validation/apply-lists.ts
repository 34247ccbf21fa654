/**
 * What server-side apply refuses that a client-side apply lets through: a list whose schema makes it a map
 * (`+listType=map`: x-kubernetes-list-map-keys) holding two entries of one key. The API server's validation takes
 * two env vars of one name (with a warning) and two container ports alike; structured-merge-diff cannot build the
 * typed object, and every server-side apply of it fails (sigs.k8s.io/structured-merge-diff: "duplicate entries for
 * key"). The keys are Kubernetes' own (core/v1 types.go): a container's env by name, its ports by containerPort
 * and protocol, a pod's imagePullSecrets by name and hostAliases by ip (lists validation never checks for twins).
 */
import { objects } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { podSpecs } from '../../model/cluster/references.ts';

export interface DuplicateKey {
  path: PathSegment[];
  message: string;
}

const CONTAINER_LISTS = ['initContainers', 'containers', 'ephemeralContainers'] as const;

/** Each list entry's key as structured-merge-diff prints it, and where the second of two alike sits. */
function duplicates(list: unknown, keyOf: (entry: Record<string, unknown>) => string | undefined, at: PathSegment[], where: string): DuplicateKey[] {
  if (!Array.isArray(list)) return [];
  const seen = new Set<string>();
  const out: DuplicateKey[] = [];
  list.forEach((entry: unknown, i) => {
    const key = entry && typeof entry === 'object' ? keyOf(entry as Record<string, unknown>) : undefined;
    if (key === undefined) return;
    if (seen.has(key)) out.push({ path: [...at, i], message: `${where}: duplicate entries for key [${key}]` });
    seen.add(key);
  });
  return out;
}

/** The lists of `r`'s pod template that server-side apply cannot take, each second entry of a key. */
export function applyListDuplicates(r: Resource): DuplicateKey[] {
  const out: DuplicateKey[] = [];
  for (const { spec, at } of podSpecs(r)) {
    const field = `.${at.join('.')}`;
    const keyed = (key: string) => (e: Record<string, unknown>) => (typeof e[key] === 'string' ? `${key}=${JSON.stringify(e[key])}` : undefined);
    out.push(
      ...duplicates(spec.imagePullSecrets, keyed('name'), [...at, 'imagePullSecrets'], `${field}.imagePullSecrets`),
      ...duplicates(spec.hostAliases, keyed('ip'), [...at, 'hostAliases'], `${field}.hostAliases`),
    );
    for (const list of CONTAINER_LISTS) {
      const containers = objects(spec[list]);
      containers.forEach((c, i) => {
        const where = `${field}.${list}[name=${JSON.stringify(c?.name ?? '')}]`;
        out.push(
          ...duplicates(c?.env, (e) => (typeof e.name === 'string' ? `name=${JSON.stringify(e.name)}` : undefined), [...at, list, i, 'env'], `${where}.env`),
          ...duplicates(
            c?.ports,
            (p) =>
              p.containerPort === undefined ? undefined : `containerPort=${JSON.stringify(p.containerPort)},protocol=${JSON.stringify(p.protocol ?? 'TCP')}`,
            [...at, list, i, 'ports'],
            `${where}.ports`,
          ),
        );
      });
    }
  }
  return out;
}
