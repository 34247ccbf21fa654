/**
 * argocd-annotation-keys: every annotation and label key in Argo CD's domain is one Argo CD reads, and no key's domain
 * is a slip of Argo CD's. Argo CD reads its keys by their exact text and ignores any other without a word: a
 * misspelt `argocd.argoproj.io/sync-wave` syncs the object in wave 0, a misspelt sync-options key drops every option
 * it held, a misspelt hook key applies a hook's Job as an ordinary object at every sync. The keys are those Argo CD
 * v3.5.1 reads or writes (common/common.go, gitops-engine's sync/common and sync/hook, the controller's and the
 * ApplicationSet controller's, read from its source): annotations on the objects it syncs and on Applications, labels
 * on its own Secrets (a cluster's, a repository's) and the tracking label.
 */
import { distance } from 'fastest-levenshtein';
import { nearestName } from '../../model/core/did-you-mean.ts';
import { dig } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

const DOMAIN = 'argocd.argoproj.io';

/** The annotations of Argo CD's domain it reads or writes, on an object it syncs or on an Application or ApplicationSet. */
const ANNOTATIONS: ReadonlySet<string> = new Set(
  [
    'sync-wave sync-options compare-options hook hook-delete-policy hook-finalizer tracking-id installation-id',
    'client-side-apply-migration-manager ignore-healthcheck ignore-default-links ignore-resource-updates',
    'manifest-generate-paths skip-reconcile refresh hydrate managed-by-url deletion-approved application-set-refresh',
  ]
    .join(' ')
    .split(' '),
);

/** The labels of Argo CD's domain it reads: its Secrets' type, a cluster's version and info, and a tracking label. */
const LABELS: ReadonlySet<string> = new Set(['secret-type', 'kubernetes-version', 'auto-label-cluster-info', 'instance']);

type Place = 'annotation' | 'label';
const KNOWN: Record<Place, ReadonlySet<string>> = { annotation: ANNOTATIONS, label: LABELS };
const OTHER: Record<Place, Place> = { annotation: 'label', label: 'annotation' };

/** ` (did you mean "argocd.argoproj.io/<name>"?)` for the name of its place nearest `name` (the domain aside), or nothing. */
function meant(name: string, place: Place): string {
  if (KNOWN[place].has(name)) return ` (did you mean "${DOMAIN}/${name}"?)`;
  const near = nearestName(name, KNOWN[place]);
  return near === undefined ? '' : ` (did you mean "${DOMAIN}/${near}"?)`;
}

/** Why Argo CD ignores a key, where it does: a key of its domain it does not read there, or a domain one slip from its own. */
function ignoredBecause(key: string, place: Place): string | undefined {
  const slash = key.indexOf('/');
  if (slash === -1) return undefined;
  const [domain, name] = [key.slice(0, slash), key.slice(slash + 1)];
  if (domain === DOMAIN) {
    if (KNOWN[place].has(name)) return undefined;
    if (KNOWN[OTHER[place]].has(name)) return `${place} ${JSON.stringify(key)} is one Argo CD reads as an ${OTHER[place]}, never as a ${place}`;
    return `${place} ${JSON.stringify(key)} is no ${place} Argo CD reads${meant(name, place)}`;
  }
  const edits = distance(domain.toLowerCase(), DOMAIN);
  if (edits === 0 || edits > 2) return undefined;
  return `${place} ${JSON.stringify(key)} is in no domain Argo CD reads, ${edits} edit(s) from ${DOMAIN}${meant(name, place)}`;
}

export const argocdAnnotationKeysCheck: PolicyCheck = {
  id: 'argocd-annotation-keys',
  description:
    "Every annotation and label key in Argo CD's domain (argocd.argoproj.io/) is one Argo CD v3.5.1 reads (sync-wave, sync-options, compare-options, hook, hook-delete-policy, ...; a label: secret-type and the cluster's), and no key's domain is one or two edits from it: Argo CD reads its keys by their exact text and ignores any other without a word, so the object syncs in wave 0, with none of its options, or a hook as an ordinary object (invariants P1).",
  invariants: ['P1'],
  remediation: 'spell the key as Argo CD does (argocd.argoproj.io/sync-wave, argocd.argoproj.io/sync-options, argocd.argoproj.io/hook), or remove it',
  reads: { kinds: ['*'], everyKind: 'Argo CD reads its annotations on every object it syncs, whatever its kind' },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources)
      for (const [field, place] of [
        ['annotations', 'annotation'],
        ['labels', 'label'],
      ] as const) {
        const keys = dig(r.object, ['metadata', field]);
        if (keys === null || typeof keys !== 'object' || Array.isArray(keys)) continue;
        for (const key of Object.keys(keys)) {
          const problem = ignoredBecause(key, place);
          if (problem) ctx.fail({ resource: r, path: ['metadata', field, key] }, `${r.kind} ${r.name}: ${problem}; Argo CD ignores it without a word`);
        }
      }
  },
};
