/**
 * The providers of the closure model: what the cluster will hold of each
 * kind, from the repository (plain and rendered), from Kubernetes itself,
 * from what Applications say their controllers create, and from
 * `providedOutsideGit`.
 */
import { applications, namespaceOrDestination, syncOptions } from '../argocd/argocd.ts';
import { createdAtRuntime } from '../argocd/app-declarations.ts';
import type { SourceRender } from '../argocd/rendered.ts';
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';
import { str, type Reference } from './references.ts';

/** What Kubernetes creates by itself, whatever the distribution. */
export const KUBERNETES_PROVIDES: Record<string, readonly string[]> = {
  Namespace: ['default', 'kube-system', 'kube-public', 'kube-node-lease'],
  PriorityClass: ['system-cluster-critical', 'system-node-critical'],
};

/** Names of `kind` (in `namespace`, for namespaced kinds) the cluster will have. */
export function provided(repo: Repo, kind: string, namespace?: string): Set<string> {
  const names = new Set<string>(KUBERNETES_PROVIDES[kind] ?? []);
  for (const r of repo.resources) if (r.kind === kind && (namespace === undefined || r.namespace === namespace)) names.add(r.name);
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind && (namespace === undefined || e.namespace === namespace)) names.add(e.name);
  if (kind === 'Namespace') {
    // An Application with CreateNamespace=true creates its destination namespace.
    for (const app of applications(repo)) {
      if (syncOptions(app).includes('CreateNamespace=true') && app.destinationNamespace) names.add(app.destinationNamespace);
    }
  }
  return names;
}

/** Namespaces the offline gate cannot see whole: an app deploying there has a source it could not render. */
export function opaqueNamespaces(renders: readonly SourceRender[]): Set<string> {
  return new Set(renders.filter((r) => r.status !== 'rendered').map((r) => r.app.destinationNamespace ?? ''));
}

/** Names of `kind` each namespace will hold: declared objects, and what ExternalSecrets, Certificates, controllers and Kubernetes itself create. */
export function namespacedProviders(repo: Repo, kind: string): Set<string> {
  const out = new Set<string>();
  const add = (namespace: string | undefined, name: string) => out.add(`${namespace ?? ''}/${name}`);
  for (const e of createdAtRuntime(repo)) if (e.kind === kind) add(e.namespace, e.name);
  // The kinds that yield a `kind`: itself, and what writes or claims one.
  const yielding = new Set([
    kind,
    ...(kind === 'Secret' ? ['ExternalSecret', 'Certificate'] : []),
    ...(kind === 'PersistentVolumeClaim' ? ['StatefulSet'] : []),
  ]);
  for (const r of repo.resources) {
    if (!yielding.has(r.kind)) continue;
    const namespace = namespaceOrDestination(repo, r);
    if (r.kind === kind) add(namespace, r.name);
    if (r.kind === 'ExternalSecret') add(namespace, str(dig(r.object, ['spec', 'target', 'name'])) ?? r.name);
    if (r.kind === 'Certificate') add(namespace, str(dig(r.object, ['spec', 'secretName'])) ?? '');
    if (r.kind === 'StatefulSet') {
      // A StatefulSet's claims are <template>-<set>-<ordinal>; its pods name the template.
      for (const t of (dig(r.object, ['spec', 'volumeClaimTemplates']) ?? []) as Record<string, any>[])
        if (typeof t?.metadata?.name === 'string') add(namespace, t.metadata.name);
    }
  }
  for (const e of repo.facts?.providedOutsideGit ?? []) if (e.kind === kind) add(e.namespace, e.name);
  return out;
}

/** The resource that provides a reference, when a file or a render of the repository does. */
export function providerOf(repo: Repo, ref: Reference): Resource | undefined {
  return resourcesByKindAndName(repo)
    .get(`${ref.kind}\0${ref.name}`)
    ?.find((r) => ref.namespace === undefined || r.namespace === ref.namespace);
}

/** The repository's resources by kind and name, in their order: every reference is a lookup, not a scan. */
const resourcesByKindAndName = perRepo((repo: Repo): Map<string, Resource[]> => {
  const out = new Map<string, Resource[]>();
  for (const r of repo.resources) {
    const key = `${r.kind}\0${r.name}`;
    const list = out.get(key);
    if (list) list.push(r);
    else out.set(key, [r]);
  }
  return out;
});
