/**
 * Whether the policies that select a pod let a client in on a port, as Cilium enforces NetworkPolicy and
 * CiliumNetworkPolicy together. A client of pods is let in by a NetworkPolicy peer of its namespace and labels, or
 * Cilium's fromEndpoints, or the entities that hold every pod (`cluster`, `all`); pods on the node's network arrive
 * as their node, which only a rule with no peer or the node entities admit. The API server calls admission and conversion webhooks and aggregated APIs from the
 * control-plane nodes' network (Talos runs kube-apiserver with hostNetwork), so it is no pod. A NetworkPolicy `from`
 * by namespace or pods never admits it; a rule with no peer does, as does an address block that holds every
 * control-plane node under agents that match nodes by CIDR (node-addresses.ts; a block never selects a pod, so it
 * admits no client of pods, and a client on the node's network by the nodes it holds). Cilium admits it by the
 * entities that hold its identity (`kube-apiserver`, and `cluster` and `all`, which include it: Cilium's
 * InitEntities), by a rule with ports and no peer, or by the same address blocks; `host` or `remote-node` alone hold
 * it on some nodes only (not judged); a deny rule or a clusterwide policy is not placed (not judged).
 */
import { list, obj, str, type Obj } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import type { Client, Placed, PodPorts } from '../cluster/network-reach.ts';
import { anyAdmits, apiServerPlace, ciliumSelects, podTarget, policyVerdict, portsAdmit, toPortsAdmit, type EgressVerdict, type TargetPort } from './egress.ts';
import { addressVerdict, type AddressPlace, type AddressScope, type PeerFacts, type RuleVerdict } from './node-addresses.ts';

/**
 * Who opens the connection: the API server (no pod: it runs on the control-plane nodes' network), or the pods of a
 * namespace, with their labels where the gate sees them and whether they run on the node's network (Client).
 */
export type IngressClient = { apiServer: true } | Client;

/** Cilium's peer fields of an ingress rule: any of them makes the rule one for those peers only. */
const CILIUM_PEERS = ['fromEndpoints', 'fromEntities', 'fromCIDR', 'fromCIDRSet', 'fromRequires', 'fromGroups', 'fromNodes'];
const UNPLACED_PEERS = ['fromRequires', 'fromGroups', 'fromNodes'];

/** Whether one NetworkPolicy peer (not an address block) admits a client of pods: its namespace, and its labels where known. */
function networkPolicyPeer(peer: Obj, client: Client, policyNamespace: string, namespaceLabels: ReadonlyMap<string, Obj>): boolean {
  // Pods on the node's network arrive with the node's identity, which no namespace or pod peer holds.
  if (client.onNodeNetwork) return false;
  const inNamespace =
    'namespaceSelector' in peer ? selectorMatches(obj(peer.namespaceSelector), namespaceLabels.get(client.namespace)) : client.namespace === policyNamespace;
  // Pods the gate does not see (an unrendered chart) are judged by their namespace alone.
  return inNamespace && (!('podSelector' in peer) || !client.pods || client.pods.some((labels) => selectorMatches(obj(peer.podSelector), labels)));
}

/** What one rule is judged against: the pod's port, the client, the policy (with its namespace), the namespaces' labels and the nodes. */
interface RuleScope {
  target: TargetPort;
  client: IngressClient;
  placed: Placed;
  peers: PeerFacts;
}

/**
 * Where the client is for an address peer: the API server at every control-plane node; pods on the node's network at
 * any node (a block that leaves some out lets them in from some nodes: not judged); pods the gate sees at their
 * endpoints, which no block selects; pods it does not see, anywhere (not judged).
 */
function clientPlace(client: IngressClient, peers: PeerFacts): AddressPlace {
  if ('apiServer' in client) return apiServerPlace(peers);
  if (client.onNodeNetwork) return { nodes: peers.nodes, at: 'all', partly: 'unknown' };
  return client.pods ? { pod: true } : { nodes: undefined, at: 'all', partly: 'unknown' };
}

/** A rule's address peers judged against its client. */
const byAddress = (rule: Obj, kind: AddressScope['kind'], scope: RuleScope): RuleVerdict =>
  addressVerdict(rule, { direction: 'from', kind }, clientPlace(scope.client, scope.peers));

function networkPolicyRule(rule: Obj, scope: RuleScope): RuleVerdict {
  const { target, client, placed, peers } = scope;
  if (!portsAdmit(list(rule.ports).map(obj), target)) return 'no';
  const from = list(rule.from).map(obj);
  if (from.length === 0) return 'admits';
  if ('apiServer' in client) return byAddress(rule, 'NetworkPolicy', scope);
  if (from.some((peer) => !('ipBlock' in peer) && networkPolicyPeer(peer, client, placed.namespace, peers.namespaces))) return 'admits';
  return byAddress(rule, 'NetworkPolicy', scope);
}

/** Whether a Cilium fromEndpoints selector admits a client of pods; unknown where their labels are not seen and they would decide. */
function ciliumEndpoints(selectors: unknown[], client: Client, placed: Placed, namespaceLabels: ReadonlyMap<string, Obj>): RuleVerdict {
  if (client.onNodeNetwork || selectors.length === 0) return 'no';
  const admits = (labels: Obj) =>
    selectors.some((s) => ciliumSelects(s, { namespace: client.namespace, labels, named: new Map() }, namespaceLabels, placed.namespace));
  if (client.pods) return client.pods.some(admits) ? 'admits' : 'no';
  return admits({}) ? 'admits' : 'unknown';
}

function ciliumRule(rule: Obj, scope: RuleScope): RuleVerdict {
  const { target, client, placed, peers } = scope;
  if (!toPortsAdmit(rule, target)) return 'no';
  // A rule of ports alone admits every peer on them (an L4-only rule).
  if (!CILIUM_PEERS.some((k) => rule[k] !== undefined)) return 'admits';
  const entities = new Set(list(rule.fromEntities).map(str));
  if (entities.has('cluster') || entities.has('all')) return 'admits';
  const nodeEntity = entities.has('host') || entities.has('remote-node');
  const unplaced = UNPLACED_PEERS.some((k) => rule[k] !== undefined);
  if ('apiServer' in client) {
    if (entities.has('kube-apiserver')) return 'admits';
    return anyAdmits([nodeEntity || unplaced ? 'unknown' : 'no', byAddress(rule, 'Cilium', scope)]);
  }
  const endpoints = ciliumEndpoints(list(rule.fromEndpoints), client, placed, peers.namespaces);
  // A node entity holds pods on the node's network on some nodes only; a group is not placed.
  const entityOrGroup: RuleVerdict = (nodeEntity && client.onNodeNetwork) || unplaced ? 'unknown' : 'no';
  return anyAdmits([endpoints, entityOrGroup, byAddress(rule, 'Cilium', scope)]);
}

/**
 * The verdict on a connection from `client` to `pod` on `port` (a number or a container port's name), by the
 * NetworkPolicies and Cilium policies given (each with its namespace), as Cilium enforces them together.
 */
export function ingressVerdict(policies: readonly Placed[], target: { pod: PodPorts; port: string }, client: IngressClient, peers: PeerFacts): EgressVerdict {
  const portOf = podTarget(target.pod, target.port);
  const scope = (placed: Placed): RuleScope => ({ target: portOf, client, placed, peers });
  return policyVerdict(policies, target.pod, 'ingress', {
    networkPolicy: (rule, placed) => networkPolicyRule(rule, scope(placed)),
    cilium: (rule, placed) => ciliumRule(rule, scope(placed)),
    namespaceLabels: peers.namespaces,
  });
}

/** The verdict on a call of the API server to `pod` on `port`: a webhook, a conversion, an aggregated API. */
export const apiServerIngressVerdict = (policies: readonly Placed[], pod: PodPorts, port: string, peers: PeerFacts): EgressVerdict =>
  ingressVerdict(policies, { pod, port }, { apiServer: true }, peers);
