/**
 * closure-ceph-daemons: the Ceph daemons Rook keeps one to a node have a node each, and a pool's replicas have a host
 * each. Rook (v1.20) places every monitor on a node of its own unless the CephCluster allows several per node (and
 * never under host networking: mon.go's requiredDuringScheduling), each manager likewise unless allowed, and the OSDs
 * on the nodes its placement lets them on (k8sutil.GetValidNodes); a daemon's placement is the CephCluster's
 * placement.all merged with its own (Placement.Merge: its node affinity replaces, its tolerations add). A monitor with
 * no node leaves its canary Pending and the operator's orchestration failing at "failed to assign pods to mons", so no
 * OSD is ever made; a manager with none stays Pending; a replicated pool whose failure domain is the host and whose
 * size is more than the hosts with OSDs never holds every replica (its placement groups stay undersized, and take no
 * writes below min_size). None of this is any object the API server refuses.
 */
import { applicationsByName, namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { poolVerdict } from '../../model/rook/pools.ts';
import { clusterRefusal, isStretchCluster } from '../../model/rook/cluster.ts';
import { isSet, list, obj, str, type Obj } from '../../model/core/dig.ts';
import type { Path } from '../../model/core/positions.ts';
import type { CheckContext, FailurePlace, PolicyCheck } from '../../model/checks/kit.ts';
import { nodeKinds, type NodeKind } from '../../model/scheduling/nodes.ts';
import { placement } from './scheduling.ts';

const CHART = 'rook-ceph-cluster';

/** What each Ceph check reads: the rendered objects, or the chart's values where it is not rendered. */
const READS = { kinds: ['CephCluster', 'CephBlockPool', 'Application'], charts: [CHART], renders: true };

/** A CephCluster's spec or a pool's, with where a path of it is written (a rendered object, or the chart's values). */
export interface Written {
  spec: Obj;
  place: (path: Path) => FailurePlace;
  name: string;
  /** Whether it is the object itself (a field it leaves out is the operator's default), or the repository's values (a key they leave out is the chart's, not known here). */
  rendered: boolean;
  /** The object's own name and namespace (a pool's, as Rook reads it). */
  object: { name: string; namespace: string };
}

/** The clusters and pools the repository runs: the rendered objects, or, where the chart is not rendered, its values as the repository writes them. */
export function cephOf(ctx: CheckContext): { clusters: Written[]; pools: Written[] } {
  const rendered = (kind: string) =>
    ctx.resources
      .filter((r) => r.kind === kind && r.apiVersion.startsWith('ceph.rook.io/'))
      .map((r) => ({
        spec: obj(r.object.spec),
        place: (path: Path): FailurePlace => ({ resource: r, path: ['spec', ...path] }),
        name: `${kind} ${r.name}`,
        rendered: true,
        object: { name: r.name, namespace: namespaceOrDestination(ctx.repo, r) ?? '' },
      }));
  const clusters = rendered('CephCluster');
  if (clusters.length > 0) return { clusters, pools: rendered('CephBlockPool') };
  const values = chartValues(ctx.repo, CHART);
  const destination = (app: string) => applicationsByName(ctx.repo).get(app)?.destinationNamespace ?? '';
  return {
    clusters: values.map((v) => ({
      spec: obj(v.values.cephClusterSpec),
      place: (path: Path): FailurePlace => ({ data: v.source, path: ['cephClusterSpec', ...path] }),
      name: `the CephCluster of ${v.appName}`,
      rendered: false,
      object: { name: v.appName, namespace: destination(v.appName) },
    })),
    pools: values.flatMap((v) =>
      list(v.values.cephBlockPools).map((p, i) => ({
        spec: obj(obj(p).spec),
        place: (path: Path): FailurePlace => ({ data: v.source, path: ['cephBlockPools', i, 'spec', ...path] }),
        name: `CephBlockPool ${str(obj(p).name) || i}`,
        rendered: false,
        object: { name: str(obj(p).name), namespace: destination(v.appName) },
      })),
    ),
  };
}

/** Placement.Merge of placement.all with a daemon's own, as a pod spec the scheduler's filters read. */
function daemonPod(spec: Obj, daemon: string): Obj {
  const all = obj(obj(spec.placement).all);
  const own = obj(obj(spec.placement)[daemon]);
  const nodeAffinity = isSet(own.nodeAffinity) ? own.nodeAffinity : all.nodeAffinity;
  const tolerations = [...list(all.tolerations), ...list(own.tolerations)];
  return { tolerations, ...(isSet(nodeAffinity) ? { affinity: { nodeAffinity } } : {}) };
}

/** How many nodes surely take a daemon, and whether some kind of node may or may not (a label the facts do not give). */
function nodesFor(spec: Obj, daemon: string, nodes: readonly NodeKind[]): { taking: number; unknown: boolean } {
  const fit = placement(daemonPod(spec, daemon), nodes);
  return { taking: fit.taking, unknown: fit.unknownKinds > 0 };
}

const MON_FIX =
  'run as many monitors as nodes take them (mon.count, an odd number), or let the monitors onto more nodes (placement.mon or placement.all: tolerations, node affinity)';
const MGR_FIX = 'run as many managers as nodes take them (mgr.count), or let them onto more nodes (placement.mgr or placement.all)';
const POOL_FIX =
  'keep as many replicas (replicated.size), or data and coding chunks (erasureCoded), as hosts run OSDs, or let the OSDs onto more hosts (placement.osd or placement.all, storage.nodes)';

/** The monitors and managers, one to a node: as many nodes as each count. */
function judgeDaemons(ctx: CheckContext, cluster: Written, nodes: readonly NodeKind[]): void {
  const hostNetwork = obj(cluster.spec.network).provider === 'host' || obj(cluster.spec.network).hostNetwork === true;
  // preClusterStartValidation counts every node, whatever its taints: fewer than the monitors and Rook starts nothing.
  const total = nodes.reduce((n, k) => n + k.count, 0);
  for (const [daemon, fallback, fix] of [
    ['mon', 3, MON_FIX],
    ['mgr', 1, MGR_FIX],
  ] as const) {
    const own = obj(cluster.spec[daemon]);
    // The chart's values leave a key to the chart's defaults, which are not read here: judged once rendered.
    if (!cluster.rendered && !(isSet(own.count) && isSet(own.allowMultiplePerNode))) continue;
    // Rook reads a count of 0 (or none) as its default: three monitors, one manager.
    const count = typeof own.count === 'number' && own.count > 0 ? own.count : fallback;
    if (own.allowMultiplePerNode === true && !(daemon === 'mon' && hostNetwork)) continue;
    const { taking, unknown } = nodesFor(cluster.spec, daemon, nodes);
    if (count <= taking) continue;
    const at = cluster.place(isSet(own.count) ? [daemon, 'count'] : []);
    const words = `${cluster.name} runs ${count} ${daemon === 'mon' ? 'monitors' : 'managers'} one to a node`;
    const floating = daemon === 'mon' && str(obj(own.floatingMon).name) !== '' ? 1 : 0;
    if (daemon === 'mon' && count - floating > total)
      ctx.fail(
        at,
        `${cluster.name} is refused by Rook: cannot start ${count} mons on ${total} node(s) when allowMultiplePerNode is false; it starts no daemon`,
        fix,
      );
    else if (unknown)
      ctx.notJudged(at, `${words}; ${taking} nodes surely take them, and whether others do turns on a node label the cluster facts do not give`);
    else
      ctx.fail(
        at,
        `${words}, and only ${taking} of the cluster's nodes take them (its ${daemon} placement, the nodes' taints and labels as the cluster facts give them): ${
          daemon === 'mon'
            ? 'a monitor with no node stays Pending, and the operator fails at "failed to assign pods to mons" before it makes any OSD'
            : 'a manager with no node stays Pending'
        }`,
        fix,
      );
  }
}

/**
 * How many hosts a pool whose failure domain is the host puts its copies on: a replicated pool's size, an erasure-coded
 * one's data and coding chunks (its profile's crush-failure-domain host puts each chunk on a host of its own), with
 * where that is written; nothing for a pool whose copies Ceph may put side by side.
 */
function hostsNeeded(pool: Written): { count: number; path: string[]; copies: string } | undefined {
  if ((typeof pool.spec.failureDomain === 'string' ? pool.spec.failureDomain : 'host') !== 'host') return undefined;
  const size = obj(pool.spec.replicated).size;
  if (typeof size === 'number' && size > 0) return { count: size, path: ['replicated', 'size'], copies: `${size} replicas` };
  const { dataChunks, codingChunks } = obj(pool.spec.erasureCoded);
  if (typeof dataChunks === 'number' && typeof codingChunks === 'number' && dataChunks + codingChunks > 0)
    return { count: dataChunks + codingChunks, path: ['erasureCoded'], copies: `${dataChunks} data and ${codingChunks} coding chunks` };
  return undefined;
}

/** Each pool whose failure domain is the host puts no more copies (replicas, or erasure-coded chunks) than hosts run OSDs. */
function judgePools(ctx: CheckContext, cluster: Written, pools: readonly Written[], nodes: readonly NodeKind[]): void {
  const storage = obj(cluster.spec.storage);
  const osd = nodesFor(cluster.spec, 'osd', nodes);
  // Without useAllNodes, the OSDs run on the nodes storage.nodes names, where the placement lets them.
  const hosts = storage.useAllNodes === true ? osd.taking : Math.min(list(storage.nodes).length, osd.taking);
  if ((osd.unknown && storage.useAllNodes === true) || (!cluster.rendered && !isSet(storage.useAllNodes))) return;
  for (const pool of pools) {
    const need = hostsNeeded(pool);
    if (!need || need.count <= hosts) continue;
    ctx.fail(
      pool.place(need.path),
      `${pool.name} keeps ${need.copies}, each on a host of its own (failureDomain: host), and ${cluster.name} runs OSDs on ${hosts} host${hosts === 1 ? '' : 's'}: its placement groups never hold every copy (undersized, the cluster's health a warning for good), and take no writes while fewer than min_size are up`,
      POOL_FIX,
    );
  }
}

export const cephDaemonsCheck: PolicyCheck = {
  id: 'closure-ceph-daemons',
  description:
    "Every Ceph daemon Rook keeps one to a node has a node of its own, and every pool's replicas a host each: as many nodes take the CephCluster's monitors as its mon.count (unless allowMultiplePerNode, never under host networking) and its managers as mgr.count (unless allowed), through placement.all merged with the daemon's own placement, the nodes' taints and labels as the cluster facts give them; and a pool with failureDomain host keeps no more replicas, or erasure-coded data and coding chunks, than hosts run OSDs. Otherwise a monitor stays Pending and the operator never makes an OSD, a manager stays Pending, or a pool's placement groups never hold every replica (invariants P1).",
  invariants: ['P1'],
  remediation: `${MON_FIX}; ${POOL_FIX}`,
  reads: READS,
  exemptible: false,
  run(ctx) {
    const facts = ctx.repo.facts;
    if (!facts) return;
    const nodes = nodeKinds(facts);
    // Where no node takes a pod at all (every node tainted, or the facts give none), closure-node and cluster-facts say so, once.
    if (placement({}, nodes).taking === 0) return;
    const { clusters, pools } = cephOf(ctx);
    for (const cluster of clusters) {
      judgeDaemons(ctx, cluster, nodes);
      judgePools(ctx, cluster, pools, nodes);
    }
  },
};

export const cephPoolCheck: PolicyCheck = {
  id: 'ceph-pool-accepted',
  description:
    "Every CephBlockPool is one Rook (v1.20) creates: replicated or erasure coded, not both, with their minimums; a failure domain and sub-domain among the CRUSH map's types (osd, host, rack, zone and Ceph's other defaults), never the same; a stretch cluster's pools of size 4; a size above replicasPerFailureDomain and a multiple of it; no single replica where requireSafeReplicaSize; a compression mode and a mirroring mode Rook knows; otherwise the operator marks the pool failed and creates nothing in Ceph, and no volume is provisioned on it (invariants P1).",
  invariants: ['P1'],
  remediation:
    'fix the field the finding names, as Rook documents the CephBlockPool (ceph.rook.io/v1): failureDomain host or osd, replicated.size 3 on three hosts',
  reads: READS,
  exemptible: false,
  run(ctx) {
    const { clusters, pools } = cephOf(ctx);
    // A stretch cluster asks more of every pool: any CephCluster of the repository that is one (the chart makes one).
    const stretch = clusters.some((c) => isStretchCluster(c.spec));
    for (const pool of pools) {
      const verdict = poolVerdict(pool.spec, { ...pool.object, stretch });
      if (verdict && 'refused' in verdict)
        ctx.fail(
          pool.place(verdict.refused.path),
          `${pool.name} is refused by Rook: ${verdict.refused.message}; the operator creates no pool in Ceph, and no volume is provisioned on it`,
        );
      else if (verdict) ctx.notJudged(pool.place(verdict.notJudged.path), `${pool.name}: ${verdict.notJudged.message}`);
    }
  },
};

export const cephClusterCheck: PolicyCheck = {
  id: 'ceph-cluster-accepted',
  description:
    'Every CephCluster is one Rook (v1.20) starts: a dataDirHostPath that is not one of its internal paths (/etc/ceph, /rook, /var/log/ceph), which it logs and leaves the cluster alone for, with no condition; a stretch cluster of three named zones, one the arbiter, with three or five monitors; a network spec it takes (the legacy hostNetwork only with the default provider, Multus with its selectors, address ranges only for host or Multus); otherwise no Ceph daemon runs (invariants P1).',
  invariants: ['P1'],
  remediation:
    'fix the field the finding names, as Rook documents the CephCluster (ceph.rook.io/v1); on Talos, keep dataDirHostPath under /var (/var/lib/rook)',
  reads: READS,
  exemptible: false,
  run(ctx) {
    for (const cluster of cephOf(ctx).clusters) {
      const refusal = clusterRefusal(cluster.spec);
      if (refusal)
        ctx.fail(cluster.place(refusal.path), `${cluster.name} is refused by Rook: ${refusal.message}; it runs no Ceph daemon, and no volume is provisioned`);
    }
  },
};
