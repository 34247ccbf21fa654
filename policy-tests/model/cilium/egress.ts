/**
 * Whether the policies that select a pod let it open a connection to another pod on a port, as Cilium enforces them
 * (a NetworkPolicy and a CiliumNetworkPolicy alike: a pod any of them selects for egress may send only what some rule
 * of them allows, and a deny rule wins). NetworkPolicy: `to` peers by namespace and pod selector, `ports` by number,
 * name (the destination's container port) or range. CiliumNetworkPolicy: `toEndpoints` (the policy's namespace unless
 * a selector names one by `k8s:io.kubernetes.pod.namespace` or a namespace label), `toEntities` `cluster` and `all`,
 * `toServices` by name, `toPorts` by number, name or range and protocol; an address block (ipBlock, toCIDR,
 * toCIDRSet) selects no pod, and a node by the nodes it holds (node-addresses.ts). What the gate cannot place a pod in
 * (a cloud group, a Service selector, a deny rule, a clusterwide policy) leaves the verdict unknown, never a refusal. A
 * pod on the node's network (hostNetwork) is no endpoint: no policy holds its own egress, and a connection to it
 * reaches the node, which only a rule to every destination, the node entities or a block of every node let through.
 */
import { dig, list, obj, str, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { scalarText } from '../core/text.ts';
import { samePort } from '../cluster/pod-templates.ts';
import type { Placed, PodPorts } from '../cluster/network-reach.ts';
import { addressVerdict, type AddressPlace, type PeerFacts, type RuleVerdict } from './node-addresses.ts';

export type { RuleVerdict };

/** Where the connection goes: a pod, the pod port (a number or its container port's name), the Service it was dialled through, and its protocol (TCP unless said). */
export interface Destination {
  pod: PodPorts;
  port: string;
  service: { namespace: string; name: string };
  protocol?: Protocol;
}

/** The protocols a connection the gate follows uses: TCP, and UDP for DNS. */
export type Protocol = 'TCP' | 'UDP';

export type EgressVerdict = { allowed: true } | { refusedBy: Resource[] } | { unknown: string };

/** One verdict for a connection a Service balances among its pods, with the pods that decided it. */
export interface PodsVerdict {
  verdict: EgressVerdict;
  /** The place, in the list of verdicts, of the pods that decided it: the first that refuse it, else the first not known. */
  at: number;
  /** Other pods let it through: only the connections the Service sends to those pods fail. */
  partly: boolean;
}

/**
 * One verdict for a connection a Service balances among its pods (each connection to one of its endpoints, picked
 * anew): refused where the policies of any of its pods refuse it, for every connection sent there times out; else not
 * known where one cannot be judged; else allowed. Undefined where no pod serves it.
 */
export function acrossPods(verdicts: readonly EgressVerdict[]): PodsVerdict | undefined {
  if (verdicts.length === 0) return undefined;
  const refused = verdicts.findIndex((v) => 'refusedBy' in v);
  const at =
    refused >= 0
      ? refused
      : Math.max(
          0,
          verdicts.findIndex((v) => 'unknown' in v),
        );
  return { verdict: verdicts[at]!, at, partly: verdicts.some((v) => 'allowed' in v) };
}

const NAMESPACE_KEY = 'io.kubernetes.pod.namespace';
const NAMESPACE_LABEL_PREFIX = 'io.cilium.k8s.namespace.labels.';

/** A Cilium selector key as the agent reads a pod's labels: `k8s:` and no source both match a pod label; any other source none. */
function podKey(key: string): string | undefined {
  const colon = key.indexOf(':');
  if (colon < 0) return key;
  const source = key.slice(0, colon);
  return source === 'k8s' || source === 'any' ? key.slice(colon + 1) : undefined;
}

/** The labels Cilium gives a pod's endpoint: its own, its namespace, and its namespace's labels. */
function endpointLabels(pod: PodPorts, namespaceLabels: ReadonlyMap<string, Obj>): Obj {
  const ns = Object.fromEntries(Object.entries(namespaceLabels.get(pod.namespace) ?? {}).map(([k, v]) => [`${NAMESPACE_LABEL_PREFIX}${k}`, v]));
  return { ...pod.labels, ...ns, [NAMESPACE_KEY]: pod.namespace };
}

/** A Cilium endpoint selector read against pod labels: each key by its source, unmatchable where the source is not a pod's. */
export function ciliumSelects(selector: unknown, pod: PodPorts, namespaceLabels: ReadonlyMap<string, Obj>, policyNamespace: string): boolean {
  const s = obj(selector);
  const rekey = (key: unknown) => podKey(str(key)) ?? '\0unmatchable';
  const matchLabels = Object.fromEntries(Object.entries(obj(s.matchLabels)).map(([k, v]) => [rekey(k), v]));
  const matchExpressions = list(s.matchExpressions).map((e) => ({ ...obj(e), key: rekey(obj(e).key) }));
  const namesNamespace = [...Object.keys(matchLabels), ...matchExpressions.map((e) => e.key)].some(
    (k) => k === NAMESPACE_KEY || k.startsWith(NAMESPACE_LABEL_PREFIX),
  );
  if (!namesNamespace && pod.namespace !== policyNamespace) return false;
  return selectorMatches({ matchLabels, matchExpressions }, endpointLabels(pod, namespaceLabels));
}

/** The port a connection goes to, as a rule's port is held to it: the same port (by number, or a name it has), and its number. */
export interface TargetPort {
  same: (port: string) => boolean;
  number: number;
  /** TCP where not said. */
  protocol?: Protocol;
}

/** A pod's port: a number, or the name one of its containers gives a number. */
export const podTarget = (pod: PodPorts, port: string, protocol?: Protocol): TargetPort => ({
  same: (p) => samePort(pod, p, port),
  number: Number(pod.named.get(port) ?? port),
  ...(protocol ? { protocol } : {}),
});
const podPort = (dest: Destination): TargetPort => podTarget(dest.pod, dest.port, dest.protocol);

/**
 * Whether a port list admits the port, on its protocol (or any, Cilium's ANY); a list that is absent or empty admits
 * every port. A port that names no protocol is TCP in a NetworkPolicy, any protocol in a Cilium policy (its CRD:
 * "If omitted or empty, any protocol matches").
 */
export function portsAdmit(ports: Obj[], target: TargetPort, unsaid: 'TCP' | 'ANY' = 'TCP'): boolean {
  if (ports.length === 0) return true;
  return ports.some((p) => {
    const protocol = str(p.protocol) || unsaid;
    if (protocol !== (target.protocol ?? 'TCP') && protocol !== 'ANY') return false;
    if (p.port === undefined) return true;
    const from = scalarText(p.port);
    if (target.same(from) || from === '0') return true;
    const end = Number(scalarText(p.endPort ?? p.endport ?? ''));
    return Number.isInteger(end) && end > 0 && Number(from) <= target.number && target.number <= end;
  });
}

/** Whether a Cilium rule's toPorts admit the port: absent or empty, or one of its entries' ports. */
export const toPortsAdmit = (rule: Obj, target: TargetPort): boolean => {
  const toPorts = list(rule.toPorts).map(obj);
  return toPorts.length === 0 || toPorts.some((tp) => portsAdmit(list(tp.ports).map(obj), target, 'ANY'));
};

/** The strongest of several verdicts on one rule: one peer that admits admits; else one not judged leaves it so. */
export const anyAdmits = (verdicts: readonly RuleVerdict[]): RuleVerdict =>
  verdicts.includes('admits') ? 'admits' : verdicts.includes('unknown') ? 'unknown' : 'no';

/** Where a destination pod is for an address peer: a pod's endpoint, or, on the node's network, any node (some of which a block may leave out: not judged). */
const destinationPlace = (dest: Destination, peers: PeerFacts): AddressPlace =>
  dest.pod.hostNetwork ? { nodes: peers.nodes, at: 'all', partly: 'unknown' } : { pod: true };

function networkPolicyRule(rule: Obj, placed: Placed, dest: Destination, peers: PeerFacts): RuleVerdict {
  if (!portsAdmit(list(rule.ports).map(obj), podPort(dest))) return 'no';
  const to = list(rule.to).map(obj);
  if (to.length === 0) return 'admits';
  const verdicts = to.map((peer): RuleVerdict => {
    if ('ipBlock' in peer) return 'no';
    // A pod on the node's network has the node's identity, not its labels: no namespace or pod peer reaches it.
    if (dest.pod.hostNetwork) return 'no';
    const inNamespace =
      'namespaceSelector' in peer
        ? selectorMatches(obj(peer.namespaceSelector), peers.namespaces.get(dest.pod.namespace))
        : dest.pod.namespace === placed.namespace;
    return inNamespace && (!('podSelector' in peer) || selectorMatches(obj(peer.podSelector), dest.pod.labels)) ? 'admits' : 'no';
  });
  return anyAdmits([...verdicts, addressVerdict(rule, { direction: 'to', kind: 'NetworkPolicy' }, destinationPlace(dest, peers))]);
}

/**
 * Cilium's peer fields of an egress rule: a rule with none of them is one of ports alone, which Cilium applies to every
 * destination ("Layer 4 policy can be specified in addition to layer 3 policies or independently", its layer-4 docs).
 */
export const CILIUM_EGRESS_PEERS = ['toEndpoints', 'toEntities', 'toCIDR', 'toCIDRSet', 'toFQDNs', 'toServices', 'toGroups', 'toNodes', 'toRequires'];

/** Whether a Cilium egress rule names no peer: its ports, to every destination. */
export const portsAlone = (rule: Obj): boolean => !CILIUM_EGRESS_PEERS.some((k) => rule[k] !== undefined);

function ciliumRule(rule: Obj, placed: Placed, dest: Destination, peers: PeerFacts): RuleVerdict {
  if (!toPortsAdmit(rule, podPort(dest))) return 'no';
  if (portsAlone(rule)) return 'admits';
  const byAddress = addressVerdict(rule, { direction: 'to', kind: 'Cilium' }, destinationPlace(dest, peers));
  if (dest.pod.hostNetwork) return anyAdmits([hostNetworkRule(rule), byAddress]);
  if (list(rule.toEndpoints).some((s) => ciliumSelects(s, dest.pod, peers.namespaces, placed.namespace))) return 'admits';
  if (list(rule.toEntities).some((e) => e === 'cluster' || e === 'all')) return 'admits';
  const services = list(rule.toServices).map(obj);
  const named = services.map((s) => obj(s.k8sService)).filter((k) => str(k.serviceName) !== '');
  if (named.some((k) => k.serviceName === dest.service.name && (str(k.namespace) || placed.namespace) === dest.service.namespace)) return 'admits';
  if (['toGroups', 'toRequires'].some((k) => rule[k] !== undefined) || services.length > named.length) return 'unknown';
  return byAddress;
}

/** What a finding adds where the pods reached are on the node's network: why a rule by their labels does not reach them. */
export const onNodeNetwork = (pod: PodPorts): string =>
  pod.hostNetwork
    ? " (its pods are on the node's network, with the node's identity: only a rule to every destination, Cilium's host and remote-node entities, or an address block of every node where Cilium selects nodes by address, reaches them)"
    : '';

/**
 * A Cilium rule's entities and groups to a pod on the node's network: the connection reaches its node, the `host`
 * entity on the client's own node and `remote-node` on any other (Cilium's entity.go), so only both (or `cluster`,
 * `all`) reach it wherever the pods run; one of them alone, a group or a Service is not judged. An address block is
 * judged by the nodes it holds (node-addresses.ts).
 */
function hostNetworkRule(rule: Obj): RuleVerdict {
  const entities = new Set(list(rule.toEntities).map(str));
  if (entities.has('cluster') || entities.has('all') || (entities.has('host') && entities.has('remote-node'))) return 'admits';
  const unread = entities.has('host') || entities.has('remote-node') || ['toGroups', 'toRequires', 'toServices'].some((k) => rule[k] !== undefined);
  return unread ? 'unknown' : 'no';
}

/** How one egress rule of a policy stands to the destination. */
export type RuleJudge = (rule: Obj, placed: Placed) => RuleVerdict;

/** The verdict on a connection from `client` to `dest`, by the NetworkPolicies and CiliumNetworkPolicies given (each with its namespace). */
export const egressVerdict = (policies: readonly Placed[], client: PodPorts, dest: Destination, peers: PeerFacts): EgressVerdict =>
  policyVerdict(policies, client, 'egress', {
    networkPolicy: (rule, placed) => networkPolicyRule(rule, placed, dest, peers),
    cilium: (rule, placed) => ciliumRule(rule, placed, dest, peers),
    namespaceLabels: peers.namespaces,
  });

/**
 * The port the API server listens on, which the policy sees: Talos runs kube-apiserver on 6443 on each control-plane
 * node, and Cilium enforces egress after the `kubernetes` Service's address is translated, so a rule for the
 * Service's 443 lets nothing through.
 */
export const API_SERVER_PORT = 6443;

/** The API server's port: only its number reaches it (a port name is a pod's). */
export const API_SERVER_TARGET: TargetPort = { same: (port) => port === String(API_SERVER_PORT), number: API_SERVER_PORT };

/**
 * Where the API server is for an address peer: at every control-plane node's address (the `kubernetes` Service's
 * endpoints, among which each connection is balanced, and whence each instance calls a webhook), so a block that
 * holds only some of them loses the calls to, or from, the others.
 */
export const apiServerPlace = (peers: PeerFacts): AddressPlace => ({ nodes: peers.nodes, at: 'controlPlane', partly: 'no' });

/**
 * The verdict on a connection from `client` to the API server. It is no pod: a NetworkPolicy lets it through only by a
 * rule with no peer (every destination) or an address block that holds every control-plane node, under agents that
 * match nodes by CIDR (node-addresses.ts); Cilium by the entities that hold its identity (`kube-apiserver`, and
 * `cluster` and `all`, which include it; `host` or `remote-node` alone hold it only on some nodes, not judged),
 * `toServices` naming default/kubernetes, or the same address blocks.
 */
export const apiServerEgressVerdict = (policies: readonly Placed[], client: PodPorts, peers: PeerFacts): EgressVerdict =>
  policyVerdict(policies, client, 'egress', {
    namespaceLabels: peers.namespaces,
    networkPolicy(rule) {
      if (!portsAdmit(list(rule.ports).map(obj), API_SERVER_TARGET)) return 'no';
      if (list(rule.to).length === 0) return 'admits';
      return addressVerdict(rule, { direction: 'to', kind: 'NetworkPolicy' }, apiServerPlace(peers));
    },
    cilium(rule) {
      if (!toPortsAdmit(rule, API_SERVER_TARGET)) return 'no';
      if (portsAlone(rule)) return 'admits';
      const entities = list(rule.toEntities).map(str);
      if (entities.some((e) => e === 'kube-apiserver' || e === 'cluster' || e === 'all')) return 'admits';
      const service = list(rule.toServices).map((s) => obj(obj(s).k8sService));
      if (service.some((k) => k.serviceName === 'kubernetes' && str(k.namespace) === 'default')) return 'admits';
      const unread = entities.some((e) => e === 'host' || e === 'remote-node') || ['toGroups', 'toRequires'].some((k) => rule[k] !== undefined);
      return anyAdmits([unread ? 'unknown' : 'no', addressVerdict(rule, { direction: 'to', kind: 'Cilium' }, apiServerPlace(peers))]);
    },
  });

/**
 * Whether a policy isolates the direction for the pods it selects. Cilium's by a rule list of it. A NetworkPolicy as
 * Cilium 1.19's ParseNetworkPolicy reads it, which is not the API's reading: it takes every rule of both lists
 * whatever policyTypes says (egress rules under policyTypes: [Ingress] are enforced, where the API says they are
 * ignored), and with no rule of a direction isolates ingress unless policyTypes names Egress alone, egress only where
 * policyTypes names it.
 */
function isolates(policy: Resource, direction: Direction): boolean {
  if (policy.kind !== 'NetworkPolicy')
    return dig(policy.object, ['spec', direction]) !== undefined || dig(policy.object, ['spec', `${direction}Deny`]) !== undefined;
  if (list(dig(policy.object, ['spec', direction])).length > 0) return true;
  const types = list(dig(policy.object, ['spec', 'policyTypes']));
  return direction === 'ingress' ? types.includes('Ingress') || !types.includes('Egress') : types.includes('Egress');
}

export type Direction = 'ingress' | 'egress';

/**
 * The verdict on one direction of a pod's traffic, by the policies given (each with its namespace) that select the pod
 * and isolate that direction, as Cilium enforces them together: allowed where none does or some rule of them admits;
 * unknown where a clusterwide policy or a deny rule selects it (not placed), or no rule admits and one could not be
 * read; else refused by all of them. A pod on the node's network is no endpoint, and no policy holds it.
 */
export function policyVerdict(
  policies: readonly Placed[],
  pod: PodPorts,
  direction: Direction,
  judges: { networkPolicy: RuleJudge; cilium: RuleJudge; namespaceLabels: ReadonlyMap<string, Obj> },
): EgressVerdict {
  if (pod.hostNetwork) return { allowed: true };
  const { namespaceLabels } = judges;
  const selecting = policies.filter(({ policy, namespace }) => {
    if (!isolates(policy, direction)) return false;
    // A clusterwide policy's selector reaches every namespace.
    if (policy.kind === 'CiliumClusterwideNetworkPolicy')
      return ciliumSelects(dig(policy.object, ['spec', 'endpointSelector']), pod, namespaceLabels, pod.namespace);
    if (namespace !== pod.namespace) return false;
    return policy.kind === 'NetworkPolicy'
      ? selectorMatches(obj(dig(policy.object, ['spec', 'podSelector'])), pod.labels)
      : ciliumSelects(dig(policy.object, ['spec', 'endpointSelector']), pod, namespaceLabels, namespace);
  });
  if (selecting.length === 0) return { allowed: true };
  const unplaced = selecting.find(
    ({ policy }) => policy.kind === 'CiliumClusterwideNetworkPolicy' || dig(policy.object, ['spec', `${direction}Deny`]) !== undefined,
  );
  if (unplaced)
    return { unknown: `${unplaced.policy.kind} ${unplaced.policy.name} (a clusterwide policy or a deny rule, which the gate does not place pods in)` };
  let unknown: string | undefined;
  for (const placed of selecting) {
    const judge = placed.policy.kind === 'NetworkPolicy' ? judges.networkPolicy : judges.cilium;
    for (const rule of list(dig(placed.policy.object, ['spec', direction])).map(obj)) {
      const verdict = judge(rule, placed);
      if (verdict === 'admits') return { allowed: true };
      if (verdict === 'unknown')
        unknown ??= `${placed.policy.kind} ${placed.policy.name} (a group or a Service selector, one node entity alone, an address block that holds some of the nodes a pod may be on, or where the cluster facts give no nodes, or pods the gate does not see, which the gate does not place pods in)`;
    }
  }
  return unknown ? { unknown } : { refusedBy: selecting.map((p) => p.policy) };
}
