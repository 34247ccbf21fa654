/**
 * workload-disruption-budget: every PodDisruptionBudget lets a pod go. A drain (kubectl drain, a Talos upgrade's or
 * reboot's drain) evicts pods through the eviction API, which refuses while the budget allows no disruption ("Cannot
 * evict pod as it would violate the pod's disruption budget"); a budget that allows none with every pod healthy
 * blocks every drain of a node its pods run on. Kubernetes v1.36's disruption controller (getExpectedPodCount,
 * getExpectedScale): minAvailable as a number against the pods there are; a percentage, or maxUnavailable, against
 * the scale of the pods' controllers (rounded up), which it finds only for a Deployment's ReplicaSet, a StatefulSet, a
 * ReplicationController or a custom resource with a scale subresource: a DaemonSet's or a Job's pods make it fail
 * safe, allowing none. And the eviction API refuses a pod two budgets select ("This pod has more than one
 * PodDisruptionBudget, which the eviction subresource does not support").
 */
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { dig } from '../../model/core/dig.ts';
import { autoscaledWorkloads, templatesWithPorts, type Template } from '../../model/cluster/pod-templates.ts';
import { oneSlipApart } from '../../model/core/did-you-mean.ts';
import { scaledIntOrPercent, scaledKey, WORKLOAD_KINDS } from '../../model/core/workloads.ts';

type Obj = Record<string, unknown>;

/** Kinds whose scale the disruption controller finds. */
const SCALED = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController']);

/** The pods one budget selects: each workload in its namespace whose pod template's labels its selector matches. */
function selected(budget: Resource, workloads: readonly Template[], namespace: string): Template[] {
  const selector = dig(budget.object, ['spec', 'selector']);
  // policy/v1: a null selector selects no pod, an empty one every pod of the namespace.
  if (selector === undefined || selector === null || typeof selector !== 'object') return [];
  return workloads.filter((w) => w.namespace === namespace && selectorMatches(selector as Obj, w.labels));
}

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  unscaled:
    'count the budget in pods (minAvailable or maxUnavailable as a number), or select only pods of a workload with a scale (a Deployment, StatefulSet or ReplicaSet)',
  blocking:
    'lower minAvailable below the replicas (or raise the replicas), use maxUnavailable: 1, or leave a single-replica or DaemonSet workload without a budget',
  twice: 'give each pod one budget: narrow one selector, or drop one budget',
  none: "give the budget the selector of its workload's pod labels (spec.selector.matchLabels)",
  uncounted: 'give the budget minAvailable or maxUnavailable (maxUnavailable: 1 lets a drain take one pod at a time)',
} as const;

/**
 * The pod template of the namespace a selector misses by one matchLabels entry alone, its value or its key a
 * keystroke off the template's label: what the selector was written for (`app.kubernetes.io/name: porftolio-api`).
 */
function slippedTemplate(selector: Obj, templates: readonly Template[]): { template: Template; entry: string; meant: string } | undefined {
  const wanted = Object.entries((selector.matchLabels ?? {}) as Obj);
  for (const template of templates) {
    const missed = wanted.filter(([k, v]) => template.labels[k] !== v);
    if (missed.length !== 1) continue;
    const [key, value] = missed[0]!;
    const own = template.labels[key];
    const meant =
      typeof own === 'string' && typeof value === 'string' && oneSlipApart(value, own)
        ? ([key, own] as const)
        : Object.entries(template.labels).find(([k, v]) => v === value && oneSlipApart(key, k));
    if (!meant) continue;
    const mended = { ...selector, matchLabels: { ...Object.fromEntries(wanted.filter(([k]) => k !== key)), [meant[0]]: meant[1] } };
    if (selectorMatches(mended, template.labels)) return { template, entry: `${key}: ${String(value)}`, meant: `${meant[0]}: ${String(meant[1])}` };
  }
  return undefined;
}

/**
 * A budget that selects no pod guards nothing: a drain takes every pod it was written to keep. policy/v1 reads a
 * budget without a selector as selecting none. One whose selector matches no pod template of the repository may still
 * select pods an operator makes from a custom resource (an Alertmanager's, a Ceph daemon's): not judged, unless it
 * misses a template of its namespace by one label a keystroke off, which is the template it was written for.
 */
function guardsNothing(ctx: CheckContext, budget: Resource, templates: readonly Template[]): void {
  const selector = dig(budget.object, ['spec', 'selector']);
  const slipped = selector && typeof selector === 'object' ? slippedTemplate(selector as Obj, templates) : undefined;
  if (selector === undefined || selector === null)
    ctx.fail(
      { resource: budget, path: ['spec'] },
      `PodDisruptionBudget ${budget.name} has no selector, which policy/v1 reads as selecting no pod: it guards nothing, and a node drain may take every pod it was written to keep`,
      FIX.none,
    );
  else if (slipped)
    ctx.fail(
      { resource: budget, path: ['spec', 'selector', 'matchLabels'] },
      `PodDisruptionBudget ${budget.name} selects no pod: its ${slipped.entry} is one keystroke from ${slipped.meant}, the label of ${slipped.template.resource.kind} ${slipped.template.resource.name}'s pods, so it guards nothing, and a node drain may take every pod it was written to keep`,
      FIX.none,
    );
  else
    ctx.notJudged(
      { resource: budget, path: ['spec', 'selector'] },
      `PodDisruptionBudget ${budget.name} selects no pod template of the repository: whether it guards pods an operator makes is not judged`,
    );
}

export const disruptionBudgetCheck: PolicyCheck = {
  id: 'workload-disruption-budget',
  description:
    "Every PodDisruptionBudget selects pods (policy/v1 reads one without a selector as selecting none; one that misses the pod template of its namespace by one label a keystroke off guards none of them), counts them by minAvailable or maxUnavailable (with neither, the disruption controller keeps none), and allows a disruption with its pods healthy, as the disruption controller counts it (minAvailable below the pods there are, maxUnavailable or a percentage against the scale of a Deployment, StatefulSet or ReplicaSet, never a DaemonSet's or a Job's pods), and no pod is selected by two: otherwise the eviction API refuses every eviction of those pods, and a node drain (kubectl drain, a Talos upgrade or reboot) waits on them (invariants P1).",
  invariants: ['P1'],
  remediation: Object.values(FIX).join('; '),
  reads: { kinds: ['PodDisruptionBudget', 'HorizontalPodAutoscaler', ...WORKLOAD_KINDS, 'Application'] },
  exemptible: true,
  run(ctx) {
    const budgets = ctx.resources.filter((r) => r.kind === 'PodDisruptionBudget');
    if (!budgets.length) return;
    // Only the workloads of the namespaces a budget is in: a budget selects pods of its own namespace.
    const namespaces = new Set(budgets.map((b) => namespaceOrDestination(ctx.repo, b) ?? ''));
    // The repository's pod templates, read once for every check (model/cluster/pod-templates.ts); a CronJob's pods
    // belong to the Jobs it makes, which the repository does not declare.
    const workloads = templatesWithPorts(ctx.repo).filter((t) => t.resource.kind !== 'CronJob' && namespaces.has(t.namespace));
    const autoscaled = autoscaledWorkloads(ctx.repo, ctx.resources);
    const budgetsOf = new Map<Resource, Resource[]>();
    for (const budget of budgets) {
      const namespace = namespaceOrDestination(ctx.repo, budget) ?? '';
      const pods = selected(budget, workloads, namespace);
      for (const w of pods) budgetsOf.set(w.resource, [...(budgetsOf.get(w.resource) ?? []), budget]);
      if (!pods.length) {
        guardsNothing(
          ctx,
          budget,
          workloads.filter((w) => w.namespace === namespace),
        );
        continue;
      }
      const [min, max] = [dig(budget.object, ['spec', 'minAvailable']) ?? undefined, dig(budget.object, ['spec', 'maxUnavailable']) ?? undefined];
      // getExpectedPodCount counts only by one of the two: with neither, it keeps no pod (desiredHealthy 0).
      if (min === undefined && max === undefined) {
        ctx.fail(
          { resource: budget, path: ['spec'] },
          `PodDisruptionBudget ${budget.name} has neither minAvailable nor maxUnavailable: the disruption controller keeps none of its pods healthy (desiredHealthy 0), so it guards nothing, and a node drain may take every pod it was written to keep`,
          FIX.uncounted,
        );
        continue;
      }
      const field = max !== undefined ? 'maxUnavailable' : 'minAvailable';
      const where = { resource: budget, path: ['spec', field] };
      const byScale = max !== undefined || typeof min === 'string';
      const unscaled = pods.filter((w) => !SCALED.has(w.resource.kind));
      if (byScale && unscaled.length) {
        ctx.fail(
          where,
          `PodDisruptionBudget ${budget.name} counts by scale (${field}: ${JSON.stringify(max ?? min)}) and selects the pods of ${unscaled.map((w) => `${w.resource.kind} ${w.resource.name}`).join(', ')}, whose scale the disruption controller cannot find ("found no controllers"): it allows no disruption, and every eviction of its pods is refused`,
          FIX.unscaled,
        );
        continue;
      }
      // Counted only where every selected workload's replicas are known: a DaemonSet's pods are one per node, an
      // autoscaled workload's what its autoscaler makes.
      if (unscaled.length || pods.some((w) => autoscaled.has(scaledKey(w.namespace, w.resource.kind, w.resource.name)))) continue;
      const replicas = pods.map((w) => dig(w.resource.object, ['spec', 'replicas']) ?? 1);
      if (!replicas.every((n) => Number.isInteger(n))) continue;
      const expected = (replicas as number[]).reduce((a, b) => a + b, 0);
      const maxUnavailable = max === undefined ? undefined : scaledIntOrPercent(max, expected, true);
      const desired =
        max !== undefined ? (maxUnavailable === undefined ? undefined : Math.max(0, expected - maxUnavailable)) : scaledIntOrPercent(min, expected, true);
      if (desired === undefined || expected === 0 || expected - desired > 0) continue;
      ctx.fail(
        where,
        `PodDisruptionBudget ${budget.name} (${field}: ${JSON.stringify(max ?? min)}) allows no disruption of the ${expected} pod(s) of ${pods.map((w) => `${w.resource.kind} ${w.resource.name}`).join(', ')}, even all healthy: every eviction of them is refused, and a node drain (kubectl drain, a Talos upgrade or reboot) waits on them`,
        FIX.blocking,
      );
    }
    for (const [workload, over] of budgetsOf)
      if (over.length > 1)
        ctx.fail(
          { resource: over[1]!, path: ['spec', 'selector'] },
          `PodDisruptionBudgets ${over.map((b) => b.name).join(' and ')} both select the pods of ${workload.kind} ${workload.name}: the eviction API refuses to evict them ("This pod has more than one PodDisruptionBudget, which the eviction subresource does not support")`,
          FIX.twice,
        );
  },
};
