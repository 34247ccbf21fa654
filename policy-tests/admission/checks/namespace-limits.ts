/**
 * A namespace's LimitRanges and ResourceQuotas, as the LimitRanger and ResourceQuota admission plugins apply them to
 * the pods and claims the repository's workloads make (admission/allocation/limit-range.ts, resource-quota.ts,
 * quota-usage.ts).
 */
import type { Resource } from '../../model/core/manifest.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { containersOf, podSpecOf } from '../../model/core/workloads.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { admittedRequirements, claimLimitRefusals, limitRangeProblems, podLimitRefusals } from '../allocation/limit-range.ts';
import { claimsOf, clusterContext, namespaceUsage, type ClusterContext } from '../allocation/quota-usage.ts';
import { computeNames, COMPUTE, amountText, hardOf, requiredCompute, resourceQuotaProblems, unscoped } from '../allocation/resource-quota.ts';
import { dig } from '../../model/core/dig.ts';

/** Each namespace's LimitRanges (by name, as the plugin lists them) and ResourceQuotas. */
function limitsByNamespace(resources: readonly Resource[], nsOf: (r: Resource) => string): Map<string, { ranges: Resource[]; quotas: Resource[] }> {
  const out = new Map<string, { ranges: Resource[]; quotas: Resource[] }>();
  for (const r of resources) {
    if (r.kind !== 'LimitRange' && r.kind !== 'ResourceQuota') continue;
    const ns = nsOf(r);
    const entry = out.get(ns) ?? { ranges: [], quotas: [] };
    // A LimitRange or quota the API server refuses (api-validation says why) is never in the cluster, and limits nothing.
    if ((r.kind === 'LimitRange' ? limitRangeProblems(r.object) : resourceQuotaProblems(r.object)).length) continue;
    (r.kind === 'LimitRange' ? entry.ranges : entry.quotas).push(r);
    out.set(ns, entry);
  }
  for (const entry of out.values()) entry.ranges.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

/** What one workload's pods are refused: by each LimitRange, and by each quota that wants a resource stated. */
function podRefusals(ctx: CheckContext, r: Resource, ranges: readonly Resource[], quotas: readonly Resource[]): void {
  const pod = podSpecOf(r);
  if (!pod) return;
  const rangeObjects = ranges.map((x) => x.object);
  for (const range of ranges)
    for (const { path, message } of podLimitRefusals(pod, rangeObjects, range.object))
      ctx.fail({ resource: r, path }, `${r.kind} ${r.name}: its pods are forbidden by LimitRange ${range.name}: ${message}`);
  for (const quota of quotas.filter((q) => unscoped(q.object))) {
    const required = requiredCompute(quota.object);
    const missing = new Set<string>();
    for (const c of containersOf(pod)) {
      const { requests, limits } = admittedRequirements(c.container, rangeObjects);
      const stated = computeNames(requests, limits);
      for (const name of required) if (!stated.has(name)) missing.add(name);
    }
    if (missing.size)
      ctx.fail(
        { resource: r, path: pod.at },
        `${r.kind} ${r.name}: its pods are forbidden: failed quota: ${quota.name}: must specify ${[...missing].sort().join(',')}`,
      );
  }
}

/** Each quota's hard amounts against what the namespace asks for at once. */
function quotaTotals(
  ctx: CheckContext,
  ns: string,
  { resources, ranges, quotas, context }: { resources: readonly Resource[]; ranges: readonly Resource[]; quotas: readonly Resource[]; context: ClusterContext },
): void {
  const { of, uncounted } = namespaceUsage(resources, { ranges: ranges.map((r) => r.object), ...context });
  for (const quota of quotas) {
    if (!unscoped(quota.object)) {
      ctx.notJudged(
        { resource: quota, path: ['spec'] },
        `ResourceQuota ${quota.name}: a quota with scopes counts only the pods they select, which the gate does not sort`,
      );
      continue;
    }
    const hardList = (dig(quota.object, ['spec', 'hard']) ?? {}) as Record<string, unknown>;
    for (const name of Object.keys(hardList)) {
      const hard = hardOf(quota.object, name);
      const used = of(name);
      const podName = name === 'pods' || (COMPUTE as readonly string[]).includes(name);
      if (hard === undefined || used === undefined) {
        ctx.notJudged({ resource: quota, path: ['spec', 'hard', name] }, `ResourceQuota ${quota.name}: ${name} is not counted by the gate`);
        continue;
      }
      if (podName && uncounted.length)
        ctx.notJudged(
          { resource: quota, path: ['spec', 'hard', name] },
          `ResourceQuota ${quota.name}: ${name} also counts the pods of ${uncounted.map((r) => `${r.kind} ${r.name}`).join(', ')}, one per node each lands on, which the gate does not count`,
        );
      if (used > hard)
        ctx.fail(
          { resource: quota, path: ['spec', 'hard', name] },
          `ResourceQuota ${quota.name}: namespace ${ns} asks for ${name}=${amountText(name, used)} at once (${podName ? "its pods, a rolling update's surge and its largest Job included" : 'its objects'}), over the hard ${name}=${String(hardList[name])}: the API server refuses what passes it ("exceeded quota: ${quota.name}")`,
        );
    }
  }
}

export const namespaceLimitsCheck: PolicyCheck = {
  id: 'namespace-limits',
  description:
    "A namespace's LimitRanges and ResourceQuotas admit what its workloads make, as the LimitRanger and ResourceQuota plugins do: each container's requests and limits, after the LimitRange's defaults, within its min, max and ratio, and the pod's within its Pod item; each claim's storage within its PersistentVolumeClaim item; every compute resource an unscoped quota limits stated by every container; and the namespace's pods at once (replicas, an autoscaler's maxReplicas, a rolling update's surge, a DaemonSet's one per node it may land on, its largest Job), services, node ports, claims and storage (per class too), ConfigMaps, Secrets and count/<resource> within the quota's hard amounts; a pod refused leaves its workload unavailable, and the sync waiting (invariants P1).",
  invariants: ['P1'],
  remediation:
    "state the workload's requests and limits within the namespace's LimitRange, or raise the ResourceQuota's hard amounts (with room for a rolling update's surge)",
  reads: {
    kinds: ['*'],
    everyKind: 'a quota may count objects of any kind (count/<resource>), and it reads autoscalers, CRDs and StorageClasses beside the workloads',
  },
  exemptible: false,
  run(ctx) {
    const nsOf = (r: Resource) => namespaceOrDestination(ctx.repo, r) ?? 'default';
    const limits = limitsByNamespace(ctx.resources, nsOf);
    if (!limits.size) return;
    let cluster: ClusterContext | undefined;
    for (const [ns, { ranges, quotas }] of limits) {
      const inNamespace = ctx.resources.filter((r) => nsOf(r) === ns);
      for (const r of inNamespace) podRefusals(ctx, r, ranges, quotas);
      for (const claim of claimsOf(inNamespace))
        for (const range of ranges)
          for (const message of claimLimitRefusals(claim.spec, range.object))
            ctx.fail(
              { resource: claim.resource, path: claim.path },
              `${claim.resource.kind} ${claim.resource.name}: its claim is forbidden by LimitRange ${range.name}: ${message}`,
            );
      if (quotas.length)
        quotaTotals(ctx, ns, { resources: inNamespace, ranges, quotas, context: (cluster ??= clusterContext(ctx.resources, nsOf, ctx.repo.facts)) });
    }
  },
};
