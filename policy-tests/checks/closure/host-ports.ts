/**
 * A pod's host ports, as the scheduler and the node see them: the ports it asks the node for (a hostPort, or every
 * port of a pod on the host's network), and the ones Talos' own processes already listen on there. The scheduler
 * knows only pods, so it places a pod on a node whose kubelet, apid or etcd holds its port; the container then
 * cannot bind it, or the node's own port is taken over by the pod's.
 */
import { dig, list, obj } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { containersOf, runsAlongside, type PodSpecRef } from '../../model/core/workloads.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Fit } from '../../model/scheduling/node-affinity.ts';
import type { NodeKind } from '../../model/scheduling/nodes.ts';

export const PORT_FIX =
  "ask for a host port nothing else on those nodes listens on (another DaemonSet, or Talos itself: the kubelet's 10250, apid's 50000; on the control-plane nodes etcd's 2379 and 2380, the API server's 6443, 10257, 10259, trustd's 50001), or for none: a Service reaches the pod";

const portsBySpec = new WeakMap<object, readonly HostPort[]>();

/** A host port a pod asks for: its number, protocol and address (none, or 0.0.0.0, for every address of the node). */
export interface HostPort {
  port: number;
  protocol: string;
  hostIP: string;
  path: PathSegment[];
}

/**
 * The host ports a pod asks for (the scheduler's GetHostPorts): each port of its containers and sidecars with a
 * hostPort, and on the host's network every port, whose hostPort the API server defaults to the container port.
 */
export function hostPorts(pod: PodSpecRef): readonly HostPort[] {
  // Asked of one pod by several rules: read once per pod spec.
  const known = portsBySpec.get(pod.spec);
  if (known) return known;
  const out: HostPort[] = [];
  for (const c of containersOf(pod).filter(runsAlongside))
    list(c.container.ports).forEach((raw, i) => {
      const p = obj(raw);
      const port = p.hostPort ?? (pod.spec.hostNetwork === true ? p.containerPort : undefined);
      if (typeof port === 'number' && port > 0)
        out.push({
          port,
          protocol: typeof p.protocol === 'string' ? p.protocol : 'TCP',
          hostIP: typeof p.hostIP === 'string' ? p.hostIP : '',
          path: [...c.at, 'ports', i, p.hostPort !== undefined ? 'hostPort' : 'containerPort'],
        });
    });
  portsBySpec.set(pod.spec, out);
  return out;
}

/** The ports Talos' own processes listen on, on every node and on the control-plane nodes (pkg/machinery/constants; the controller manager's and the scheduler's as the bootstrap patch opens them). */
const TALOS_LISTENERS: Readonly<Record<'all' | 'control-plane', ReadonlyMap<number, string>>> = {
  all: new Map([
    [10250, 'kubelet'],
    [50000, 'apid'],
  ]),
  'control-plane': new Map([
    [2379, 'etcd'],
    [2380, 'etcd'],
    [6443, 'API server'],
    [10257, 'controller manager'],
    [10259, 'scheduler'],
    [50001, 'trustd'],
  ]),
};

/** A host port of the pod taken by Talos on a kind of node it may land on: the pod cannot have it there. */
export function talosPortClash(pod: PodSpecRef, nodes: readonly NodeKind[], fits: readonly Fit[]): { path: PathSegment[]; text: string } | undefined {
  for (const port of hostPorts(pod)) {
    if (port.protocol !== 'TCP') continue;
    for (const [i, node] of nodes.entries()) {
      const owner = TALOS_LISTENERS.all.get(port.port) ?? (node.controlPlane ? TALOS_LISTENERS['control-plane'].get(port.port) : undefined);
      if (owner && fits[i] !== 'no')
        return { path: port.path, text: `its host port ${port.port}/TCP is the one Talos' ${owner} listens on, on the ${node.name}: the two cannot share it` };
    }
  }
  return undefined;
}

/** The scheduler's HostPortInfo.CheckConflict: one port and protocol, on the same address or on every address. */
const clash = (a: HostPort, b: HostPort): boolean =>
  a.port === b.port && a.protocol === b.protocol && (['', '0.0.0.0'].includes(a.hostIP) || ['', '0.0.0.0'].includes(b.hostIP) || a.hostIP === b.hostIP);

/** A DaemonSet as the host ports see it: where it surely runs a pod on every node, and the ports each pod asks for. */
export interface DaemonSetPorts {
  r: Resource;
  ports: readonly HostPort[];
  fits: readonly Fit[];
}

/**
 * Two DaemonSets that ask every node of a kind for one host port: each node's port goes to the pod the scheduler
 * places first, and the other DaemonSet's pod there stays Pending. Said of the later of the two, at its port.
 */
export function daemonSetPortClashes(daemonSets: readonly DaemonSetPorts[], nodes: readonly NodeKind[]): { r: Resource; path: PathSegment[]; text: string }[] {
  const out: { r: Resource; path: PathSegment[]; text: string }[] = [];
  daemonSets.forEach((later, j) => {
    for (const earlier of daemonSets.slice(0, j)) {
      const shared = nodes.filter((_, i) => later.fits[i] === 'yes' && earlier.fits[i] === 'yes');
      const port = later.ports.find((p) => earlier.ports.some((q) => clash(p, q)));
      if (!port || shared.length === 0) continue;
      out.push({
        r: later.r,
        path: port.path,
        text: `its host port ${port.port}/${port.protocol} is one ${earlier.r.kind} ${earlier.r.name} also asks every node for, on the ${shared.map((n) => n.name).join(' and ')}: one of the two runs no pod there`,
      });
      return;
    }
  });
  return out;
}

/**
 * A DaemonSet whose rolling update surges (updateStrategy.rollingUpdate.maxSurge above zero) starts each node's new
 * pod beside the old one, and deletes the old one once the new one is available (pkg/controller/daemon/update.go):
 * while the old pod holds a host port, the new one never fits on its node, and the update stops at the first nodes.
 */
export function surgeHeldPort(r: Resource, pod: PodSpecRef): { path: PathSegment[]; text: string } | undefined {
  if (r.kind !== 'DaemonSet') return undefined;
  const surge = dig(r.object, ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge']);
  const surges = (typeof surge === 'number' && surge > 0) || (typeof surge === 'string' && /^\d+%$/.test(surge) && parseInt(surge, 10) > 0);
  const port = hostPorts(pod)[0];
  if (!surges || !port || dig(r.object, ['spec', 'updateStrategy', 'type']) === 'OnDelete') return undefined;
  return {
    path: ['spec', 'updateStrategy', 'rollingUpdate', 'maxSurge'],
    text: `its rolling update starts each node's new pod beside the old one (maxSurge ${String(surge)}), and the old one holds host port ${port.port}/${port.protocol} until the new one is available: the new pod never fits on its node, and the update never gets past the first nodes`,
  };
}

/**
 * The kinds of node where a DaemonSet other than `self` surely holds one of the pod's host ports on every node, by
 * the kind's index, with the DaemonSet: no other pod asking for that port fits there.
 */
export function heldByDaemonSets(self: Resource, ports: readonly HostPort[], daemonSets: readonly DaemonSetPorts[]): Map<number, Resource> {
  const held = new Map<number, Resource>();
  for (const ds of daemonSets) {
    if (ds.r === self || !ports.some((p) => ds.ports.some((q) => clash(p, q)))) continue;
    ds.fits.forEach((fit, i) => {
      if (fit === 'yes' && !held.has(i)) held.set(i, ds.r);
    });
  }
  return held;
}
