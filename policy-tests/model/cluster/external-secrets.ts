/** Which Secrets an ExternalSecret writes: a secret the repo refers to must be one of them, never a committed value. */
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';

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
