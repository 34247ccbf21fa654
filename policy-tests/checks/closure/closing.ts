/**
 * The two ways a family of references is judged against the providers
 * (model/cluster/providers.ts): each name the cluster will not have is a
 * finding at the field that names it.
 */
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { opaqueNamespaces, provided } from '../../model/cluster/providers.ts';
import type { Reference } from '../../model/cluster/references.ts';
import type { CheckContext } from '../../model/checks/kit.ts';

export const FACTS_FIX = 'or, when something outside git provides it, list it under providedOutsideGit in clusters/home/cluster-facts.yaml with the reason';

/** Runs one reference family: each unresolved reference is a finding at the field that names it. */
export function closeReferences(ctx: CheckContext, refs: Iterable<Reference>, what: string): void {
  const cache = new Map<string, Set<string>>();
  for (const ref of refs) {
    const key = `${ref.kind}/${ref.namespace ?? ''}`;
    let names = cache.get(key);
    if (!names) cache.set(key, (names = provided(ctx.repo, ref.kind, ref.namespace)));
    if (!names.has(ref.name)) {
      // A near name the repository does provide is most likely what was meant (a namespace spelt "monitorng").
      const hint = didYouMean(ref.name, names);
      ctx.fail(
        { resource: ref.resource, path: ref.path },
        `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name}, which nothing in the repository provides${what}${hint}`,
      );
    }
  }
}

/** Runs a family of references inside namespaces: a missing provider in a namespace the gate cannot see whole is not judged. */
export function namespacedClosure(ctx: CheckContext, refs: readonly Reference[], provides: (ref: Reference) => boolean, what: string): void {
  const opaque = opaqueNamespaces(ctx.renders);
  for (const ref of refs) {
    if (provides(ref) || opaque.has(ref.namespace ?? '')) continue;
    ctx.fail(
      { resource: ref.resource, path: ref.path },
      `${ref.resource.kind} ${ref.resource.name} uses ${ref.kind} ${ref.namespace}/${ref.name}, which nothing in the repository provides${what}`,
    );
  }
}

/**
 * The sources the render tier did not render, named for a "not judged" finding: what the gate cannot see may hold
 * what a check looks for. Empty when every source rendered.
 */
export function unrenderedSources(ctx: CheckContext): { count: number; text: string } {
  const names = ctx.renders.filter((r) => r.status !== 'rendered').map((r) => r.app.name);
  return { count: names.length, text: `${names.length} source(s) were not rendered (${names.slice(0, 3).join(', ')}${names.length > 3 ? ', ...' : ''})` };
}
