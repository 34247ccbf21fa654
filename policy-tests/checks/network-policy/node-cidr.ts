/**
 * A CIDR peer that means a cluster node. Cilium gives every node's address the
 * `host` or `remote-node` identity, and its CIDR selectors (CiliumNetworkPolicy
 * toCIDR, toCIDRSet, fromCIDR, fromCIDRSet; a NetworkPolicy's ipBlock) match
 * only addresses outside the cluster: its CRD says of toCIDR "Only connections
 * destined for outside of the cluster and not targeting the host will be
 * subject to CIDR rules". Since Cilium 1.15 the agent's
 * `policy-cidr-match-mode: nodes` (the chart's `policyCIDRMatchMode`, empty by
 * default at 1.19) lets them select nodes too. Without it, a rule that allows a
 * node by its address allows nothing, and the policy drops what its comment
 * promises: the etcd backup's Talos API call, say. The agent reads its config
 * at start, so the setting reaches the nodes on a sync only when the chart
 * rolls the agents (`rollOutCiliumPods`).
 */
import { BlockList } from 'node:net';
import { heldBy } from '../../model/cluster/address-pools.ts';
import { namedNodes, nodeRoles, subnetBlock } from '../../model/repository/node-network.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { cidrSelectsNodes } from '../../model/cilium/node-addresses.ts';
import { cniOf } from '../../model/repository/cni.ts';
import { dig, list, obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { scalarText } from '../../model/core/text.ts';
import { ENFORCED_POLICY_KINDS } from '../../model/cluster/network-reach.ts';
import { WORKLOAD_KINDS } from '../../model/core/workloads.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';
import { containerEnvironment } from '../../model/cluster/environment.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { peers } from './network-policy.ts';

/** Ports only a node serves: Talos' apid and trustd, and the kubelet. A CIDR peer on one of them is nodes. */
const NODE_PORTS: ReadonlyMap<string, string> = new Map([
  ['50000', "Talos' API (apid)"],
  ['50001', "Talos' trustd"],
  ['10250', "the kubelet's API"],
]);

const POLICY_KINDS: ReadonlySet<string> = new Set(ENFORCED_POLICY_KINDS);

interface CidrPeer {
  cidr: string;
  at: Path;
  /** The ports of the rule the peer stands in (numbers or names, as written). */
  ports: string[];
}

/** The ports of a rule (numbers or names, as written): a NetworkPolicy's `ports`, a Cilium policy's `toPorts`. */
const portsOf = (rule: unknown): string[] =>
  [...list(obj(rule).ports), ...list(obj(rule).toPorts).flatMap((tp) => list(obj(tp).ports))].map((p) => scalarText(obj(p).port ?? ''));

/** Every CIDR a policy allows to or from, with the ports of its rule. */
function cidrPeers(policy: Resource): CidrPeer[] {
  if (policy.kind === 'NetworkPolicy')
    return peers(policy).flatMap(({ peer, at }) => {
      const cidr = dig(peer, ['ipBlock', 'cidr']);
      return typeof cidr === 'string' ? [{ cidr, at: [...at, 'ipBlock', 'cidr'], ports: portsOf(dig(policy.object, at.slice(0, 3))) }] : [];
    });
  const out: CidrPeer[] = [];
  for (const direction of ['ingress', 'egress'] as const) {
    const prefix = direction === 'ingress' ? 'from' : 'to';
    list(dig(policy.object, ['spec', direction])).forEach((raw, i) => {
      const rule = obj(raw);
      const at: Path = ['spec', direction, i];
      const ports = portsOf(rule);
      list(rule[`${prefix}CIDR`]).forEach((cidr, j) => {
        if (typeof cidr === 'string') out.push({ cidr, at: [...at, `${prefix}CIDR`, j], ports });
      });
      list(rule[`${prefix}CIDRSet`]).forEach((set, j) => {
        const cidr = obj(set).cidr;
        if (typeof cidr === 'string') out.push({ cidr, at: [...at, `${prefix}CIDRSet`, j, 'cidr'], ports });
      });
    });
  }
  return out;
}

/** The addresses the repository names as nodes, with who names them: the cluster facts' nodes, and every TALOS_NODE. */
function knownNodes({ repo, resources }: { repo: Repo; resources: readonly Resource[] }): Map<string, string> {
  const out = new Map<string, string>();
  const network = repo.facts?.nodeNetwork;
  if (network) for (const [address, role] of nodeRoles(network)) out.set(address, `a ${role} node in the cluster facts' nodeNetwork`);
  // Each container's variables as the kubelet sets them: the keys of the Secrets and ConfigMaps its envFrom names too.
  for (const n of namedNodes(resources, (r, c) => containerEnvironment({ repo, resources }, namespaceOrDestination(repo, r), c.container).entries))
    out.set(n.address, `${n.env} of ${n.resource.kind} ${n.resource.name}`);
  return out;
}

/** Why a CIDR peer means nodes, or undefined when nothing says it does. */
function nodeReason(peer: CidrPeer, block: BlockList, nodes: ReadonlyMap<string, string>): string | undefined {
  const port = peer.ports.find((p) => NODE_PORTS.has(p));
  if (port) return `port ${port} is ${NODE_PORTS.get(port)}, which only a node serves`;
  for (const [address, who] of nodes) if (heldBy(block, address) === 'held') return `${address} is a node (${who})`;
  return undefined;
}

/** What mends each cause, printed with its finding (the remediation lists them all). */
const FIX = {
  address: "name a node's address from nodeNetwork in clusters/home/cluster-facts.yaml",
  matchMode:
    'set policyCIDRMatchMode: [nodes] in apps/platform/cilium/values.yaml, or allow the nodes as an entity (toEntities: [remote-node, host]) on that port',
  rollOut: 'set rollOutCiliumPods: true in apps/platform/cilium/values.yaml, so a change of policyCIDRMatchMode restarts the agents',
} as const;

export const nodeCidrCheck: PolicyCheck = {
  id: 'network-policy-node-cidr',
  description:
    "A network policy that allows a cluster node by its address (a CIDR peer on a node's own port, Talos' API or the kubelet's, or covering an address the repository names as a node) allows one of the nodes the cluster facts' nodeNetwork lists, and runs under a Cilium whose CIDR selectors select nodes (policyCIDRMatchMode: [nodes]) and whose agents restart when that setting changes (rollOutCiliumPods); Cilium otherwise matches CIDRs only outside the cluster, and the allowance allows nothing (invariants P1).",
  invariants: ['P1'],
  remediation: Object.values(FIX).join('; '),
  reads: {
    kinds: withKeyProviders(...POLICY_KINDS, ...WORKLOAD_KINDS),
    charts: ['cilium'],
    renders: true,
  },
  exemptible: false,
  run(ctx) {
    if (cniOf(ctx.repo).name !== 'cilium') return;
    const nodes = knownNodes(ctx);
    const network = ctx.repo.facts?.nodeNetwork;
    const values = chartValues(ctx.repo, 'cilium');
    // Every source of the chart must say it: one without the mode is a cluster whose agents match CIDRs by default.
    const modeOff = !cidrSelectsNodes(values);
    const toldRollout = new Set<string>();
    for (const policy of ctx.resources.filter((r) => POLICY_KINDS.has(r.kind)))
      for (const peer of cidrPeers(policy)) {
        // The peer's addresses, parsed once for every question asked of them.
        const block = subnetBlock(peer.cidr) ?? new BlockList();
        const why = nodeReason(peer, block, nodes);
        if (!why) continue;
        const port = peer.ports.find((p) => NODE_PORTS.has(p));
        if (network && port && ![...nodeRoles(network).keys()].some((address) => heldBy(block, address) === 'held')) {
          ctx.fail(
            { resource: policy, path: peer.at },
            `${policy.kind} ${policy.name} allows ${peer.cidr} on port ${port}, ${NODE_PORTS.get(port)}, which only a node serves, and no node of the cluster facts' nodeNetwork (${network.subnet}) is in it: the call goes to a node's address, which this rule does not allow`,
            FIX.address,
          );
          continue;
        }
        if (modeOff) {
          ctx.fail(
            { resource: policy, path: peer.at },
            `${policy.kind} ${policy.name} allows ${peer.cidr}, and ${why}: Cilium selects no cluster node by CIDR unless its policyCIDRMatchMode includes nodes (apps/platform/cilium/values.yaml), so this allowance allows nothing and the traffic is dropped`,
            FIX.matchMode,
          );
          continue;
        }
        for (const v of values.filter((x) => x.values.rollOutCiliumPods !== true && !toldRollout.has(x.file))) {
          toldRollout.add(v.file);
          ctx.fail(
            { data: v.source, path: ['policyCIDRMatchMode'] },
            `${policy.kind} ${policy.name} relies on policyCIDRMatchMode: nodes (${why}), and the agents read it only at start: without rollOutCiliumPods: true a sync changes the ConfigMap and no agent, so the allowance stays dead until someone restarts them`,
            FIX.rollOut,
          );
        }
      }
  },
};
