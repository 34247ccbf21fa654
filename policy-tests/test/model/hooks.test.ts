/**
 * Which syncs apply an object, as gitops-engine's hook package decides at Argo CD v3.5.1 (model/controller/hooks.ts):
 * the cases its own hook tests assert (no hook, each type, Skip alone and beside others, garbage, two types, Helm's
 * hooks and crd-install), the controller's delete hooks, and the delete policies.
 */
import { describe, expect, it } from 'vitest';
import { syncLifecycle } from '../../model/controller/hooks.ts';

const object = (annotations: Record<string, string>) => ({ metadata: { name: 'x', annotations } });
const life = (annotations: Record<string, string>) => {
  const l = syncLifecycle(object(annotations));
  return { hook: l.hook, phases: l.phases };
};

describe("an object's place in Argo CD's syncs", () => {
  it('is no hook, applied in Sync, without a hook annotation', () => {
    expect(life({})).toEqual({ hook: false, phases: ['Sync'] });
    expect(syncLifecycle({}).annotation).toBeUndefined();
  });

  it('is a hook of each type it names, each once', () => {
    for (const phase of ['PreSync', 'Sync', 'PostSync', 'SyncFail'] as const)
      expect(life({ 'argocd.argoproj.io/hook': phase })).toEqual({ hook: true, phases: [phase] });
    expect(life({ 'argocd.argoproj.io/hook': 'PostSync, PreSync' })).toEqual({ hook: true, phases: ['PreSync', 'PostSync'] });
    expect(life({ 'argocd.argoproj.io/hook': 'Sync,Sync' })).toEqual({ hook: true, phases: ['Sync'] });
  });

  it('is applied in no sync when Skip stands alone, and a hook of its other types beside them', () => {
    expect(life({ 'argocd.argoproj.io/hook': 'Skip' })).toEqual({ hook: false, phases: [] });
    expect(life({ 'argocd.argoproj.io/hook': 'Skip,PreSync,PostSync' })).toEqual({ hook: true, phases: ['PreSync', 'PostSync'] });
  });

  it('takes a type it does not know for a hook of no phase, and says which', () => {
    const garbage = syncLifecycle(object({ 'argocd.argoproj.io/hook': 'presync' }));
    expect([garbage.hook, garbage.phases, garbage.unknown]).toEqual([true, [], ['presync']]);
    expect(life({ 'argocd.argoproj.io/hook': 'Sync,Garbage' })).toEqual({ hook: true, phases: ['Sync'] });
  });

  it("reads Helm's hooks only without Argo CD's, and crd-install as no hook", () => {
    expect(life({ 'helm.sh/hook': 'pre-install,post-upgrade' })).toEqual({ hook: true, phases: ['PreSync', 'PostSync'] });
    expect(life({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'PostSync' })).toEqual({ hook: true, phases: ['PostSync'] });
    // An Argo CD annotation with no type it knows leaves the types to Helm's.
    expect(life({ 'helm.sh/hook': 'pre-install', 'argocd.argoproj.io/hook': 'Garbage' })).toEqual({ hook: true, phases: ['PreSync'] });
    expect(life({ 'helm.sh/hook': 'crd-install' })).toEqual({ hook: false, phases: ['Sync'] });
    expect(life({ 'helm.sh/hook': 'test' })).toEqual({ hook: true, phases: [] });
  });

  it("knows the controller's delete hooks: applied only when the Application is deleted", () => {
    for (const annotations of [{ 'argocd.argoproj.io/hook': 'PostDelete' }, { 'helm.sh/hook': 'pre-delete' }] as Record<string, string>[]) {
      const l = syncLifecycle(object(annotations));
      expect([l.hook, l.phases, l.deleteHook, l.unknown]).toEqual([true, [], true, []]);
    }
  });

  it('deletes a hook once it succeeds when either delete policy says so, and keeps it by default', () => {
    expect(syncLifecycle(object({ 'argocd.argoproj.io/hook': 'PreSync' })).deletedOnSuccess).toBe(false);
    const argo = syncLifecycle(object({ 'argocd.argoproj.io/hook': 'PreSync', 'argocd.argoproj.io/hook-delete-policy': 'BeforeHookCreation, HookSucceeded' }));
    expect([argo.deletedOnSuccess, argo.deletePolicyAnnotation]).toEqual([true, 'argocd.argoproj.io/hook-delete-policy']);
    const helm = syncLifecycle(object({ 'helm.sh/hook': 'post-install', 'helm.sh/hook-delete-policy': 'hook-succeeded' }));
    expect([helm.deletedOnSuccess, helm.deletePolicyAnnotation]).toEqual([true, 'helm.sh/hook-delete-policy']);
    // A delete policy on an object that is no hook deletes nothing.
    expect(syncLifecycle(object({ 'argocd.argoproj.io/hook-delete-policy': 'HookSucceeded' })).deletedOnSuccess).toBe(false);
  });
});
