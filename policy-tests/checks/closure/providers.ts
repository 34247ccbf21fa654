/**
 * The providers of the closure model: what the cluster will hold of each
 * kind, from the repository (plain and rendered), from Kubernetes itself,
 * from what Applications say their controllers create, and from
 * `providedOutsideGit`; and the two ways a family of references is judged
 * against them.
 */
import { closest, distance } from 'fastest-levenshtein';
import { applications, syncOptions } from '../../model/argocd.ts';
import { createdAtRuntime } from '../../model/app-declarations.ts';
import { dig } from '../../model/dig.ts';
import type { Resource } from '../../model/manifest.ts';
import { perRepo } from '../../model/per-repo.ts';
import type { Repo } from '../../model/repo.ts';
import type { CheckContext } from '../kit.ts';
import { namespaceOrDestination, str, type Reference } from './references.ts';

/** What Kubernetes creates by itself, whatever the distribution. */
export const KUBERNETES_PROVIDES: Record<string, readonly string[]> = {
  Namespace: ['default', 'kube-system', 'kube-public', 'kube-node-lease'],
  PriorityClass: ['system-cluster-critical', 'system-node-critical'],
};

export const FACTS_FIX = 'or, when something outside git provides it, list it under providedOutsideGit in clusters/home/cluster-facts.yaml with the reason';

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

/** Runs one reference family: each unresolved reference is a finding at the field that names it. */
export function closeReferences(ctx: CheckContext, refs: Iterable<Reference>, what: string): void {
  const cache = new Map<string, Set<string>>();
  for (const ref of refs) {
    const key = `${ref.kind}/${ref.namespace ?? ''}`;
    let names = cache.get(key);
    if (!names) cache.set(key, (names = provided(ctx.repo, ref.kind, ref.namespace)));
    if (!names.has(ref.name)) {
      // A near name the repository does provide is most likely what was meant (a namespace spelt "monitorng").
      const near = names.size ? closest(ref.name, [...names]) : undefined;
      const hint = near && distance(ref.name, near) <= Math.max(2, Math.floor(ref.name.length / 4)) ? ` (did you mean "${near}"?)` : '';
      ctx.fail(
        { resource: ref.resource, path: ref.path },
        `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}, which nothing in the repository provides${what}${hint}`,
      );
    }
  }
}

/** Namespaces the offline gate cannot see whole: an app deploying there has a source it could not render. */
export function opaqueNamespaces(ctx: CheckContext): Set<string> {
  return new Set(ctx.renders.filter((r) => r.status !== 'rendered').map((r) => r.app.destinationNamespace ?? ''));
}

/** Runs a family of references inside namespaces: a missing provider in a namespace the gate cannot see whole is not judged. */
export function namespacedClosure(ctx: CheckContext, refs: readonly Reference[], provides: (ref: Reference) => boolean, what: string): void {
  const opaque = opaqueNamespaces(ctx);
  for (const ref of refs) {
    if (provides(ref) || opaque.has(ref.namespace ?? '')) continue;
    ctx.fail(
      { resource: ref.resource, path: ref.path },
      `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace}/${ref.name}, which nothing in the repository provides${what}`,
    );
  }
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
