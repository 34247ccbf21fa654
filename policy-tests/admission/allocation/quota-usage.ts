/**
 * What a namespace asks of a ResourceQuota at once, as the quota's evaluators count it (pkg/quota/v1/evaluator/core):
 * its pods as many as run together (replicas, an autoscaler's peak, a rolling update's surge, a DaemonSet's nodes,
 * its largest Job), their requests and limits after LimitRanger's defaults, and the objects it holds.
 */
import { dig } from '../../model/core/dig.ts';
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import { LONG_RUNNING_KINDS, podsAtOnce, podSpecOf, scaledKey, scaleTargetKey, surgePods, WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { isDefaultStorageClass } from '../../model/cluster/providers.ts';
import { podTotals } from './limit-range.ts';
import { builtinResourceName } from '../cel/admission-policies.ts';
import { crdPlurals } from '../crd-schemas.ts';
import { COMPUTE, daemonSetPods, perPodAmount } from './resource-quota.ts';
import { nodeKinds, type NodeKind } from '../../model/scheduling/nodes.ts';
import type { ClusterFacts } from '../../model/repository/cluster-facts.ts';

type Obj = Record<string, any>;

/** The claims a namespace holds: its own, and each StatefulSet's templates once per replica. */
export function claimsOf(resources: readonly Resource[]): { resource: Resource; spec: Obj; path: (string | number)[]; copies: number }[] {
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
 * it, else the built-in resource's name the admission policies match by (builtinResourceName).
 */
function countName(r: Resource, plurals: ReadonlyMap<string, string>): string {
  const group = groupOf(r.apiVersion);
  const plural = plurals.get(`${group}/${r.kind}`) ?? builtinResourceName(r.kind);
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
export interface ClusterContext {
  /** The namespace Argo CD applies an object into: its own, else its Application's destination. */
  nsOf: (r: Resource) => string;
  peaks: ReadonlyMap<string, number>;
  plurals: ReadonlyMap<string, string>;
  defaultClass?: string;
  /** The kinds of node a DaemonSet's pods land on, where the facts count them. */
  nodes?: readonly NodeKind[];
}

/** The namespace's use of each quota resource the gate counts, at the most pods at once; undefined where it cannot. */
export function namespaceUsage(
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
        return claims.reduce((sum, c) => sum + c.copies * (quantityValue(c.spec.resources?.requests?.storage) ?? 0), 0);
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
          (sum, c) => sum + c.copies * (perClass[2] === 'persistentvolumeclaims' ? 1 : (quantityValue(c.spec.resources?.requests?.storage) ?? 0)),
          0,
        );
      }
    }
  };
  return { of, uncounted };
}

/** Autoscalers' peaks, the CRDs' plurals and the default StorageClass, read once. */
export function clusterContext(
  resources: readonly Resource[],
  nsOf: (r: Resource) => string,
  facts?: Pick<ClusterFacts, 'nodeCount' | 'controlPlaneCount' | 'machineConfig'>,
): ClusterContext {
  const plurals = crdPlurals(resources);
  const defaults = resources.filter((r) => r.kind === 'StorageClass' && isDefaultStorageClass(r.object));
  const nodes = facts && Number.isInteger(facts.nodeCount) ? nodeKinds(facts) : undefined;
  return {
    nsOf,
    peaks: autoscalerPeaks(resources, nsOf),
    plurals,
    ...(nodes ? { nodes } : {}),
    ...(defaults.length === 1 ? { defaultClass: defaults[0]!.name } : {}),
  };
}
