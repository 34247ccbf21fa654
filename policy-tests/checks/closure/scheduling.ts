/**
 * closure-node: every pod finds a node. The scheduler places a pod only on a node whose labels its nodeSelector and
 * required node affinity match and whose NoSchedule and NoExecute taints it tolerates (the scheduler's NodeAffinity
 * and TaintToleration filters, through component-helpers' nodeaffinity and v1 Toleration.ToleratesTaint); a pod that
 * fits none stays Pending, a DaemonSet runs none, and the API server never says. A node's labels are what Talos gives
 * every node (kubernetes.io/os: linux) and its control-plane nodes (the node-role and
 * exclude-from-external-load-balancers labels, and the NoSchedule taint unless the machine config's
 * allowSchedulingOnControlPlanes), and the machine config's machine.nodeLabels, as the cluster facts state them; no
 * other program here labels nodes. What differs from node to node (its hostname, its architecture), and a key under
 * kubernetes.io that Kubernetes or a provider may write, is not known: a selection that turns on one is not judged.
 */
import { dig, list, obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { daemonSetPortClashes, heldByDaemonSets, hostPorts, PORT_FIX, surgeHeldPort, talosPortClash, type DaemonSetPorts } from './host-ports.ts';
import { nodeKinds, unknowable, viewOf, type NodeKind } from '../../model/scheduling/nodes.ts';
import { both, either, requiredNodeAffinityFits, type Fit } from '../../model/scheduling/node-affinity.ts';
import {
  CONTROL_PLANE_TAINT,
  podSpecOf,
  surgePods,
  toleratesControlPlane,
  unavailablePods,
  WORKLOAD_KINDS,
  type PodSpecRef,
} from '../../model/core/workloads.ts';

type Obj = Record<string, any>;

const SURGE_FIX = 'let the rolling update stop the old pod first: updateStrategy.rollingUpdate.maxSurge: 0, with maxUnavailable: 1';

const SELECT_FIX =
  "tolerate the taint of the nodes the pod is pinned to (tolerations: [{key: node-role.kubernetes.io/control-plane, operator: Exists, effect: NoSchedule}]), or select labels the nodes carry; a label the nodes' machine config gives them (machine.nodeLabels) goes in the cluster facts' machineConfig too";

/** How a pod fits one kind of node, and why not where it does not. */
function fitsNode(spec: Obj, node: NodeKind, unknownKeys: Set<string>): { fit: Fit; why?: string } {
  const fit = requiredNodeAffinityFits(spec, viewOf(node), unknownKeys);
  if (fit === 'no')
    return {
      fit,
      why: `the ${node.name} do not match its node selection (their labels: ${Object.entries(node.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')})`,
    };
  if (node.tainted && !toleratesControlPlane(spec.tolerations))
    return { fit: 'no', why: `the ${node.name} carry the taint ${CONTROL_PLANE_TAINT}:NoSchedule, which it does not tolerate` };
  const spread = spreadKeyFit(spec, node, unknownKeys);
  return spread.fit === 'no' ? spread : { fit: both(fit, spread.fit) };
}

/**
 * The PodTopologySpread filter's first question: a node without the label a DoNotSchedule constraint spreads over
 * takes no pod (UnschedulableAndUnresolvable, "node(s) didn't match pod topology spread constraints (missing
 * required label)"). Every node has its hostname; a key the gate cannot know leaves it not known.
 */
function spreadKeyFit(spec: Obj, node: NodeKind, unknownKeys: Set<string>): { fit: Fit; why?: string } {
  let fit: Fit = 'yes';
  for (const c of list(spec.topologySpreadConstraints).map(obj)) {
    const key = typeof c.topologyKey === 'string' ? c.topologyKey : '';
    if (c.whenUnsatisfiable !== 'DoNotSchedule' || key === 'kubernetes.io/hostname' || Object.hasOwn(node.labels, key)) continue;
    if (!unknowable(key, node))
      return { fit: 'no', why: `the ${node.name} carry no label ${key}, over which its topology spread constraint spreads it (DoNotSchedule)` };
    unknownKeys.add(key);
    fit = 'unknown';
  }
  return { fit };
}

/** Where a pod's node selection is written: its nodeSelector, else its node affinity, else the pod spec. */
const selectionPath = (pod: PodSpecRef) =>
  pod.spec.nodeSelector
    ? [...pod.at, 'nodeSelector']
    : dig(pod.spec, ['affinity', 'nodeAffinity'])
      ? [...pod.at, 'affinity', 'nodeAffinity']
      : pod.spec.topologySpreadConstraints
        ? [...pod.at, 'topologySpreadConstraints']
        : pod.at;

/** Where a pod fits: on some node (yes), on none (no, with why for each kind of node), or not known (the label keys the gate does not know). */
export function placement(
  spec: Obj,
  nodes: readonly NodeKind[],
): { fit: Fit; why: string[]; unknownKeys: string[]; taking: number; unknownKinds: number; fits: Fit[] } {
  const unknownKeys = new Set<string>();
  const fits = nodes.map((node) => fitsNode(spec, node, unknownKeys));
  const fit = fits.reduce<Fit>((sum, f) => either(sum, f.fit), 'no');
  // How many nodes surely take it, and how many kinds of node may.
  const taking = nodes.reduce((sum, node, i) => sum + (fits[i]!.fit === 'yes' ? node.count : 0), 0);
  const unknownKinds = fits.filter((f) => f.fit === 'unknown').length;
  return { fit, why: fits.flatMap((f) => (f.why ? [f.why] : [])), unknownKeys: [...unknownKeys], taking, unknownKinds, fits: fits.map((f) => f.fit) };
}

/**
 * What keeps a workload's own pods one to a node, and where it is written: a required pod anti-affinity term on
 * kubernetes.io/hostname whose label selector its own pod labels match (a term without one matches no pod), in its
 * own namespace (no namespaces, or a namespaceSelector of {}); or a host port (the scheduler's NodePorts filter puts
 * no two pods asking for one port and protocol on a node).
 */
export function oneToANode(r: Resource, pod: PodSpecRef): { cause: string; loosen: string; path: PathSegment[] } | undefined {
  const labels = obj(r.kind === 'Pod' ? dig(r.object, ['metadata', 'labels']) : dig(r.object, [...pod.at.slice(0, -1), 'metadata', 'labels']));
  const terms = list(dig(pod.spec, ['affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution']));
  const index = terms.findIndex((raw) => {
    const t = obj(raw);
    const ownNamespace = (list(t.namespaces).length === 0 || list(t.namespaces).includes(r.namespace)) && Object.keys(obj(t.namespaceSelector)).length === 0;
    return t.topologyKey === 'kubernetes.io/hostname' && t.labelSelector !== undefined && ownNamespace && selectorMatches(obj(t.labelSelector), labels);
  });
  if (index !== -1)
    return {
      cause: 'required pod anti-affinity on kubernetes.io/hostname',
      loosen: 'make the anti-affinity preferred',
      path: [...pod.at, 'affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', index],
    };
  const port = hostPorts(pod)[0];
  return port && { cause: `host port ${port.port}/${port.protocol}`, loosen: 'ask for no host port (a Service reaches the pods)', path: port.path };
}

/** A workload whose pods go one to a node asks for more pods at once than the nodes that take them: why, and its mend. */
function spreadFault(r: Resource, taking: number, { cause, loosen }: { cause: string; loosen: string }): { why: string; fix: string } | undefined {
  const raw = dig(r.object, ['spec', 'replicas']) ?? 1;
  if (!['Deployment', 'StatefulSet', 'ReplicaSet'].includes(r.kind) || typeof raw !== 'number' || !Number.isInteger(raw)) return undefined;
  const replicas = raw;
  const oneEach = `one to a node (${cause}), and ${taking} node${taking === 1 ? '' : 's'} take${taking === 1 ? 's' : ''} them`;
  if (replicas > taking)
    return {
      why: `its ${replicas} replicas go ${oneEach}: ${replicas - taking} stay Pending`,
      fix: `ask for at most as many replicas as there are nodes that take them, or ${loosen}`,
    };
  if (r.kind !== 'Deployment') return undefined;
  const surge = surgePods(r, replicas);
  if (surge && replicas + surge > taking && unavailablePods(r, replicas) === 0)
    return {
      why: `a rolling update starts ${surge} new pod${surge === 1 ? '' : 's'} beside its ${replicas} replicas before it takes any away (maxUnavailable 0), ${oneEach}: the new pod finds no node, and the rollout never ends`,
      fix: `let the rolling update take a pod away first (maxUnavailable: 1, or maxSurge: 0), or ${loosen}`,
    };
  return undefined;
}

function judgePod(
  ctx: CheckContext,
  { r, pod, placed }: { r: Resource; pod: PodSpecRef; placed: ReturnType<typeof placement> },
  { nodes, daemonSets }: { nodes: readonly NodeKind[]; daemonSets: readonly DaemonSetPorts[] },
): void {
  // A pod bound by nodeName skips the scheduler; its node is named, and names are not in the facts.
  if (pod.spec.nodeName) {
    ctx.notJudged(
      { resource: r, path: [...pod.at, 'nodeName'] },
      `${r.kind} ${r.name} names its node, and the cluster facts name none: whether that node takes it is not judged`,
    );
    return;
  }
  const { fit, why, unknownKeys, taking: anyPort, unknownKinds, fits } = placed;
  // Where a DaemonSet holds one of its host ports on every node, no pod of it fits.
  const held = r.kind === 'DaemonSet' ? new Map<number, Resource>() : heldByDaemonSets(r, hostPorts(pod), daemonSets);
  const taking = anyPort - [...held.keys()].reduce((sum, i) => sum + (fits[i] === 'yes' ? nodes[i]!.count : 0), 0);
  const place = { resource: r, path: selectionPath(pod) };
  const clash = fit !== 'no' ? talosPortClash(pod, nodes, fits) : undefined;
  if (clash) {
    ctx.fail({ resource: r, path: clash.path }, `${r.kind} ${r.name}: ${clash.text}`, PORT_FIX);
    return;
  }
  const holder = [...held.values()][0];
  if (fit === 'yes' && taking === 0 && holder) {
    const port = hostPorts(pod)[0]!;
    ctx.fail(
      { resource: r, path: port.path },
      `${r.kind} ${r.name}: its host port ${port.port}/${port.protocol} is held on every node that takes it by ${holder.kind} ${holder.name}, so its pods stay Pending`,
      PORT_FIX,
    );
    return;
  }
  const surge = surgeHeldPort(r, pod);
  if (surge) ctx.fail({ resource: r, path: surge.path }, `${r.kind} ${r.name}: ${surge.text}`, SURGE_FIX);
  const single = oneToANode(r, pod);
  const spread = fit === 'yes' && single ? spreadFault(r, taking, single) : undefined;
  if (spread && single) {
    const at = { resource: r, path: single.path };
    if (unknownKinds > 0)
      ctx.notJudged(
        at,
        `${r.kind} ${r.name} puts its pods one to a node, and whether more than the ${taking} nodes that surely take them do is not judged (it selects by ${unknownKeys.join(', ')})`,
      );
    else ctx.fail(at, `${r.kind} ${r.name}: ${spread.why}`, spread.fix);
  } else if (fit === 'unknown')
    ctx.notJudged(
      place,
      `${r.kind} ${r.name} selects nodes by ${unknownKeys.join(', ')}, which the cluster facts do not give the nodes: whether a node takes its pods is not judged${unknownKeys.some((k) => k.endsWith('kubernetes.io/arch')) ? " (the nodes' architecture is the cluster fact nodeArchitecture, which the kubelet writes as kubernetes.io/arch)" : ''}`,
    );
  else if (fit === 'no')
    ctx.fail(
      place,
      `${r.kind} ${r.name}: no node takes it, so ${r.kind === 'DaemonSet' ? 'it runs no pod' : 'its pods stay Pending'}: ${why.join('; ')}`,
      SELECT_FIX,
    );
}

export const nodeClosureCheck: PolicyCheck = {
  id: 'closure-node',
  description:
    "Every pod finds a node: its nodeSelector and required node affinity match the labels Talos and the kubelet give some node (kubernetes.io/os: linux on every node, under the beta key too, and kubernetes.io/arch where the cluster facts' nodeArchitecture says it; node-role.kubernetes.io/control-plane and node.kubernetes.io/exclude-from-external-load-balancers on the control-plane nodes), and it tolerates that node's taints (the control-plane nodes' node-role.kubernetes.io/control-plane:NoSchedule, unless the cluster facts' machineConfig allows scheduling on them), and the node carries the label each of its DoNotSchedule topology spread constraints spreads over (no node has a zone: no cloud provider runs here); otherwise the scheduler leaves it Pending, or a DaemonSet runs no pod. No host port it asks for (a hostPort, or any port on the host's network) is one Talos' own processes listen on (the kubelet's, apid's; etcd's, the API server's, the controller manager's, the scheduler's and trustd's on the control-plane nodes), nor one a DaemonSet holds on every node it could take (two DaemonSets asking the same nodes for one, or a workload's pods finding it held wherever they fit), nor held by a DaemonSet whose rolling update surges (the new pod waits for the old one's port). A workload whose pods go one to a node (required pod anti-affinity on kubernetes.io/hostname, or a host port) asks for no more replicas than the nodes that take them, and a Deployment's rolling update that starts a pod before it takes one away has a node for it. A node carries no other label but those the machine config's machine.nodeLabels gives it, as the cluster facts' machineConfig states; a selection that turns on a label that differs from node to node or that Kubernetes may write (kubernetes.io/hostname, kubernetes.io/arch without nodeArchitecture) is said not judged (invariants P1).",
  invariants: ['P1'],
  remediation: SELECT_FIX,
  reads: { kinds: [...WORKLOAD_KINDS, 'ConfigMap'] },
  exemptible: false,
  run(ctx) {
    const facts = ctx.repo.facts;
    if (!facts || !(facts.nodeCount > 0)) return;
    const nodes = nodeKinds(facts);
    if (nodes.every((n) => n.tainted)) {
      if (ctx.repo.factsResource)
        ctx.fail(
          { resource: ctx.repo.factsResource, path: ['data', 'machineConfig'] },
          'every node is a control-plane node, and Talos taints them node-role.kubernetes.io/control-plane:NoSchedule unless the machine config allows scheduling on them: no pod without that toleration runs',
          'set cluster.allowSchedulingOnControlPlanes: true in the machine config and in the cluster facts (machineConfig), or add worker nodes',
        );
      return;
    }
    // Each pod placed once: the DaemonSets' places decide which host ports the other pods find taken.
    const pods = ctx.resources.flatMap((r) => {
      const pod = podSpecOf(r);
      return pod ? [{ r, pod, placed: placement(pod.spec, nodes) }] : [];
    });
    const daemonSets: DaemonSetPorts[] = pods.flatMap(({ r, pod, placed }) => {
      const ports = r.kind === 'DaemonSet' && !pod.spec.nodeName ? hostPorts(pod) : [];
      return ports.length ? [{ r, ports, fits: placed.fits }] : [];
    });
    for (const p of pods) judgePod(ctx, p, { nodes, daemonSets });
    for (const { r, path, text } of daemonSetPortClashes(daemonSets, nodes)) ctx.fail({ resource: r, path }, `${r.kind} ${r.name}: ${text}`, PORT_FIX);
  },
};
