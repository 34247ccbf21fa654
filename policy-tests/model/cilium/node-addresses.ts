/**
 * What a policy's address peers (a NetworkPolicy's `ipBlock`, Cilium's `toCIDR`, `toCIDRSet`, `fromCIDR`,
 * `fromCIDRSet`) select inside the cluster, as Cilium decides it. Its policy language (Documentation/security/policy/
 * layer3.rst, "IP/CIDR based") says CIDR rules never apply where both sides are Cilium's endpoints or nodes: a pod's
 * address maps to its endpoint's identity, which carries no CIDR label, so an address block never selects a pod. A
 * node's addresses carry CIDR labels only when the agent runs with `policy-cidr-match-mode: nodes` (the chart's
 * `policyCIDRMatchMode`; the node manager's `nodeIdentityLabels` and the ipcache's `resolveIdentity` add them, for the
 * local host and the remote nodes alike); then a block selects the nodes whose addresses it holds, and the API
 * server with them, which Talos runs on each control-plane node's network (and whose `kubernetes` Service's
 * endpoints are those nodes' addresses). Where the nodes are is the cluster facts' `nodeNetwork`.
 */
import { BlockList } from 'node:net';
import { list, obj, str, type Obj } from '../core/dig.ts';
import { chartValues } from '../helm/chart-values.ts';
import { namespaceLabels } from '../cluster/pod-templates.ts';
import { heldBy } from '../cluster/address-pools.ts';
import { nodeRoles, subnetBlock } from '../repository/node-network.ts';
import { perRepo } from '../repository/per-repo.ts';
import type { Repo } from '../repository/repo.ts';

/** How one rule of a policy stands to a connection: it lets it through, it does not, or the gate cannot tell. */
export type RuleVerdict = 'admits' | 'no' | 'unknown';

/** The nodes as an address peer may select them. */
export interface NodeAddresses {
  /** The control-plane nodes' addresses: where the API server listens, and whence it calls a webhook. */
  controlPlane: readonly string[];
  /** Every node's address: where a pod on the node's network may run, and what it arrives as. */
  all: readonly string[];
  /** Whether Cilium selects a node by an address block at all (policyCIDRMatchMode holds `nodes` in every source of the chart). */
  selectedByCidr: boolean;
}

/** What a policy's peers are judged against: the namespaces' labels, and the nodes where the cluster facts place them. */
export interface PeerFacts {
  namespaces: ReadonlyMap<string, Obj>;
  nodes?: NodeAddresses;
}

/** The charts whose values a check that reads address peers must see (its `reads.charts`): Cilium's, for policyCIDRMatchMode. */
export const ADDRESS_CHARTS: readonly string[] = ['cilium'];

/** `policyCIDRMatchMode` as the chart takes it: a string or a list. */
export const matchModes = (value: unknown): string[] => (typeof value === 'string' ? value.split(/[\s,]+/) : list(value).map(String)).filter(Boolean);

/** Whether every source of Cilium's chart sets policyCIDRMatchMode to include nodes: one without it runs agents that match no node by CIDR. */
export const cidrSelectsNodes = (values: readonly { values: Record<string, unknown> }[]): boolean =>
  values.length > 0 && values.every((v) => matchModes(v.values.policyCIDRMatchMode).includes('nodes'));

/** The nodes, where the cluster facts give their network. */
export const nodeAddresses = perRepo((repo: Repo): NodeAddresses | undefined => {
  const network = repo.facts?.nodeNetwork;
  if (!network) return undefined;
  return { controlPlane: network.controlPlane, all: [...nodeRoles(network).keys()], selectedByCidr: cidrSelectsNodes(chartValues(repo, 'cilium')) };
});

/** The namespaces' labels and the nodes' addresses of a repository, read once for every policy judged. */
export const peerFacts = (repo: Repo): PeerFacts => ({ namespaces: namespaceLabels(repo), nodes: nodeAddresses(repo) });

/** One address peer: its block and the blocks cut out of it (`except`). */
interface AddressPeer {
  cidr: string;
  except: string[];
}

/**
 * The address peers of a rule, toward `direction`: a NetworkPolicy rule's `ipBlock` peers, a Cilium rule's CIDR and
 * CIDR sets. `unread` is set where a peer names addresses the gate cannot read (a CIDR group, a block that does not parse).
 */
export function addressPeers(rule: Obj, direction: 'to' | 'from', kind: 'NetworkPolicy' | 'Cilium'): { peers: AddressPeer[]; unread: boolean } {
  const peers: AddressPeer[] = [];
  let unread = false;
  const add = (cidr: unknown, except: unknown) => {
    if (typeof cidr === 'string' && subnetBlock(cidr)) peers.push({ cidr, except: list(except).map(str) });
    else unread = true;
  };
  if (kind === 'NetworkPolicy') for (const peer of list(rule[direction]).map(obj)) if ('ipBlock' in peer) add(obj(peer.ipBlock).cidr, obj(peer.ipBlock).except);
  if (kind === 'Cilium') {
    for (const cidr of list(rule[`${direction}CIDR`])) add(cidr, []);
    for (const set of list(rule[`${direction}CIDRSet`]).map(obj)) add(set.cidr, set.except);
  }
  return { peers, unread };
}

/** Whether an address is in a peer's block and in none of its exceptions (an exception that does not parse cuts nothing). */
function holds(peer: AddressPeer, address: string): boolean {
  if (heldBy(subnetBlock(peer.cidr) ?? new BlockList(), address) !== 'held') return false;
  return !peer.except.some((e) => heldBy(subnetBlock(e) ?? new BlockList(), address) === 'held');
}

/** Which peers of a rule are read: toward the destination (`to`) or from the source, of which kind of policy. */
export interface AddressScope {
  direction: 'to' | 'from';
  kind: 'NetworkPolicy' | 'Cilium';
}

/**
 * Where the other side of a connection is: a pod, or nodes (the control-plane nodes, for the API server; any node,
 * for a pod on the node's network), with what a rule that holds only some of them gives.
 */
export type AddressPlace = { pod: true } | { nodes: NodeAddresses | undefined; at: 'controlPlane' | 'all'; partly: RuleVerdict };

/**
 * How a rule's address peers stand to a place in the cluster: a pod, which no block selects, or nodes (every one of
 * them when they are one Service's endpoints, any one when it is a pod on the node's network), which a block selects
 * only where the agents match nodes by CIDR. Held at every address, the rule admits it; at none, it does not; at some, `partly` says (a call to a
 * Service of those endpoints fails on the others; a pod on the node's network is let through on some nodes). Where the
 * cluster facts give no nodes, or a peer cannot be read and decides, not judged.
 */
export function addressVerdict(rule: Obj, scope: AddressScope, place: AddressPlace): RuleVerdict {
  const { peers, unread } = addressPeers(rule, scope.direction, scope.kind);
  if (peers.length === 0 && !unread) return 'no';
  // A pod's address maps to its endpoint's identity, which no CIDR label selects.
  if ('pod' in place) return 'no';
  if (!place.nodes) return 'unknown';
  // Without policy-cidr-match-mode: nodes, a node's identity carries no CIDR label either.
  if (!place.nodes.selectedByCidr) return 'no';
  const at = place.nodes[place.at];
  const held = at.filter((address) => peers.some((peer) => holds(peer, address)));
  if (at.length > 0 && held.length === at.length) return 'admits';
  if (unread) return 'unknown';
  return held.length === 0 ? 'no' : place.partly;
}
