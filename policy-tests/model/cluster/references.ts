/**
 * The references of the closure model: every name a resource gives to a
 * class, a store, an issuer, a priority, a namespace, or (in a pod template)
 * a Secret, ConfigMap, ServiceAccount or claim, with the field that names it.
 */
import { applications, applicationsByName, namespaceOrDestination, ownersByFile } from '../argocd/argocd.ts';
import { chartValues } from '../helm/chart-values.ts';

export { namespaceOrDestination };
import { dig, list, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import type { Repo } from '../repository/repo.ts';
import type { ScopeLookup } from '../core/manifest.ts';

export interface Reference {
  resource: Resource;
  path: Path;
  kind: string;
  name: string;
  namespace?: string;
}

export interface PodRef extends Reference {
  optional: boolean;
  /**
   * A Secret the kubelet pulls the pod's images with (imagePullSecrets, the pod's own or, where it has none, its
   * ServiceAccount's), which it skips, with a warning, where it is missing.
   */
  pull?: true;
  /** The keys it reads by name (an env secretKeyRef or configMapKeyRef, a volume's items), with where each is written. */
  keys?: { key: string; path: Path }[];
}

export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export function podSpecs(r: Resource): { spec: Record<string, unknown>; at: Path }[] {
  const o = r.object as Record<string, unknown>;
  if (r.kind === 'Pod') return [{ spec: (o.spec ?? {}) as Record<string, unknown>, at: ['spec'] }];
  if (r.kind === 'CronJob')
    return [
      {
        spec: (dig(o, ['spec', 'jobTemplate', 'spec', 'template', 'spec']) ?? {}) as Record<string, unknown>,
        at: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
      },
    ];
  if (['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job'].includes(r.kind))
    return [{ spec: (dig(o, ['spec', 'template', 'spec']) ?? {}) as Record<string, unknown>, at: ['spec', 'template', 'spec'] }];
  return [];
}

export function storageRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'PersistentVolumeClaim') {
      const name = str(dig(r.object, ['spec', 'storageClassName']));
      if (name) refs.push({ resource: r, path: ['spec', 'storageClassName'], kind: 'StorageClass', name });
    } else if (r.kind === 'StatefulSet') {
      (list(dig(r.object, ['spec', 'volumeClaimTemplates'])) as unknown[]).forEach((t, i) => {
        const name = str(dig(t, ['spec', 'storageClassName']));
        if (name) refs.push({ resource: r, path: ['spec', 'volumeClaimTemplates', i, 'spec', 'storageClassName'], kind: 'StorageClass', name });
      });
    } else if (r.kind === 'ReplicationSource') {
      for (const mover of ['restic', 'rclone', 'rsync', 'rsyncTLS']) {
        const snapshot = str(dig(r.object, ['spec', mover, 'volumeSnapshotClassName']));
        if (snapshot) refs.push({ resource: r, path: ['spec', mover, 'volumeSnapshotClassName'], kind: 'VolumeSnapshotClass', name: snapshot });
        const storage = str(dig(r.object, ['spec', mover, 'storageClassName']));
        if (storage) refs.push({ resource: r, path: ['spec', mover, 'storageClassName'], kind: 'StorageClass', name: storage });
      }
    }
  }
  return refs;
}

export function ingressRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources.filter((x) => x.kind === 'Ingress')) {
    const name = str(dig(r.object, ['spec', 'ingressClassName']));
    const annotation = str(dig(r.object, ['metadata', 'annotations', 'kubernetes.io/ingress.class']));
    if (name) refs.push({ resource: r, path: ['spec', 'ingressClassName'], kind: 'IngressClass', name });
    else if (annotation) refs.push({ resource: r, path: ['metadata', 'annotations', 'kubernetes.io/ingress.class'], kind: 'IngressClass', name: annotation });
    else refs.push({ resource: r, path: ['spec'], kind: 'IngressClass', name: '(none named; no class is the default)' });
  }
  return refs;
}

export function storeRefs(resources: readonly Resource[]): Reference[] {
  return resources
    .filter((x) => x.kind === 'ExternalSecret')
    .map((r) => {
      const kind = str(dig(r.object, ['spec', 'secretStoreRef', 'kind'])) ?? 'SecretStore';
      const name = str(dig(r.object, ['spec', 'secretStoreRef', 'name'])) ?? '';
      return { resource: r, path: ['spec', 'secretStoreRef', 'name'], kind, name, ...(kind === 'SecretStore' ? { namespace: r.namespace } : {}) };
    });
}

export function issuerRefs(resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'Certificate') {
      const kind = str(dig(r.object, ['spec', 'issuerRef', 'kind'])) ?? 'Issuer';
      const name = str(dig(r.object, ['spec', 'issuerRef', 'name'])) ?? '';
      refs.push({ resource: r, path: ['spec', 'issuerRef', 'name'], kind, name, ...(kind === 'Issuer' ? { namespace: r.namespace } : {}) });
    } else if (r.kind === 'Ingress') {
      for (const [annotation, kind] of [
        ['cert-manager.io/cluster-issuer', 'ClusterIssuer'],
        ['cert-manager.io/issuer', 'Issuer'],
      ] as const) {
        const name = str(dig(r.object, ['metadata', 'annotations', annotation]));
        if (name)
          refs.push({ resource: r, path: ['metadata', 'annotations', annotation], kind, name, ...(kind === 'Issuer' ? { namespace: r.namespace } : {}) });
      }
    }
  }
  return refs;
}

/** Where cert-manager reads a ClusterIssuer's Secrets: its `clusterResourceNamespace`, by default the namespace it runs in. */
export function clusterIssuerNamespace(repo: Repo): string | undefined {
  const [deployed] = chartValues(repo, 'cert-manager');
  if (!deployed) return undefined;
  return str(dig(deployed.values, ['clusterResourceNamespace'])) ?? applicationsByName(repo).get(deployed.appName)?.destinationNamespace;
}

/**
 * The Secrets an Issuer or ClusterIssuer has cert-manager read to prove a name: each DNS-01 solver's `*SecretRef`
 * (Cloudflare's apiTokenSecretRef, Route 53's secretAccessKeySecretRef, ...) and ACME's external account binding, each
 * with its key. A ClusterIssuer's are read in cert-manager's own namespace (`clusterResourceNamespace`), given here
 * as `clusterNamespace`; without it they are left out.
 */
export function issuerSecretRefs(resources: readonly Resource[], clusterNamespace: string | undefined): PodRef[] {
  const refs: PodRef[] = [];
  for (const r of resources.filter((x) => x.kind === 'Issuer' || x.kind === 'ClusterIssuer')) {
    const namespace = r.kind === 'Issuer' ? r.namespace : clusterNamespace;
    if (!namespace) continue;
    const push = (ref: unknown, path: Path) => {
      const name = str(dig(ref, ['name']));
      const key = str(dig(ref, ['key']));
      if (name)
        refs.push({
          resource: r,
          path: [...path, 'name'],
          kind: 'Secret',
          name,
          namespace,
          optional: false,
          ...(key ? { keys: [{ key, path: [...path, 'key'] }] } : {}),
        });
    };
    push(dig(r.object, ['spec', 'acme', 'externalAccountBinding', 'keySecretRef']), ['spec', 'acme', 'externalAccountBinding', 'keySecretRef']);
    (list(dig(r.object, ['spec', 'acme', 'solvers'])) as unknown[]).forEach((solver, i) => {
      const dns01 = dig(solver, ['dns01']);
      for (const [provider, settings] of Object.entries((dns01 ?? {}) as Record<string, unknown>))
        for (const [field, ref] of Object.entries((settings ?? {}) as Record<string, unknown>))
          if (field.endsWith('SecretRef')) push(ref, ['spec', 'acme', 'solvers', i, 'dns01', provider, field]);
    });
  }
  return refs;
}

/** A cluster-scoped class a pod names by one field of its spec: a PriorityClass, a RuntimeClass. */
const podClassRefs =
  (field: 'priorityClassName' | 'runtimeClassName', kind: 'PriorityClass' | 'RuntimeClass') =>
  (resources: readonly Resource[]): Reference[] => {
    const refs: Reference[] = [];
    for (const r of resources) {
      for (const { spec, at } of podSpecs(r)) {
        const name = str(spec[field]);
        if (name) refs.push({ resource: r, path: [...at, field], kind, name });
      }
    }
    return refs;
  };

export const priorityRefs = podClassRefs('priorityClassName', 'PriorityClass');
/** The RuntimeClass admission plugin refuses a pod whose runtimeClassName names none the cluster has. */
export const runtimeRefs = podClassRefs('runtimeClassName', 'RuntimeClass');

/**
 * The namespace Argo CD applies a namespaced resource into: its own, else the
 * Helm release namespace its source sets, else its Application's destination
 * (from maps the caller built once). Namespace references need the release
 * namespace; pod references need only namespaceOrDestination.
 */
function namespaceOrRelease(r: Resource, byFile: Map<string, string | undefined>, byApp: Map<string, string | undefined>): string | undefined {
  return r.namespace ?? (r.rendered ? byApp.get(r.rendered.app) : byFile.get(r.file));
}

export function namespaceRefs(repo: Repo, resources: readonly Resource[], isClusterScoped: ScopeLookup): Reference[] {
  const apps = applications(repo);
  const byApp = new Map(apps.map((a) => [a.name, a.sources.find((s) => s.helm?.namespace)?.helm?.namespace ?? a.destinationNamespace]));
  const byFile = new Map([...ownersByFile(repo)].map(([file, owners]) => [file, owners[0]?.destinationNamespace]));
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind === 'Namespace' || isClusterScoped(r.apiVersion, r.kind)) continue;
    const namespace = namespaceOrRelease(r, byFile, byApp);
    if (namespace) refs.push({ resource: r, path: r.namespace ? ['metadata', 'namespace'] : ['metadata', 'name'], kind: 'Namespace', name: namespace });
  }
  return refs;
}

/** The pull Secrets of a pod spec, or of a ServiceAccount, at `at`: each `imagePullSecrets[i].name`. */
const pullSecrets = (owner: Record<string, unknown>, at: Path, push: (kind: string, name: unknown, path: Path, o: { pull: true }) => void) =>
  ((owner.imagePullSecrets ?? []) as Record<string, any>[]).forEach((p, i) => push('Secret', p?.name, [...at, 'imagePullSecrets', i, 'name'], { pull: true }));

export function podRefs(repo: Repo, resources: readonly Resource[]): PodRef[] {
  const out: PodRef[] = [];
  for (const r of resources) {
    const namespace = namespaceOrDestination(repo, r);
    const push = (kind: string, name: unknown, path: Path, o: { optional?: unknown; keys?: PodRef['keys']; pull?: true } = {}) => {
      if (typeof name === 'string' && name !== '')
        out.push({
          resource: r,
          path,
          kind,
          name,
          namespace,
          optional: o.optional === true,
          ...(o.keys?.length ? { keys: o.keys } : {}),
          ...(o.pull ? { pull: o.pull } : {}),
        });
    };
    // The ServiceAccount admission plugin gives a pod that names no pull Secret of its own its account's.
    if (r.kind === 'ServiceAccount' && r.apiVersion === 'v1') pullSecrets(r.object as Record<string, unknown>, [], push);
    for (const { spec, at } of podSpecs(r)) {
      /** A volume source's items: the keys it projects, each at items[k].key. */
      const items = (source: { items?: { key?: unknown }[] } | undefined, at: Path): PodRef['keys'] =>
        (objects(source?.items) as { key?: unknown }[]).flatMap((item, k) =>
          typeof item?.key === 'string' ? [{ key: item.key, path: [...at, 'items', k, 'key'] }] : [],
        );
      /** An env entry's key reference: its one key. */
      const keyOf = (ref: { key?: unknown } | undefined, at: Path): PodRef['keys'] =>
        typeof ref?.key === 'string' ? [{ key: ref.key, path: [...at, 'key'] }] : [];
      push('ServiceAccount', spec.serviceAccountName, [...at, 'serviceAccountName']);
      pullSecrets(spec, at, push);
      (objects(spec.volumes) as Record<string, any>[]).forEach((v, i) => {
        const vol: Path = [...at, 'volumes', i];
        push('Secret', v.secret?.secretName, [...vol, 'secret', 'secretName'], { optional: v.secret?.optional, keys: items(v.secret, [...vol, 'secret']) });
        push('ConfigMap', v.configMap?.name, [...vol, 'configMap', 'name'], {
          optional: v.configMap?.optional,
          keys: items(v.configMap, [...vol, 'configMap']),
        });
        push('PersistentVolumeClaim', v.persistentVolumeClaim?.claimName, [...vol, 'persistentVolumeClaim', 'claimName']);
        ((v.projected?.sources ?? []) as Record<string, any>[]).forEach((src, j) => {
          push('Secret', src.secret?.name, [...vol, 'projected', 'sources', j, 'secret', 'name'], { optional: src.secret?.optional });
          push('ConfigMap', src.configMap?.name, [...vol, 'projected', 'sources', j, 'configMap', 'name'], { optional: src.configMap?.optional });
        });
      });
      for (const kindOf of ['containers', 'initContainers'] as const) {
        (list(spec[kindOf]) as Record<string, any>[]).forEach((c, i) => {
          (list(c?.env) as Record<string, any>[]).forEach((e, j) => {
            const from: Path = [...at, kindOf, i, 'env', j, 'valueFrom'];
            for (const [field, kind] of [
              ['secretKeyRef', 'Secret'],
              ['configMapKeyRef', 'ConfigMap'],
            ] as const) {
              const ref = e?.valueFrom?.[field];
              push(kind, ref?.name, [...from, field, 'name'], { optional: ref?.optional, keys: keyOf(ref, [...from, field]) });
            }
          });
          (list(c?.envFrom) as Record<string, any>[]).forEach((e, j) => {
            push('Secret', e?.secretRef?.name, [...at, kindOf, i, 'envFrom', j, 'secretRef', 'name'], { optional: e?.secretRef?.optional });
            push('ConfigMap', e?.configMapRef?.name, [...at, kindOf, i, 'envFrom', j, 'configMapRef', 'name'], { optional: e?.configMapRef?.optional });
          });
        });
      }
    }
  }
  return out;
}

/**
 * The ServiceAccounts each RoleBinding and ClusterRoleBinding grants its role to (subjects of kind ServiceAccount): in
 * the subject's namespace, else, in a RoleBinding, the binding's own, as the RBAC authorizer reads it (appliesToUser).
 */
export function bindingSubjectRefs(repo: Repo, resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind !== 'RoleBinding' && r.kind !== 'ClusterRoleBinding') continue;
    list(dig(r.object, ['subjects'])).forEach((subject, i) => {
      const name = str(dig(subject, ['name']));
      if (str(dig(subject, ['kind'])) !== 'ServiceAccount' || !name) return;
      const namespace = str(dig(subject, ['namespace'])) || (r.kind === 'RoleBinding' ? (namespaceOrDestination(repo, r) ?? '') : '');
      if (namespace) refs.push({ resource: r, path: ['subjects', i, 'name'], kind: 'ServiceAccount', name, namespace });
    });
  }
  return refs;
}

/** The role each RoleBinding and ClusterRoleBinding grants (roleRef): a Role in the binding's own namespace, or a ClusterRole. */
export function roleRefs(repo: Repo, resources: readonly Resource[]): Reference[] {
  const refs: Reference[] = [];
  for (const r of resources) {
    if (r.kind !== 'RoleBinding' && r.kind !== 'ClusterRoleBinding') continue;
    const kind = str(dig(r.object, ['roleRef', 'kind']));
    const name = str(dig(r.object, ['roleRef', 'name']));
    if (!name || (kind !== 'Role' && kind !== 'ClusterRole')) continue;
    refs.push({ resource: r, path: ['roleRef', 'name'], kind, name, ...(kind === 'Role' ? { namespace: namespaceOrDestination(repo, r) ?? '' } : {}) });
  }
  return refs;
}
