/**
 * An optional ConfigMap or Secret the repository's own pod templates name. The pod starts without it, so nothing
 * refuses a name that nothing will ever provide: the volume stays empty, or the variables unset, for good. The status
 * page's ConfigMap is optional because a CronJob writes it after the API starts; renamed on one side only, the page
 * serves its built-in snapshot forever and every check is green. Provided here also means written at run time by a
 * program the repository runs (model/programs/api-writes.ts). A chart's optional references are its hooks for what
 * a user may add (Argo CD's TLS Secrets, Cilium's cluster mesh), and are left alone.
 */
import type { CheckContext } from '../../model/checks/kit.ts';
import type { PodRef, Reference } from '../../model/cluster/references.ts';
import { opaqueNamespaces } from '../../model/cluster/providers.ts';
import { upstreamOrigin } from '../../model/argocd/authorship.ts';
import { programWrites } from '../../model/programs/api-writes.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { FACTS_FIX } from './closing.ts';

/** What a pod goes without when an optional reference of this place names nothing. */
function goesWithout(ref: Reference): string {
  if (ref.path.includes('envFrom')) return 'none of the variables it would set is set';
  if (ref.path.includes('env')) return 'the variable stays unset';
  return 'the volume stays empty';
}

/**
 * Each optional reference of `kind` a pod template of the repository's own writes, held to what provides one:
 * `names` (`namespace/name`, as namespacedProviders gives them) and what the programs write; `provided` says what
 * else the caller counts (a ConfigMap's kube-root-ca.crt).
 */
export function closeOptionalReferences(
  ctx: CheckContext,
  refs: readonly PodRef[],
  have: { kind: 'ConfigMap' | 'Secret'; names: ReadonlySet<string>; provided: (ref: Reference) => boolean },
): void {
  const own = refs.filter((ref) => ref.optional && upstreamOrigin(ctx.repo, ref.resource) === undefined && !have.provided(ref));
  if (own.length === 0) return;
  const writes = programWrites(ctx, have.kind);
  const opaque = opaqueNamespaces(ctx.renders);
  for (const ref of own) {
    const namespace = ref.namespace ?? '';
    if (writes.named.has(`${namespace}/${ref.name}`) || opaque.has(namespace)) continue;
    const place = { resource: ref.resource, path: ref.path };
    const what = `${ref.resource.kind} ${ref.resource.name} names ${ref.kind} ${namespace}/${ref.name} as optional`;
    const unsure = writes.unread ?? writes.unnamed.get(namespace);
    if (unsure) {
      ctx.notJudged(place, `${what}, which no manifest declares; it may be what ${unsure}`);
      continue;
    }
    const near = [...have.names, ...writes.named].filter((k) => k.startsWith(`${namespace}/`)).map((k) => k.slice(namespace.length + 1));
    ctx.fail(
      place,
      `${what}, and nothing provides it: no manifest declares it${have.kind === 'Secret' ? ', no ExternalSecret or Certificate writes it' : ''}, no program the repository runs writes it (its image's apiRequests), and providedOutsideGit does not list it; so the pod starts without it, and ${goesWithout(ref)} for good${didYouMean(ref.name, near)}`,
      `name the ${ref.kind} that is provided, or declare it, ${FACTS_FIX}`,
    );
  }
}
