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
import { annotationCsv } from '../argocd/argocd.ts';
import { HELM_HOOK_ANNOTATION, HELM_HOOK_PHASES, HOOK_ANNOTATION, SYNC_PHASES, type SyncPhase } from './waves.ts';
import { dig } from '../core/dig.ts';

export const HOOK_DELETE_POLICY_ANNOTATION = 'argocd.argoproj.io/hook-delete-policy';
const HELM_DELETE_POLICY_ANNOTATION = 'helm.sh/hook-delete-policy';

/** common.NewHookType's types, and the controller's delete hooks. */
const HOOK_TYPES: readonly string[] = [...SYNC_PHASES, 'Skip', 'PreDelete', 'PostDelete'];
const DELETE_POLICIES = ['BeforeHookCreation', 'HookSucceeded', 'HookFailed'];
/** helm.DeletePolicy.DeletePolicy: Helm's delete policies as Argo CD's. */
export const HELM_DELETE_POLICIES: Readonly<Record<string, string>> = {
  'before-hook-creation': 'BeforeHookCreation',
  'hook-succeeded': 'HookSucceeded',
  'hook-failed': 'HookFailed',
};
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

/** helm.Types: the Helm hook types it names that Argo CD runs in a sync (pre- and post-install and -upgrade). */
export function helmHookTypes(object: unknown): string[] {
  return annotationCsv(object, HELM_HOOK_ANNOTATION).filter((t) => HELM_HOOK_PHASES[t] !== undefined);
}

/** hook.Types: Argo CD's hook types it names, else Helm's as Argo CD's, one by one (pre-install and pre-upgrade are PreSync twice). */
export function hookTypes(object: unknown): string[] {
  const argo = annotationCsv(object, HOOK_ANNOTATION).filter((t) => HOOK_TYPES.includes(t) && !DELETE_HOOKS.has(t));
  return argo.length > 0 ? argo : helmHookTypes(object).map((t) => HELM_HOOK_PHASES[t]!);
}

/** Skip as the only type: what Skip asks. */
const skipsBy = (types: readonly string[]) => types.length === 1 && types[0] === 'Skip';

/** hook.Skip: Skip is its only type. */
export const isSkipped = (object: unknown): boolean => skipsBy(hookTypes(object));

/** hook.IsHook: an Argo CD hook annotation that is not Skip alone, else a Helm hook annotation but crd-install. */
export function isSyncHook(object: unknown, types: readonly string[] = hookTypes(object)): boolean {
  if (dig(object, ['metadata', 'annotations', HOOK_ANNOTATION]) !== undefined) return !skipsBy(types);
  const helm = dig(object, ['metadata', 'annotations', HELM_HOOK_ANNOTATION]);
  return typeof helm === 'string' && helm !== 'crd-install';
}

/** A hook, or an object Skip keeps out of every sync: applied by no sync as a resource, nor waited on as one. */
export const isHookOrSkipped = (object: unknown): boolean => isSyncHook(object) || isSkipped(object);

/** helm.DeletePolicies: the Helm delete policies it names that Argo CD knows. */
export function helmDeletePolicies(object: unknown): string[] {
  return annotationCsv(object, HELM_DELETE_POLICY_ANNOTATION).filter((p) => HELM_DELETE_POLICIES[p] !== undefined);
}

/** hook.DeletePolicies: Argo CD's delete policies it names, then Helm's as Argo CD's, BeforeHookCreation when none. */
export function deletePolicies(object: unknown): string[] {
  const policies = [
    ...annotationCsv(object, HOOK_DELETE_POLICY_ANNOTATION).filter((p) => DELETE_POLICIES.includes(p)),
    ...helmDeletePolicies(object).map((p) => HELM_DELETE_POLICIES[p]!),
  ];
  return policies.length > 0 ? policies : ['BeforeHookCreation'];
}

/** An object's place in Argo CD's syncs: which phases apply it, and whether it stays. */
export function syncLifecycle(object: unknown): SyncLifecycle {
  const argoAnnotated = dig(object, ['metadata', 'annotations', HOOK_ANNOTATION]) !== undefined;
  // Most objects: no hook annotation, applied in Sync and kept.
  if (!argoAnnotated && dig(object, ['metadata', 'annotations', HELM_HOOK_ANNOTATION]) === undefined)
    return { hook: false, phases: ['Sync'], types: [], unknown: [], deleteHook: false, deletedOnSuccess: false };
  const argo = annotationCsv(object, HOOK_ANNOTATION);
  const types = hookTypes(object);
  const deleteHook = [...argo, ...annotationCsv(object, HELM_HOOK_ANNOTATION)].some((t) => DELETE_HOOKS.has(t));
  const hook = isSyncHook(object, types) || deleteHook;
  const phases = skipsBy(types) ? [] : hook ? SYNC_PHASES.filter((p) => types.includes(p)) : (['Sync'] as SyncPhase[]);
  const succeeded = hook && deletePolicies(object).includes('HookSucceeded');
  const policyAnnotation = annotationCsv(object, HOOK_DELETE_POLICY_ANNOTATION).includes('HookSucceeded')
    ? HOOK_DELETE_POLICY_ANNOTATION
    : HELM_DELETE_POLICY_ANNOTATION;
  return {
    hook,
    phases,
    ...(argoAnnotated ? { annotation: HOOK_ANNOTATION } : hook ? { annotation: HELM_HOOK_ANNOTATION } : {}),
    types,
    unknown: argo.filter((t) => !HOOK_TYPES.includes(t)),
    deleteHook,
    deletedOnSuccess: succeeded,
    ...(succeeded ? { deletePolicyAnnotation: policyAnnotation } : {}),
  };
}
