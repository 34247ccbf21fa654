/**
 * How the network-policy checks name the policies that refuse a connection, and where a finding on a blanket policy
 * goes: one wording for every path, so a reader meets the same words from each check.
 */
import { dig, list, obj, type Obj } from '../../model/core/dig.ts';
import { portsAdmit, toPortsAdmit, type PodsVerdict, type TargetPort } from '../../model/cilium/egress.ts';
import { addressPeers, type NodeAddresses } from '../../model/cilium/node-addresses.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { FailurePlace } from '../../model/checks/kit.ts';

/** The policies, for a message: `NetworkPolicy a, CiliumNetworkPolicy b`. */
export const policyNames = (policies: readonly Resource[]): string => policies.map((p) => `${p.kind} ${p.name}`).join(', ');

/** The field that says which pods a policy is for: a NetworkPolicy's podSelector, a Cilium policy's endpointSelector. */
const selectorField = (policy: Resource): string => (policy.kind === 'NetworkPolicy' ? 'podSelector' : 'endpointSelector');

/** Whether a policy selects every pod of its namespace (an empty selector): a default deny. */
export const selectsAll = (policy: Resource): boolean => {
  const selector = (policy.object.spec as Obj | undefined)?.[selectorField(policy)];
  return selector !== null && typeof selector === 'object' && Object.keys(selector).length === 0;
};

/** Where a finding on a policy that shuts many pods goes: its selector. */
export const selectorAt = (policy: Resource): FailurePlace => ({ resource: policy, path: ['spec', selectorField(policy)] });

/** Names in a message: the first four, and how many more. */
export const firstNames = (names: readonly string[]): string => `${names.slice(0, 4).join(', ')}${names.length > 4 ? `, and ${names.length - 4} more` : ''}`;

/**
 * What a finding adds where a rule of the policies that refused the connection, on its port, names addresses: why
 * the block did not let it through (a pod's address is its endpoint's; the agents match no node by CIDR; the block
 * leaves a control-plane node out); '' where none does. A block on another port (the API server's, say) says nothing
 * of this connection.
 */
export function addressNote(
  policies: readonly Resource[],
  connection: { direction: 'to' | 'from'; target: TargetPort },
  other: 'pod' | { apiServer: NodeAddresses | undefined },
): string {
  const { direction, target } = connection;
  const named = policies.some((p) => {
    const kind = p.kind === 'NetworkPolicy' ? ('NetworkPolicy' as const) : ('Cilium' as const);
    return list(dig(p.object, ['spec', direction === 'to' ? 'egress' : 'ingress'])).some((raw) => {
      const rule = obj(raw);
      const onPort = kind === 'NetworkPolicy' ? portsAdmit(list(rule.ports).map(obj), target) : toPortsAdmit(rule, target);
      const { peers, unread } = addressPeers(rule, direction, kind);
      return onPort && (peers.length > 0 || unread);
    });
  });
  if (!named) return '';
  if (other === 'pod') return " (an address block selects no pod: Cilium gives a pod's address its endpoint's identity)";
  const nodes = other.apiServer;
  if (!nodes) return '';
  return nodes.selectedByCidr
    ? ` (an address block lets the API server through only where it holds every control-plane node of the cluster facts: ${nodes.controlPlane.join(', ')})`
    : " (an address block selects no node: Cilium's policyCIDRMatchMode does not include nodes)";
}

/**
 * What a refusal by the pods of one workload behind a Service costs: every connection (`whole`, as the path says it),
 * or, where the Service's other pods let it through, those it sends to that workload's pods, so the app fails now
 * and then.
 */
export function timesOut(pods: readonly { resource: Resource }[], across: PodsVerdict, whole = 'the connection times out'): string {
  if (!across.partly) return `: ${whole}`;
  const { kind, name } = pods[across.at]!.resource;
  return `: the Service balances its connections among its pods, and though others let it through, each one it sends to the pods of ${kind} ${name} times out`;
}
