/**
 * A namespace's LimitRanges and ResourceQuotas, as the LimitRanger and ResourceQuota admission plugins apply them to
 * the pods and claims the repository's workloads make (admission/allocation/limit-range.ts, resource-quota.ts).
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { parseQuantity } from '../../model/core/text.ts';
import { containersOf, LONG_RUNNING_KINDS, podsAtOnce, podSpecOf, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { admittedRequirements, claimLimitRefusals, podLimitRefusals, podTotals } from '../allocation/limit-range.ts';
import { amountText, computeNames, COMPUTE, hardOf, perPodAmount, requiredCompute, unscoped } from '../allocation/resource-quota.ts';

type Obj = Record<string, any>;

/** Each namespace's LimitRanges (by name, as the plugin lists them) and ResourceQuotas. */
function limitsByNamespace(resources: readonly Resource[]): Map<string, { ranges: Resource[]; quotas: Resource[] }> {
  const out = new Map<string, { ranges: Resource[]; quotas: Resource[] }>();
  for (const r of resources) {
    if (r.kind !== 'LimitRange' && r.kind !== 'ResourceQuota') continue;
    const ns = r.namespace ?? 'default';
    const entry = out.get(ns) ?? { ranges: [], quotas: [] };
    (r.kind === 'LimitRange' ? entry.ranges : entry.quotas).push(r);
    out.set(ns, entry);
  }
  for (const entry of out.values()) entry.ranges.sort((a, b) => a.name.localeCompare(b.name));
  return out;
}

/** The claims a namespace holds: its own, and each StatefulSet's templates once per replica. */
function claimsOf(resources: readonly Resource[]): { resource: Resource; spec: Obj; path: (string | number)[]; copies: number }[] {
  return resources.flatMap((r) => {
    if (r.kind === 'PersistentVolumeClaim') return [{ resource: r, spec: (r.object.spec ?? {}) as Obj, path: ['spec', 'resources'], copies: 1 }];
    if (r.kind !== 'StatefulSet') return [];
    const templates = dig(r.object, ['spec', 'volumeClaimTemplates']);
    const replicas = podsAtOnce(r) ?? 1;
    return (Array.isArray(templates) ? templates : []).map((t: Obj, i) => ({
      resource: r,
      spec: (t?.spec ?? {}) as Obj,
      path: ['spec', 'volumeClaimTemplates', i, 'spec', 'resources'],
      copies: replicas,
    }));
  });
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

/** The namespace's use of each quota resource the gate counts, at the most pods at once; undefined where it cannot. */
function usage(resources: readonly Resource[], ranges: readonly Obj[]): { of: (name: string) => number | undefined; uncounted: Resource[] } {
  const uncounted: Resource[] = [];
  const steady: { pods: number; requests: Record<string, number>; limits: Record<string, number> }[] = [];
  const oneShot: { pods: number; requests: Record<string, number>; limits: Record<string, number> }[] = [];
  for (const r of resources) {
    const pod = podSpecOf(r);
    if (!pod || !(WORKLOAD_KINDS as readonly string[]).includes(r.kind)) continue;
    const pods = podsAtOnce(r);
    if (pods === undefined) {
      uncounted.push(r);
      continue;
    }
    const entry = { pods, requests: podTotals(pod, ranges, 'requests'), limits: podTotals(pod, ranges, 'limits') };
    if (LONG_RUNNING_KINDS.has(r.kind)) steady.push(entry);
    else oneShot.push(entry);
  }
  const claims = claimsOf(resources);
  const services = resources.filter((r) => r.kind === 'Service');
  const count = (kind: string) => resources.filter((r) => r.kind === kind).length;
  const of = (name: string): number | undefined => {
    if (name === 'pods' || (COMPUTE as readonly string[]).includes(name)) {
      const total = (list: typeof steady) => list.reduce((sum, e) => sum + e.pods * (perPodAmount(name, e.requests, e.limits) ?? 0), 0);
      // Jobs and CronJobs run now and then: the largest one at a time, beside every long-running pod.
      return total(steady) + Math.max(0, ...oneShot.map((e) => total([e])));
    }
    switch (name) {
      case 'services':
        return services.length;
      case 'services.loadbalancers':
        return services.filter((s) => s.object.spec && (s.object.spec as Obj).type === 'LoadBalancer').length;
      case 'services.nodeports':
        return services.reduce((sum, s) => {
          const spec = (s.object.spec ?? {}) as Obj;
          const allocates = spec.type === 'NodePort' || (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
          return sum + (allocates && Array.isArray(spec.ports) ? spec.ports.length : 0);
        }, 0);
      case 'persistentvolumeclaims':
        return claims.reduce((sum, c) => sum + c.copies, 0);
      case 'requests.storage':
        return claims.reduce((sum, c) => sum + c.copies * (parseQuantity(c.spec.resources?.requests?.storage) ?? 0), 0);
      case 'configmaps':
        // Every namespace holds kube-root-ca.crt, which the root CA publisher writes.
        return count('ConfigMap') + 1;
      case 'secrets':
        return count('Secret');
      default:
        return undefined;
    }
  };
  return { of, uncounted };
}

/** Each quota's hard amounts against what the namespace asks for at once. */
function quotaTotals(
  ctx: CheckContext,
  ns: string,
  { resources, ranges, quotas }: { resources: readonly Resource[]; ranges: readonly Resource[]; quotas: readonly Resource[] },
): void {
  const { of, uncounted } = usage(
    resources,
    ranges.map((r) => r.object),
  );
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
    "A namespace's LimitRanges and ResourceQuotas admit what its workloads make, as the LimitRanger and ResourceQuota plugins do: each container's requests and limits, after the LimitRange's defaults, within its min, max and ratio, and the pod's within its Pod item; each claim's storage within its PersistentVolumeClaim item; every compute resource an unscoped quota limits stated by every container; and the namespace's pods at once (replicas, a rolling update's surge, its largest Job), services, node ports, claims, storage, ConfigMaps and Secrets within the quota's hard amounts; a pod refused leaves its workload unavailable, and the sync waiting (invariants P1).",
  invariants: ['P1'],
  remediation:
    "state the workload's requests and limits within the namespace's LimitRange, or raise the ResourceQuota's hard amounts (with room for a rolling update's surge)",
  reads: { kinds: [...WORKLOAD_KINDS, 'PersistentVolumeClaim', 'LimitRange', 'ResourceQuota', 'Service', 'ConfigMap', 'Secret'] },
  exemptible: false,
  run(ctx) {
    const limits = limitsByNamespace(ctx.resources);
    if (!limits.size) return;
    for (const [ns, { ranges, quotas }] of limits) {
      const inNamespace = ctx.resources.filter((r) => (r.namespace ?? 'default') === ns);
      for (const r of inNamespace) podRefusals(ctx, r, ranges, quotas);
      for (const claim of claimsOf(inNamespace))
        for (const range of ranges)
          for (const message of claimLimitRefusals(claim.spec, range.object))
            ctx.fail(
              { resource: claim.resource, path: claim.path },
              `${claim.resource.kind} ${claim.resource.name}: its claim is forbidden by LimitRange ${range.name}: ${message}`,
            );
      if (quotas.length) quotaTotals(ctx, ns, { resources: inNamespace, ranges, quotas });
    }
  },
};
