/**
 * argocd-autoscaled-replicas: Argo CD and a HorizontalPodAutoscaler must not both own a workload's replicas. A
 * manifest that declares spec.replicas makes every scale the autoscaler makes a difference in Argo CD's comparison:
 * the app goes OutOfSync, and each sync (at once, under selfHeal) sets the count back to the manifest's, so the two
 * fight, and a sync under load scales the workload down. Argo CD's answer (docs: "Leaving room for imperativeness")
 * is to leave spec.replicas out, or to ignore /spec/replicas in the Application's ignoreDifferences with
 * RespectIgnoreDifferences=true, so the sync sends the cluster's count (controller/sync.go, normalizeTargetResources);
 * ignored without it, the app stays Synced but every sync still sends the manifest's count.
 */
import { owningApplication, namespaceOrDestination, syncOptions } from '../../model/argocd/argocd.ts';
import { ignoredFields } from '../../model/compare/ignore-differences.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { argocdSettings } from '../../model/controller/resource-filter.ts';
import { dig } from '../../model/core/dig.ts';
import { scaleTargetOf } from '../../model/core/workloads.ts';

/** Whether a JSON pointer Argo CD ignores covers spec.replicas (the field itself, or spec, or the whole object). */
const coversReplicas = (pointer: string) => ['', '/spec', '/spec/replicas'].includes(pointer.replace(/\/$/, ''));

export const argocdAutoscaledReplicasCheck: PolicyCheck = {
  id: 'argocd-autoscaled-replicas',
  description:
    "A workload a HorizontalPodAutoscaler scales leaves its replicas to the autoscaler: its manifest declares no spec.replicas, or its Application ignores /spec/replicas (ignoreDifferences) and sends the cluster's count (RespectIgnoreDifferences=true); otherwise every scale makes the app OutOfSync and each sync sets the count back to the manifest's, so Argo CD and the autoscaler fight (invariants P1).",
  invariants: ['P1'],
  remediation:
    "leave spec.replicas out of the workload's manifest (the autoscaler owns it), or add an ignoreDifferences entry for /spec/replicas to its Application with RespectIgnoreDifferences=true in its syncOptions",
  reads: {
    kinds: ['HorizontalPodAutoscaler', 'Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController', 'Application', 'ConfigMap'],
    renders: true,
  },
  exemptible: true,
  run(ctx) {
    const autoscalers = ctx.resources.filter((x) => x.kind === 'HorizontalPodAutoscaler');
    if (!autoscalers.length) return;
    const argocdCm = argocdSettings(ctx.resources, ctx.repo)?.data;
    for (const hpa of autoscalers) {
      const ref = scaleTargetOf(hpa.object);
      const namespace = namespaceOrDestination(ctx.repo, hpa);
      const target = ref && ctx.resources.find((t) => t.kind === ref.kind && t.name === ref.name && namespaceOrDestination(ctx.repo, t) === namespace);
      const replicas = target && dig(target.object, ['spec', 'replicas']);
      const app = target && owningApplication(ctx.repo, target);
      if (!target || replicas === undefined || !app) continue;
      const ignored = ignoredFields(target.object, app.resource.object.spec, argocdCm);
      const covered = ignored.pointers.some(coversReplicas);
      const respected = syncOptions(app).includes('RespectIgnoreDifferences=true');
      const where = { resource: target, path: ['spec', 'replicas'] };
      const scaled = `${target.kind} ${target.name} declares spec.replicas: ${JSON.stringify(replicas)}, and HorizontalPodAutoscaler ${hpa.name} scales it`;
      if (!covered && ignored.unread.length)
        ctx.notJudged(
          where,
          `${scaled}; Application ${app.name} ignores ${ignored.unread.join(', ')} of it, which the gate does not read: it may be spec.replicas`,
        );
      else if (!covered)
        ctx.fail(
          where,
          `${scaled}: each scale makes Application ${app.name} OutOfSync, and each sync sets the count back to ${JSON.stringify(replicas)}, so Argo CD and the autoscaler fight`,
        );
      else if (!respected)
        ctx.fail(
          where,
          `${scaled}: Application ${app.name} ignores /spec/replicas, so it stays Synced, but without RespectIgnoreDifferences=true each sync still sends ${JSON.stringify(replicas)} and scales the workload back for a moment`,
        );
    }
  },
};
