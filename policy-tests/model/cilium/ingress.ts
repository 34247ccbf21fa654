/**
 * Whether the policies that select a pod let the API server in on a port, as Cilium enforces NetworkPolicy and
 * CiliumNetworkPolicy together: the API server calls admission and conversion webhooks and aggregated APIs from the
 * control-plane nodes' network (Talos runs kube-apiserver with hostNetwork), so it is no pod. A NetworkPolicy `from`
 * by namespace or pods never admits it; a rule with no peer does; an address block is not judged (where the API server
 * is, and whether Cilium matches a CIDR to a node, are no cluster facts). Cilium admits it by the entities that hold
 * its identity (`kube-apiserver`, and `cluster` and `all`, which include it: Cilium's InitEntities), or by a rule with
 * ports and no peer; `host` or `remote-node` alone hold it on some nodes only (not judged); a deny rule or a
 * clusterwide policy is not placed (not judged).
 */
import { dig, list, obj, str, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { isolatesIngress, type Placed, type PodPorts } from '../cluster/network-reach.ts';
import { ciliumSelects, podTarget, portsAdmit, toPortsAdmit, type EgressVerdict, type TargetPort } from './egress.ts';

type RuleVerdict = 'admits' | 'no' | 'unknown';

/** Cilium's peer fields of an ingress rule: any of them makes the rule one for those peers only. */
const CILIUM_PEERS = ['fromEndpoints', 'fromEntities', 'fromCIDR', 'fromCIDRSet', 'fromRequires', 'fromGroups', 'fromNodes'];

function networkPolicyRule(rule: Obj, target: TargetPort): RuleVerdict {
  if (!portsAdmit(list(rule.ports).map(obj), target)) return 'no';
  const from = list(rule.from).map(obj);
  if (from.length === 0) return 'admits';
  return from.some((peer) => 'ipBlock' in peer) ? 'unknown' : 'no';
}

function ciliumRule(rule: Obj, target: TargetPort): RuleVerdict {
  if (!toPortsAdmit(rule, target)) return 'no';
  // A rule of ports alone admits every peer on them (an L4-only rule).
  if (!CILIUM_PEERS.some((k) => rule[k] !== undefined)) return 'admits';
  const entities = new Set(list(rule.fromEntities).map(str));
  if (entities.has('kube-apiserver') || entities.has('cluster') || entities.has('all')) return 'admits';
  const unread =
    entities.has('host') ||
    entities.has('remote-node') ||
    ['fromCIDR', 'fromCIDRSet', 'fromRequires', 'fromGroups', 'fromNodes'].some((k) => rule[k] !== undefined);
  return unread ? 'unknown' : 'no';
}

/** Whether a policy of the pod's namespace (or a clusterwide one) selects it and isolates its ingress. */
function selectsForIngress({ policy, namespace }: Placed, pod: PodPorts, namespaceLabels: ReadonlyMap<string, Obj>): boolean {
  const spec = obj(policy.object.spec);
  if (policy.kind === 'NetworkPolicy') return namespace === pod.namespace && isolatesIngress(policy) && selectorMatches(obj(spec.podSelector), pod.labels);
  const isolates = spec.ingress !== undefined || spec.ingressDeny !== undefined;
  if (!isolates) return false;
  if (policy.kind === 'CiliumClusterwideNetworkPolicy') return ciliumSelects(spec.endpointSelector, pod, namespaceLabels, pod.namespace);
  return namespace === pod.namespace && ciliumSelects(spec.endpointSelector, pod, namespaceLabels, namespace);
}

/** The verdict on a connection from the API server to `pod` on `port` (a number or a container port's name). */
export function apiServerIngressVerdict(policies: readonly Placed[], pod: PodPorts, port: string, namespaceLabels: ReadonlyMap<string, Obj>): EgressVerdict {
  // A pod on the node's network is no endpoint: no policy that selects pods holds its ingress.
  if (pod.hostNetwork) return { allowed: true };
  const selecting = policies.filter((p) => selectsForIngress(p, pod, namespaceLabels));
  if (selecting.length === 0) return { allowed: true };
  const unplaced = selecting.find(
    ({ policy }) => policy.kind === 'CiliumClusterwideNetworkPolicy' || dig(policy.object, ['spec', 'ingressDeny']) !== undefined,
  );
  if (unplaced) return { unknown: `${unplaced.policy.kind} ${unplaced.policy.name} (a clusterwide policy or a deny rule, which the gate does not place)` };
  const target = podTarget(pod, port);
  let unknown: string | undefined;
  for (const { policy } of selecting) {
    for (const rule of list(dig(policy.object, ['spec', 'ingress'])).map(obj)) {
      const verdict = policy.kind === 'NetworkPolicy' ? networkPolicyRule(rule, target) : ciliumRule(rule, target);
      if (verdict === 'admits') return { allowed: true };
      if (verdict === 'unknown') unknown ??= `${policy.kind} ${policy.name} (a peer by address, or one node entity alone, which the gate does not place)`;
    }
  }
  return unknown ? { unknown } : { refusedBy: selecting.map((p): Resource => p.policy) };
}
