/**
 * What a sync leaves in the cluster (P1): an object the repository writes is applied by every sync and stays,
 * unless a hook annotation says otherwise (model/controller/hooks.ts reads it as gitops-engine does). A chart's own Helm
 * hooks (its tests, its webhook set-up jobs) are the chart's design and are not judged here.
 */
import { syncLifecycle, type SyncLifecycle } from '../../model/controller/hooks.ts';
import { HOOK_ANNOTATION } from '../../model/controller/waves.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import type { Resource } from '../../model/core/manifest.ts';

/** Kinds whose work is done once they have run: a hook of one of them may run only now and then, and go. */
const RUNS_TO_COMPLETION = new Set(['Job', 'Pod']);

/** Why Argo CD leaves the object out of the cluster after a sync, or undefined when it stays. */
function missing(r: Resource, life: SyncLifecycle): string | undefined {
  const types = life.unknown.length ? ` (${life.unknown.join(', ')} ${life.unknown.length === 1 ? 'is no hook type' : 'are no hook types'} Argo CD knows)` : '';
  if (life.phases.length === 0) {
    if (life.types.includes('Skip')) return 'Argo CD never applies it (hook: Skip)';
    if (RUNS_TO_COMPLETION.has(r.kind) && (life.deleteHook || life.types.includes('SyncFail'))) return undefined;
    if (life.deleteHook) return `Argo CD applies it only when its Application is deleted${types}`;
    if (life.types.includes('SyncFail')) return `Argo CD applies it only when a sync fails${types}`;
    return `Argo CD takes it for a hook of no sync phase and never applies it${types}`;
  }
  if (life.deletedOnSuccess && !RUNS_TO_COMPLETION.has(r.kind)) return 'Argo CD deletes it as soon as its hook phase succeeds (HookSucceeded)';
  return undefined;
}

export const argocdHooksCheck: PolicyCheck = {
  id: 'argocd-hooks',
  description:
    'Every object the repository writes is in the cluster once a sync is done: no hook annotation leaves it out of every sync (Skip, a hook type Argo CD does not know, or one that runs only when a sync fails or the Application is deleted), and none has it deleted when its hook succeeds, but for a Job or a Pod, whose work is done by then (invariants P1).',
  invariants: ['P1'],
  remediation: 'drop the hook annotation, or make the hook a Job that does its work and goes; an object applied by hand takes an exemption that says why',
  reads: { kinds: ['*'], everyKind: 'a hook annotation on an object of any kind changes what a sync applies' },
  exemptible: true,
  run(ctx) {
    for (const r of ctx.resources) {
      const life = syncLifecycle(r.object);
      if (!life.annotation) continue;
      // A chart's Helm hooks are the chart's own lifecycle; an Argo CD hook annotation is judged wherever it is written.
      if (r.rendered?.source.startsWith('chart ') && life.annotation !== HOOK_ANNOTATION) continue;
      const why = missing(r, life);
      if (!why) continue;
      const annotation = life.phases.length > 0 ? (life.deletePolicyAnnotation ?? life.annotation) : life.annotation;
      ctx.fail({ resource: r, path: ['metadata', 'annotations', annotation] }, `${r.kind} ${r.name}: ${why}, while the gate judges it as running`);
    }
  },
};
