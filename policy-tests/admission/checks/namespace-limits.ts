/**
 * A namespace's LimitRanges and ResourceQuotas, as the LimitRanger and ResourceQuota admission plugins apply them to
 * the pods and claims the repository's workloads make (admission/allocation/limit-range.ts, resource-quota.ts).
 */
import { dig } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { parseQuantity } from '../../model/core/text.ts';
import { containersOf, LONG_RUNNING_KINDS, podsAtOnce, podSpecOf, scaledKey, scaleTargetKey, surgePods, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { isDefaultStorageClass } from '../../model/cluster/providers.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { admittedRequirements, claimLimitRefusals, limitRangeProblems, podLimitRefusals, podTotals } from '../allocation/limit-range.ts';
import {
  amountText,
  computeNames,
  COMPUTE,
  daemonSetPods,
  hardOf,
  perPodAmount,
  requiredCompute,
  resourceQuotaProblems,
  unscoped,
  type NodeCounts,
} from '../allocation/resource-quota.ts';

type Obj = Record<string, any>;

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
/**
 * The most pods a workload runs at once: an autoscaled one at its autoscaler's maxReplicas (a quota that cannot hold
 * them turns each scale-up past it away), with its rolling update's surge on top.
 */
function peakPods(r: Resource, { peaks, nsOf, nodes }: Pick<ClusterContext, 'peaks' | 'nsOf' | 'nodes'>): number | undefined {
  if (r.kind === 'DaemonSet') return nodes && daemonSetPods(r.object, nodes);
  const peak = peaks.get(scaledKey(nsOf(r), r.kind, r.name));
  if (peak === undefined) return podsAtOnce(r);
  const surge = r.kind === 'Deployment' ? surgePods(r, peak) : 0;
  return surge === undefined ? undefined : peak + surge;
}

/** Each autoscaled workload's maxReplicas, by scaledKey. */
function autoscalerPeaks(resources: readonly Resource[], nsOf: (r: Resource) => string): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of resources) {
    if (r.kind !== 'HorizontalPodAutoscaler') continue;
    const key = scaleTargetKey(nsOf(r), r.object);
    const max = dig(r.object, ['spec', 'maxReplicas']);
    if (key && Number.isInteger(max)) out.set(key, max as number);
  }
  return out;
}

/**
 * The resource `count/<resource>[.<group>]` counts for an object: its CRD's plural where the repository renders
 * it, else the API server's guess from the kind (UnsafeGuessKindToResource: -s, -es after s, -ies after y).
 */
function countName(r: Resource, plurals: ReadonlyMap<string, string>): string {
  const group = groupOf(r.apiVersion);
  const lower = r.kind.toLowerCase();
  const guessed = lower.endsWith('s') ? `${lower}es` : lower.endsWith('y') ? `${lower.slice(0, -1)}ies` : `${lower}s`;
  const plural = plurals.get(`${group}/${r.kind}`) ?? guessed;
  return `count/${group ? `${plural}.${group}` : plural}`;
}

/**
 * The objects of `kind` the namespace's ExternalSecrets make (a Secret, or what `target.manifest` names): the
 * operator creates one per ExternalSecret unless its creationPolicy is Merge or None (it writes into one that exists).
 */
function madeByExternalSecrets(resources: readonly Resource[], kind: string): number {
  return resources.filter((r) => {
    if (r.kind !== 'ExternalSecret' || groupOf(r.apiVersion) !== 'external-secrets.io') return false;
    const policy = dig(r.object, ['spec', 'target', 'creationPolicy']) ?? 'Owner';
    const made = dig(r.object, ['spec', 'target', 'manifest', 'kind']) ?? 'Secret';
    return made === kind && policy !== 'Merge' && policy !== 'None';
  }).length;
}

/** What every namespace's count shares: autoscalers' peaks, the CRDs' plurals, and the default StorageClass. */
interface ClusterContext {
  /** The namespace Argo CD applies an object into: its own, else its Application's destination. */
  nsOf: (r: Resource) => string;
  peaks: ReadonlyMap<string, number>;
  plurals: ReadonlyMap<string, string>;
  defaultClass?: string;
  /** The nodes a DaemonSet's pods land on, where the facts count them. */
  nodes?: NodeCounts;
}

function usage(
  resources: readonly Resource[],
  context: ClusterContext & { ranges: readonly Obj[] },
): { of: (name: string) => number | undefined; uncounted: Resource[] } {
  const { ranges, plurals, defaultClass } = context;
  const uncounted: Resource[] = [];
  const steady: { pods: number; requests: Record<string, number>; limits: Record<string, number> }[] = [];
  const oneShot: { pods: number; requests: Record<string, number>; limits: Record<string, number> }[] = [];
  for (const r of resources) {
    const pod = podSpecOf(r);
    if (!pod || !(WORKLOAD_KINDS as readonly string[]).includes(r.kind)) continue;
    const pods = peakPods(r, context);
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
        return count('ConfigMap') + 1 + madeByExternalSecrets(resources, 'ConfigMap');
      case 'secrets':
        return count('Secret') + madeByExternalSecrets(resources, 'Secret');
      default: {
        if (name.startsWith('count/')) return resources.filter((r) => countName(r, plurals) === name).length + (name === 'count/configmaps' ? 1 : 0);
        // <class>.storageclass.storage.k8s.io/requests.storage and /persistentvolumeclaims: the claims of that class.
        const perClass = /^(.+)\.storageclass\.storage\.k8s\.io\/(requests\.storage|persistentvolumeclaims)$/.exec(name);
        if (!perClass) return undefined;
        const ofClass = claims.filter((c) => (c.spec.storageClassName ?? defaultClass) === perClass[1]);
        return ofClass.reduce(
          (sum, c) => sum + c.copies * (perClass[2] === 'persistentvolumeclaims' ? 1 : (parseQuantity(c.spec.resources?.requests?.storage) ?? 0)),
          0,
        );
      }
    }
  };
  return { of, uncounted };
}

/** Each quota's hard amounts against what the namespace asks for at once. */
function quotaTotals(
  ctx: CheckContext,
  ns: string,
  { resources, ranges, quotas, context }: { resources: readonly Resource[]; ranges: readonly Resource[]; quotas: readonly Resource[]; context: ClusterContext },
): void {
  const { of, uncounted } = usage(resources, { ranges: ranges.map((r) => r.object), ...context });
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

/** Autoscalers' peaks, the CRDs' plurals and the default StorageClass, read once. */
function clusterContext(
  resources: readonly Resource[],
  nsOf: (r: Resource) => string,
  facts?: { nodeCount: number; controlPlaneCount: number },
): ClusterContext {
  const plurals = new Map<string, string>();
  for (const r of resources)
    if (r.kind === 'CustomResourceDefinition') {
      const [group, kind, plural] = [dig(r.object, ['spec', 'group']), dig(r.object, ['spec', 'names', 'kind']), dig(r.object, ['spec', 'names', 'plural'])];
      if (typeof group === 'string' && typeof kind === 'string' && typeof plural === 'string') plurals.set(`${group}/${kind}`, plural);
    }
  const defaults = resources.filter((r) => r.kind === 'StorageClass' && isDefaultStorageClass(r.object));
  const nodes =
    facts && Number.isInteger(facts.nodeCount) ? { workers: facts.nodeCount - facts.controlPlaneCount, controlPlanes: facts.controlPlaneCount } : undefined;
  return {
    nsOf,
    peaks: autoscalerPeaks(resources, nsOf),
    plurals,
    ...(nodes ? { nodes } : {}),
    ...(defaults.length === 1 ? { defaultClass: defaults[0]!.name } : {}),
  };
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
