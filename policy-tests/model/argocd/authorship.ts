/**
 * Who wrote a resource: this repository, or an upstream project whose output
 * an Application renders (a chart, a kustomize base fetched from a URL). The
 * repository's own manifests must say everything (every port a container
 * serves); upstream ones may leave out what their process does by default,
 * and the operator cannot edit them, only configure them.
 */
import { checkoutView, kustomizeInputs } from './kustomize.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';

/** Why a resource's content is upstream's, or undefined for one this repository wrote (plain, or kustomize over its own files). */
export function upstreamOrigin(repo: Repo, r: Resource): string | undefined {
  const from = r.rendered;
  if (!from) return undefined;
  if (from.source.startsWith('chart ') && !from.source.startsWith('chart at ')) return `${from.source}, an upstream chart`;
  const dir = /^kustomize (.+)$/.exec(from.source)?.[1];
  if (dir === undefined) return undefined;
  const remote = kustomizeInputs(checkoutView(repo), dir).remote;
  return remote.length > 0 ? `the remote base ${remote.join(', ')}` : undefined;
}
