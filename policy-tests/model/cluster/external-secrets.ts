/** Which Secrets an ExternalSecret writes: a secret the repo refers to must be one of them, never a committed value. */
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import type { Path } from '../core/positions.ts';
import { dig, isMap } from '../core/dig.ts';
import { str, type PodRef } from './references.ts';

/** The Secret an ExternalSecret writes: its target's name, else its own. */
const targetName = (es: Resource): string => (es.object.spec as { target?: { name?: string } } | undefined)?.target?.name ?? es.name;

const targets = perRepo((repo: Repo) => {
  const names = new Set<string>();
  for (const r of repo.resources.filter((x) => x.kind === 'ExternalSecret')) {
    const name = targetName(r);
    names.add(name);
    names.add(`${r.namespace ?? ''}/${name}`);
  }
  return names;
});

/** True when an ExternalSecret writes Secret `name` (in `namespace`, when given). */
export function writtenByExternalSecret(repo: Repo, name: string | undefined, namespace?: string): boolean {
  if (!name) return false;
  return targets(repo).has(namespace === undefined ? name : `${namespace}/${name}`);
}

/** The store item an ExternalSecret copies into one key of its Secret: store, remote key and property. */
export interface StoreItem {
  store: string;
  key: string;
  property?: string;
}

const storeItems = perRepo((repo: Repo) => {
  const items = new Map<string, StoreItem>();
  for (const r of repo.resources.filter((x) => x.kind === 'ExternalSecret')) {
    const spec = (r.object.spec ?? {}) as {
      target?: { name?: string; template?: { data?: Record<string, unknown> } };
      secretStoreRef?: { kind?: string; name?: string };
      data?: { secretKey?: string; remoteRef?: { key?: string; property?: string } }[];
    };
    const secret = targetName(r);
    const store = `${spec.secretStoreRef?.kind ?? 'SecretStore'}/${spec.secretStoreRef?.name ?? ''}`;
    for (const d of spec.data ?? []) {
      // A key its template writes is the template's text, not the item as it is.
      if (!d.secretKey || !d.remoteRef?.key || spec.target?.template?.data?.[d.secretKey] !== undefined) continue;
      items.set(`${namespaceOrDestination(repo, r) ?? ''}/${secret}/${d.secretKey}`, {
        store,
        key: d.remoteRef.key,
        ...(d.remoteRef.property ? { property: d.remoteRef.property } : {}),
      });
    }
  }
  return items;
});

/** The store item one key of a Secret is copied from, when an ExternalSecret of the repository copies it as it is. */
export function storeItemOf(repo: Repo, namespace: string | undefined, secret: string, key: string): StoreItem | undefined {
  return storeItems(repo).get(`${namespace ?? ''}/${secret}/${key}`);
}

/**
 * The Secrets a SecretStore or ClusterSecretStore authenticates with: every `*SecretRef` under its provider
 * (External Secrets' SecretKeySelector: a name, a key, and for a ClusterSecretStore the namespace it is read in;
 * onepasswordSDK's serviceAccountSecretRef, AWS's accessKeyIDSecretRef...), each with its key. A SecretStore's are read
 * in its own namespace; a ClusterSecretStore's without a namespace are left out, since External Secrets reads those
 * nowhere. Without the Secret the store cannot authenticate: it is not ready, and no ExternalSecret through it is written.
 */
export function storeSecretRefs(repo: Repo, resources: readonly Resource[]): PodRef[] {
  const refs: PodRef[] = [];
  for (const r of resources.filter((x) => (x.kind === 'SecretStore' || x.kind === 'ClusterSecretStore') && x.apiVersion.startsWith('external-secrets.io/'))) {
    const walk = (node: unknown, path: Path): void => {
      if (!isMap(node)) return;
      for (const [field, value] of Object.entries(node)) {
        const name = isMap(value) ? str(value.name) : undefined;
        if (/SecretRef$/.test(field) && isMap(value) && name) {
          const namespace = r.kind === 'SecretStore' ? namespaceOrDestination(repo, r) : str(value.namespace);
          const key = str(value.key);
          if (namespace)
            refs.push({
              resource: r,
              path: [...path, field, 'name'],
              kind: 'Secret',
              name,
              namespace,
              optional: false,
              ...(key ? { keys: [{ key, path: [...path, field, 'key'] }] } : {}),
            });
        } else walk(value, [...path, field]);
      }
    };
    walk(dig(r.object, ['spec', 'provider']), ['spec', 'provider']);
  }
  return refs;
}
