/**
 * What a network policy's rule lets reach beyond named pods: the peers that
 * widen reach, each with the key a policy documents it under in
 * gate.homelab-gitops/external-peers, and where it is written. Judged as the
 * CNI reads the policy:
 *
 * - NetworkPolicy: a rule with no peer list, or an empty peer, allows every
 *   address, the internet included; an empty namespaceSelector, every
 *   namespace; a namespace expression with NotIn or DoesNotExist, every
 *   namespace but a few (a NotIn of a name nobody has is every namespace).
 * - Cilium: the entities beyond the policy's own pods (cluster, host,
 *   remote-node, kube-apiserver, init, health, all, world); an endpoint
 *   selector that is empty (every pod of the policy's namespace) or names its
 *   namespace by NotIn or DoesNotExist (pods of every other namespace).
 *
 * Address blocks and DNS names are peers too (their CIDR or name is the key).
 */
import { dig, isMap } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import type { Repo } from '../repository/repo.ts';
import type { Template } from './pod-templates.ts';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (isMap(v) ? v : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Cilium's entities beyond the policy's own pods; `world` and `all` include the LAN and the internet. */
export const WIDENING_ENTITIES = ['world', 'all', 'cluster', 'host', 'remote-node', 'kube-apiserver', 'init', 'health', 'unmanaged', 'ingress'] as const;

/** The labels a Cilium endpoint selector names a namespace by. */
export const CILIUM_NAMESPACE_LABELS = ['k8s:io.kubernetes.pod.namespace', 'io.kubernetes.pod.namespace'];

export interface Reach {
  /** The key a policy documents this peer under, and that a diff names. */
  peer: string;
  at: Path;
}

const isEmpty = (s: Obj) => Object.keys(obj(s.matchLabels)).length === 0 && list(s.matchExpressions).length === 0;

/** Expressions that select namespaces by what they are not: NotIn or DoesNotExist on a namespace key. */
function negatedNamespaces(expressions: unknown[], isNamespaceKey: (key: string) => boolean): string | undefined {
  for (const raw of expressions) {
    const e = obj(raw);
    if (typeof e.key !== 'string' || !isNamespaceKey(e.key)) continue;
    if (e.operator === 'NotIn') return `any namespace but ${list(e.values).map(String).join(',')}`;
    if (e.operator === 'DoesNotExist') return `any namespace without ${e.key}`;
  }
  return undefined;
}

function networkPolicyReach(policy: Pick<Resource, 'kind' | 'object'>): Reach[] {
  const out: Reach[] = [];
  (['ingress', 'egress'] as const).forEach((dir) => {
    const peersKey = dir === 'ingress' ? 'from' : 'to';
    list(dig(policy.object, ['spec', dir])).forEach((raw, i) => {
      const rule = obj(raw);
      const peers = list(rule[peersKey]);
      if (peers.length === 0) {
        out.push({ peer: 'anything', at: ['spec', dir, i] });
        return;
      }
      peers.forEach((p, j) => {
        const peer = obj(p);
        const at: Path = ['spec', dir, i, peersKey, j];
        if (Object.keys(peer).length === 0) out.push({ peer: 'anything', at });
        else if ('namespaceSelector' in peer) {
          const ns = obj(peer.namespaceSelector);
          if (isEmpty(ns)) out.push({ peer: 'any namespace', at: [...at, 'namespaceSelector'] });
          else {
            // Any key of a namespace's labels can stand for it; a negation on any of them reaches the others.
            const negated = negatedNamespaces(list(ns.matchExpressions), () => true);
            if (negated) out.push({ peer: negated, at: [...at, 'namespaceSelector'] });
          }
        }
      });
    });
  });
  return out;
}

function ciliumReach(policy: Pick<Resource, 'kind' | 'object'>, own: string): Reach[] {
  const out: Reach[] = [];
  (['ingress', 'egress'] as const).forEach((dir) => {
    const [entities, endpoints] = dir === 'ingress' ? ['fromEntities', 'fromEndpoints'] : ['toEntities', 'toEndpoints'];
    list(dig(policy.object, ['spec', dir])).forEach((raw, i) => {
      const rule = obj(raw);
      list(rule[entities]).forEach((e, j) => {
        if ((WIDENING_ENTITIES as readonly string[]).includes(String(e))) out.push({ peer: String(e), at: ['spec', dir, i, entities, j] });
      });
      list(rule[endpoints]).forEach((s, j) => {
        const selector = obj(s);
        const at: Path = ['spec', dir, i, endpoints, j];
        if (isEmpty(selector)) out.push({ peer: `any pod of ${own}`, at });
        else {
          const negated = negatedNamespaces(list(selector.matchExpressions), (k) => CILIUM_NAMESPACE_LABELS.includes(k));
          if (negated) out.push({ peer: negated, at });
        }
      });
    });
  });
  return out;
}

type Policy = Pick<Resource, 'kind' | 'object'>;

/** Every peer of a policy that widens reach beyond named pods (address blocks and DNS names aside). */
export function widenedReach(policy: Policy, ownNamespace: string): Reach[] {
  return policy.kind === 'NetworkPolicy' ? networkPolicyReach(policy) : ciliumReach(policy, ownNamespace);
}

/** Address blocks and DNS names: the external peers a policy names, each keyed by its CIDR or name. */
function namedExternals(policy: Policy): Reach[] {
  const out: Reach[] = [];
  (['ingress', 'egress'] as const).forEach((dir) =>
    list(dig(policy.object, ['spec', dir])).forEach((raw, i) => {
      const rule = obj(raw);
      const at = (...rest: (string | number)[]): Path => ['spec', dir, i, ...rest];
      if (policy.kind === 'NetworkPolicy')
        list(rule[dir === 'ingress' ? 'from' : 'to']).forEach((p, j) => {
          const cidr = dig(p, ['ipBlock', 'cidr']);
          if (typeof cidr === 'string') out.push({ peer: cidr, at: at(dir === 'ingress' ? 'from' : 'to', j, 'ipBlock') });
        });
      else {
        const cidrs = dir === 'ingress' ? 'fromCIDR' : 'toCIDR';
        list(rule[cidrs]).forEach((c, j) => out.push({ peer: String(c), at: at(cidrs, j) }));
        list(rule.toFQDNs).forEach((f, j) => out.push({ peer: String(obj(f).matchName ?? obj(f).matchPattern), at: at('toFQDNs', j) }));
      }
    }),
  );
  return out;
}

/** A policy's peers beyond named pods: every widening peer, address block and DNS name, each with where it is written. */
export function externalPeers(policy: Policy, ownNamespace: string): Reach[] {
  return [...widenedReach(policy, ownNamespace), ...namedExternals(policy)];
}

/** A pod as a policy admits into it: its namespace, its labels, its container ports' names, and whether it is on the node's network. */
export type PodPorts = Pick<Template, 'namespace' | 'labels' | 'named' | 'hostNetwork'>;

/** Whether a port reaches the pod at all: a number, or a name one of its containers declares (else closure-port-name says so, and no policy is to blame). */
export const reachesPod = (pod: PodPorts, port: string): boolean => /^\d+$/.test(port) || pod.named.has(port);

/** The policies Cilium enforces together on a pod: Kubernetes' NetworkPolicy and its own two kinds. */
export const ENFORCED_POLICY_KINDS: readonly string[] = ['NetworkPolicy', 'CiliumNetworkPolicy', 'CiliumClusterwideNetworkPolicy'];

/** A policy with the namespace it applies in (its own, or its Application's destination). */
export interface Placed {
  policy: Resource;
  namespace: string;
}

/** The repository's policies of the given kinds, each with the namespace it applies in. */
export function placedPolicies(repo: Repo, resources: readonly Resource[], kinds: readonly string[]): Placed[] {
  return resources.filter((r) => kinds.includes(r.kind)).map((policy) => ({ policy, namespace: namespaceOrDestination(repo, policy) ?? '' }));
}

/** A client reaching pods through NetworkPolicies: its namespace, and its pods' labels where the gate sees them. */
export interface Client {
  namespace: string;
  pods?: readonly Obj[];
  /**
   * Its pods run on the node's network, on a cluster of several nodes: Cilium sees a connection from them with the
   * node's identity (`remote-node` at a pod on another node), which no namespace or pod peer of a NetworkPolicy admits.
   */
  onNodeNetwork?: boolean;
}

/**
 * A client whose pods run on the node's network, as the policies see it: on a cluster of several nodes (`nodeCount` in
 * the cluster facts) it reaches a pod on another node as that node; on one node Cilium lets the local host in.
 */
export const nodeNetworkClient = (repo: Pick<Repo, 'facts'>, onHost: boolean): Pick<Client, 'onNodeNetwork'> =>
  onHost && (repo.facts?.nodeCount ?? 0) > 1 ? { onNodeNetwork: true } : {};
