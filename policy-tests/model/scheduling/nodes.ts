/**
 * The nodes as the scheduler sees them, in kinds: how many of each, the labels Talos gives them (kubernetes.io/os:
 * linux on every node; the node-role and exclude-from-external-load-balancers labels on the control-plane nodes) and
 * the machine config's machine.nodeLabels, and whether they carry the control-plane taint (Talos puts it on them
 * unless the machine config's allowSchedulingOnControlPlanes). No program here labels nodes. One reading for every
 * question of where pods land: the scheduler's (closure-node) and the DaemonSet controller's (the quota's count).
 */
import type { ClusterFacts } from '../repository/cluster-facts.ts';
import { CONTROL_PLANE_TAINT, toleratesControlPlane } from '../core/workloads.ts';
import { requiredNodeAffinityFits, type NodeView } from './node-affinity.ts';

/** A kind of node the cluster has: how many, the labels they carry, and whether they carry the control-plane taint. */
export interface NodeKind {
  name: string;
  count: number;
  controlPlane: boolean;
  labels: Readonly<Record<string, string>>;
  tainted: boolean;
}

/**
 * The labels every node's kubelet writes of itself, and Talos' own: every node's, and the control-plane nodes' beside
 * them. The kubelet writes its OS and architecture under both the stable and the beta keys (initialNode); the
 * architecture only where the facts say it (`nodeArchitecture`).
 */
const TALOS_LABELS = { 'kubernetes.io/os': 'linux', 'beta.kubernetes.io/os': 'linux' };
const ARCH_KEYS = ['kubernetes.io/arch', 'beta.kubernetes.io/arch'];
const archLabels = (arch: string | undefined): Record<string, string> => (arch ? Object.fromEntries(ARCH_KEYS.map((k) => [k, arch])) : {});
const CONTROL_PLANE_LABELS = { [CONTROL_PLANE_TAINT]: '', 'node.kubernetes.io/exclude-from-external-load-balancers': '' };

const TALOS_KEYS = new Set([...Object.keys(TALOS_LABELS), ...Object.keys(CONTROL_PLANE_LABELS)]);

/**
 * The labels only a cloud provider writes (its cloud-controller-manager: zone, region, instance type; and their beta
 * forms). Talos runs none unless cluster.externalCloudProvider is on, which a lab on its own hardware leaves off.
 */
const CLOUD_LABELS =
  /^(topology\.kubernetes\.io\/(zone|region)|failure-domain\.beta\.kubernetes\.io\/(zone|region)|(node|beta)\.kubernetes\.io\/instance-type)$/;

/**
 * Whether a node's label is one the gate cannot know: a key under kubernetes.io that Talos does not govern, which the
 * kubelet writes per node (kubernetes.io/hostname, kubernetes.io/arch) or Kubernetes may write. A role
 * (node-role.kubernetes.io/...) is known: the NodeRestriction admission plugin keeps a kubelet from giving its node
 * one, so a node has only the roles Talos gives it and machine.nodeLabels; so are a cloud provider's labels.
 */
export const unknowable = (key: string, node: NodeKind): boolean =>
  !TALOS_KEYS.has(key) &&
  !key.startsWith('node-role.kubernetes.io/') &&
  !CLOUD_LABELS.test(key) &&
  !Object.hasOwn(node.labels, key) &&
  /(^|\.)kubernetes\.io\//.test(key);

/** The kinds of node the facts give: the control-plane nodes and the workers, as many kinds as the cluster has. */
export function nodeKinds(facts: Pick<ClusterFacts, 'nodeCount' | 'controlPlaneCount' | 'machineConfig' | 'nodeArchitecture'>): NodeKind[] {
  const kinds: NodeKind[] = [];
  const own = { ...TALOS_LABELS, ...archLabels(facts.nodeArchitecture) };
  if (facts.controlPlaneCount > 0)
    kinds.push({
      name: 'control-plane nodes',
      count: facts.controlPlaneCount,
      controlPlane: true,
      labels: { ...facts.machineConfig.nodeLabels, ...own, ...CONTROL_PLANE_LABELS },
      tainted: !facts.machineConfig.allowSchedulingOnControlPlanes,
    });
  if (facts.nodeCount > facts.controlPlaneCount)
    kinds.push({
      name: 'workers',
      count: facts.nodeCount - facts.controlPlaneCount,
      controlPlane: false,
      labels: { ...facts.machineConfig.nodeLabels, ...own },
      tainted: false,
    });
  return kinds;
}

/** A kind of node as the scheduler's matcher sees it: its labels, no name (each node has its own), the unknowable keys. */
export const viewOf = (node: NodeKind): NodeView => ({ labels: node.labels, name: undefined, unknownLabel: (key) => unknowable(key, node) });

/**
 * The nodes a DaemonSet runs a pod on, as its controller decides (`NodeShouldRunDaemonPod`: the pod's node affinity
 * and nodeSelector, and the node's NoSchedule taints tolerated): how many, or undefined where a label the facts do
 * not hold decides it.
 */
export function daemonNodes(podSpec: Record<string, unknown>, kinds: readonly NodeKind[]): number | undefined {
  let count = 0;
  for (const kind of kinds) {
    const fit = requiredNodeAffinityFits(podSpec, viewOf(kind));
    if (fit === 'unknown') return undefined;
    if (fit === 'yes' && (!kind.tainted || toleratesControlPlane(podSpec.tolerations))) count += kind.count;
  }
  return count;
}
