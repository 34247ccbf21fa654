/**
 * Which syncs apply an object, and whether it stays afterwards, as gitops-engine decides at Argo CD v3.5.1:
 * hook/hook.go (IsHook, Skip, Types: an Argo CD hook annotation is read first, Helm's only without one, and
 * `helm.sh/hook: crd-install` is no hook), hook/helm/type.go and delete_policy.go (Helm's pre-install and
 * pre-upgrade are PreSync, post-install and post-upgrade PostSync; its delete policies map to Argo CD's),
 * hook/delete_policy.go (BeforeHookCreation when none is given) and sync_phase.go (syncPhases: a skipped object is
 * in no phase, a hook in the sync phases of its types, anything else in Sync); and the controller's delete hooks
 * (controller/hook.go: PreDelete and PostDelete, or Helm's pre-delete and post-delete, applied only when the
 * Application is deleted).
 */
import { annotationCsv } from './argocd.ts';
import { HELM_HOOK_ANNOTATION, HELM_HOOK_PHASES, HOOK_ANNOTATION, SYNC_PHASES, type SyncPhase } from './waves.ts';
import { dig } from '../core/dig.ts';

export const HOOK_DELETE_POLICY_ANNOTATION = 'argocd.argoproj.io/hook-delete-policy';
const HELM_DELETE_POLICY_ANNOTATION = 'helm.sh/hook-delete-policy';

/** common.NewHookType's types, and the controller's delete hooks. */
const HOOK_TYPES: readonly string[] = [...SYNC_PHASES, 'Skip', 'PreDelete', 'PostDelete'];
/** The controller's delete hooks, Argo CD's and Helm's names. */
const DELETE_HOOKS = new Set(['PreDelete', 'PostDelete', 'pre-delete', 'post-delete']);

export interface SyncLifecycle {
  /** Whether Argo CD treats it as a hook: applied in its phases on every sync, never pruned, never self-healed. */
  hook: boolean;
  /** The sync phases that apply it; none for an object Argo CD never applies in a sync. */
  phases: SyncPhase[];
  /** The annotation that decides it (Argo CD's hook annotation, or Helm's), where one does. */
  annotation?: string;
  /** Argo CD's hook types it names (Skip among them), and the values it names that are no type Argo CD knows. */
  types: string[];
  unknown: string[];
  /** Whether it is a delete hook (PreDelete, PostDelete): applied only when its Application is deleted. */
  deleteHook: boolean;
  /** Whether Argo CD deletes it once its phase succeeds (HookSucceeded), and the annotation that says so. */
  deletedOnSuccess: boolean;
  deletePolicyAnnotation?: string;
}

/** An object's place in Argo CD's syncs: which phases apply it, and whether it stays. */
export function syncLifecycle(object: unknown): SyncLifecycle {
  const argo = annotationCsv(object, HOOK_ANNOTATION);
  const helmValue = dig(object, ['metadata', 'annotations', HELM_HOOK_ANNOTATION]);
  const argoTypes = argo.filter((t) => HOOK_TYPES.includes(t) && !DELETE_HOOKS.has(t));
  const helmTypes = annotationCsv(object, HELM_HOOK_ANNOTATION).flatMap((t) => (HELM_HOOK_PHASES[t] ? [HELM_HOOK_PHASES[t]] : []));
  const types = argoTypes.length > 0 ? argoTypes : helmTypes;
  const skipped = types.includes('Skip') && types.length === 1;
  const argoAnnotated = dig(object, ['metadata', 'annotations', HOOK_ANNOTATION]) !== undefined;
  const deleteHook = [...argo, ...annotationCsv(object, HELM_HOOK_ANNOTATION)].some((t) => DELETE_HOOKS.has(t));
  const hook = (argoAnnotated ? !skipped : typeof helmValue === 'string' && helmValue !== 'crd-install') || deleteHook;
  const phases = skipped ? [] : hook ? SYNC_PHASES.filter((p) => types.includes(p)) : (['Sync'] as SyncPhase[]);
  const succeeded = [
    annotationCsv(object, HOOK_DELETE_POLICY_ANNOTATION).includes('HookSucceeded') ? HOOK_DELETE_POLICY_ANNOTATION : undefined,
    annotationCsv(object, HELM_DELETE_POLICY_ANNOTATION).includes('hook-succeeded') ? HELM_DELETE_POLICY_ANNOTATION : undefined,
  ].find(Boolean);
  return {
    hook,
    phases,
    ...(argoAnnotated ? { annotation: HOOK_ANNOTATION } : hook ? { annotation: HELM_HOOK_ANNOTATION } : {}),
    types,
    unknown: argo.filter((t) => !HOOK_TYPES.includes(t)),
    deleteHook,
    deletedOnSuccess: hook && succeeded !== undefined,
    ...(hook && succeeded ? { deletePolicyAnnotation: succeeded } : {}),
  };
}
