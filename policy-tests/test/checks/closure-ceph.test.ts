/**
 * closure-ceph-daemons on the objects the rook-ceph-cluster chart renders: a CephCluster's monitors and managers one to
 * a node through its placement, and a pool's replicas one to a host with OSDs, as Rook v1.20 places them.
 */
import { describe, expect, it } from 'vitest';
import { cephDaemonsCheck } from '../../checks/closure/ceph.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const CP_TOLERATION = { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' };

const rendered = (kind: string, name: string, spec: object): Resource =>
  ({
    ...repo.resources.find((r) => r.kind === 'ConfigMap')!,
    apiVersion: 'ceph.rook.io/v1',
    kind,
    name,
    object: { apiVersion: 'ceph.rook.io/v1', kind, metadata: { name, namespace: 'rook-ceph' }, spec },
  }) as Resource;

const cluster = (spec: object) => rendered('CephCluster', 'rook-ceph', { storage: { useAllNodes: true }, ...spec });
const pool = (size: number, failureDomain?: string) => rendered('CephBlockPool', 'pool', { replicated: { size }, ...(failureDomain ? { failureDomain } : {}) });
/** The messages of the check on the real repository with these rendered objects (which stand for the chart's). */
const judged = (...objects: Resource[]) =>
  runPolicy({ ...repo, resources: [...repo.resources, ...objects] }, [cephDaemonsCheck]).map(
    (f) => `${f.severity ?? 'error'}: ${f.message.replace(/: .*$/, '')}`,
  );

describe('closure-ceph-daemons, on what the chart renders', () => {
  it("takes Rook's defaults where the object leaves a field out: three monitors, one manager, failure domain host", () => {
    expect(judged(cluster({}), pool(3))).toEqual([]);
    expect(judged(cluster({ mon: { count: 0 } }), pool(4))).toEqual(['error: CephBlockPool pool keeps 4 replicas, each on a host of its own (failureDomain']);
  });

  it('holds monitors and managers to the nodes their placement lets them on, unless several may share a node', () => {
    expect(judged(cluster({ mon: { count: 5 }, mgr: { count: 4 } }))).toEqual([
      "error: CephCluster rook-ceph runs 5 monitors one to a node, and only 3 of the cluster's nodes take them (its mon placement, the nodes' taints and labels as the cluster facts give them)",
      "error: CephCluster rook-ceph runs 4 managers one to a node, and only 3 of the cluster's nodes take them (its mgr placement, the nodes' taints and labels as the cluster facts give them)",
    ]);
    expect(judged(cluster({ mon: { count: 5 }, placement: { all: { tolerations: [CP_TOLERATION] } } }))).toEqual([]);
    // More monitors than the cluster has nodes at all: Rook refuses to start (preClusterStartValidation).
    expect(judged(cluster({ mon: { count: 7 }, placement: { all: { tolerations: [CP_TOLERATION] } } }))).toEqual([
      'error: CephCluster rook-ceph is refused by Rook',
    ]);
    expect(runPolicy({ ...repo, resources: [...repo.resources, cluster({ mon: { count: 7 } })] }, [cephDaemonsCheck]).map((f) => f.message)[0]).toBe(
      'CephCluster rook-ceph is refused by Rook: cannot start 7 mons on 6 node(s) when allowMultiplePerNode is false; it starts no daemon',
    );
    expect(judged(cluster({ mon: { count: 5, allowMultiplePerNode: true }, mgr: { count: 4, allowMultiplePerNode: true } }))).toEqual([]);
    // Host networking puts one monitor on a node whatever the spec allows.
    expect(judged(cluster({ mon: { count: 5, allowMultiplePerNode: true }, network: { provider: 'host' } }))).toHaveLength(1);
  });

  it("merges placement.all with a daemon's own as Rook does: its node affinity replaces, its tolerations add", () => {
    const onlyNode = { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'ceph', operator: 'Exists' }] }] } };
    expect(judged(cluster({ placement: { all: { nodeAffinity: onlyNode } } }))).toHaveLength(2); // no node carries the label
    expect(judged(cluster({ placement: { all: { nodeAffinity: onlyNode }, mon: { nodeAffinity: {} }, mgr: { nodeAffinity: {} } } }))).toEqual([]);
    expect(judged(cluster({ mon: { count: 5 }, placement: { all: { tolerations: [] }, mon: { tolerations: [CP_TOLERATION] } } }))).toEqual([]);
  });

  it("says not judged where a node label the facts do not give decides, and counts a pool's hosts as the OSDs' nodes", () => {
    const byHost = {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['w1'] }] }],
      },
    };
    expect(judged(cluster({ placement: { mon: { nodeAffinity: byHost } } }))).toEqual([
      'not-judged: CephCluster rook-ceph runs 3 monitors one to a node; 0 nodes surely take them, and whether others do turns on a node label the cluster facts do not give',
    ]);
    expect(judged(cluster({ storage: { useAllNodes: false, nodes: [{ name: 'w1' }, { name: 'w2' }] } }), pool(3))).toHaveLength(1);
    expect(judged(cluster({}), pool(4, 'osd'))).toEqual([]);
  });
});
