/**
 * How Argo CD's sync writes an object the cluster already holds (argo-cd v3.5.1, gitops-engine's
 * sync_context.go applyObject and resource_ops.go), and so what an update the API server refuses does:
 * - a hook is deleted and created again at each sync (BeforeHookCreation), and an object Skip keeps out of every
 *   sync is never applied: neither is ever updated;
 * - Replace=true (the Application's syncOptions, or the object's sync-options, target or live) sends the whole
 *   object with `kubectl replace` (a CRD or Namespace with an update); with Force=true as well, `kubectl replace
 *   --force` deletes and creates it;
 * - otherwise `kubectl apply`, server-side where ServerSideApply=true (and not ServerSideApply=false on the object);
 *   Force=true on the object (target or live) makes a client-side apply that the API server refuses as invalid or
 *   conflicting delete the object and create it again; a server-side apply's force only takes over fields;
 * - Force=true in an Application's syncOptions is not read by an automated sync (only a manual sync's --force).
 */
import { annotationSyncOptions, syncOptionValue } from '../argocd/argocd.ts';
import { isHookOrSkipped } from './hooks.ts';
import { dig } from '../core/dig.ts';

export interface SyncMethod {
  hook: boolean;
  replace: boolean;
  serverSide: boolean;
  force: boolean;
}

/** How a sync writes `target` over `live` (the object as the cluster holds it), under its Application's syncOptions. */
export function syncMethodOf(target: unknown, live: unknown, appOptions: readonly string[]): SyncMethod {
  const [mine, held] = [annotationSyncOptions(target), annotationSyncOptions(live)];
  const has = (option: string) => mine.includes(option) || held.includes(option);
  return {
    hook: isHookOrSkipped(target),
    replace: appOptions.includes('Replace=true') || has('Replace=true'),
    serverSide: !mine.includes('ServerSideApply=false') && (appOptions.includes('ServerSideApply=true') || mine.includes('ServerSideApply=true')),
    force: has('Force=true'),
  };
}

/**
 * What a sync does with an update of a `kind` the API server refuses: fails, or deletes the object and creates it
 * anew. Replace=true updates a CRD or a Namespace in place instead (a replace would delete what they hold).
 */
export function onRefusedUpdate(m: SyncMethod, kind: string): 'fails' | 'recreates' | 'never updated' {
  if (m.hook) return 'never updated';
  if (m.replace) return m.force && kind !== 'CustomResourceDefinition' && kind !== 'Namespace' ? 'recreates' : 'fails';
  return m.force && !m.serverSide ? 'recreates' : 'fails';
}

/** The command the sync runs, in kubectl's words, for a message. */
export function syncCommand(m: SyncMethod): string {
  if (m.replace) return m.force ? 'kubectl replace --force' : 'kubectl replace';
  if (m.serverSide) return 'server-side apply';
  return m.force ? 'kubectl apply --force' : 'kubectl apply';
}

/**
 * What a sync does with an object the repository no longer declares (`live`, as the cluster holds it): gitops-engine
 * makes no task for a hook or a Skipped object (getSyncTasks), holds the whole sync pending until a person confirms a
 * prune under `Prune=confirm` (objRequiresPruneConfirmation), and otherwise deletes it only where the automated sync
 * prunes and neither the object nor the Application says `Prune=false` (pruneObject: "ignored (requires pruning)",
 * "ignored (no prune)"). The object's option is read before the Application's, each the first `Prune=` value.
 */
export type PruneOutcome = 'deleted' | 'requires pruning' | 'no prune' | 'waits for confirmation' | 'never pruned';

export function pruneOutcome(live: unknown, appOptions: readonly string[], autoPrune: boolean): PruneOutcome {
  if (isHookOrSkipped(live)) return 'never pruned';
  const value = syncOptionValue(annotationSyncOptions(live), 'Prune') ?? syncOptionValue(appOptions, 'Prune');
  if (value === 'confirm') return 'waits for confirmation';
  if (!autoPrune) return 'requires pruning';
  return value === 'false' ? 'no prune' : 'deleted';
}

/** The finalizers that make deleting an Application delete what it manages (isPropagationPolicyFinalizer). */
export const CASCADE_FINALIZERS = [
  'resources-finalizer.argocd.argoproj.io',
  'resources-finalizer.argocd.argoproj.io/foreground',
  'resources-finalizer.argocd.argoproj.io/background',
];

/** Whether deleting the Application deletes what it manages: one of its finalizers is a propagation policy's (CascadedDeletion). */
export function cascadesDeletion(app: { resource: { object: unknown } }): boolean {
  const finalizers = dig(app.resource.object, ['metadata', 'finalizers']);
  return Array.isArray(finalizers) && finalizers.some((f) => typeof f === 'string' && CASCADE_FINALIZERS.includes(f));
}

/**
 * What becomes of an object when its whole Application is deleted (the app controller's finalizer, CascadedDeletion):
 * a propagation policy's finalizer deletes what the Application manages, but what `deletedWithApplication` spares;
 * without one, the Application goes alone and what it ran is left, orphaned. The app's own prune setting plays no part.
 */
export function onApplicationDeletion(
  object: unknown,
  app: { object: unknown; name: string; syncOptions: readonly string[] },
  self: { kind: string; name: string },
): 'deleted with its app' | 'kept on deletion' | 'orphaned' {
  if (!cascadesDeletion({ resource: { object: app.object } })) return 'orphaned';
  return deletedWithApplication(object, app.syncOptions, { ...self, app: app.name }) ? 'deleted with its app' : 'kept on deletion';
}

/**
 * Whether the app controller deletes this object of an Application whose deletion cascades (shouldBeDeleted): not a
 * CRD, not `Delete=false` (the object's sync-options first, then the Application's), not kept by Helm's
 * `helm.sh/resource-policy: keep`, and not the Application itself.
 */
export function deletedWithApplication(object: unknown, appOptions: readonly string[], self: { kind: string; name: string; app: string }): boolean {
  if (self.kind === 'CustomResourceDefinition' || (self.kind === 'Application' && self.name === self.app)) return false;
  const option = syncOptionValue(annotationSyncOptions(object), 'Delete') ?? syncOptionValue(appOptions, 'Delete');
  return option !== 'false' && dig(object, ['metadata', 'annotations', 'helm.sh/resource-policy']) !== 'keep';
}
