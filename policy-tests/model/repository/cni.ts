/**
 * The cluster's CNI, and what each CNI the gate knows enforces. A network
 * policy is only a request: the API server stores any NetworkPolicy, and only
 * the CNI on the nodes makes it drop packets. Flannel (Talos' default) stores
 * and ignores every one. The `cni` cluster fact says which CNI runs and what
 * it enforces; the claims are held to what that CNI is documented to do.
 */
import { parse } from 'yaml';

/** A policy kind, qualified by its API group: `networking.k8s.io/NetworkPolicy`. */
export type PolicyKind = string;

export interface CniFacts {
  name: string;
  /** The policy kinds it makes the data path enforce. */
  enforces: PolicyKind[];
  /** Whether it enforces egress to DNS names (Cilium's toFQDNs). */
  fqdnEgress: boolean;
}

export interface KnownCni {
  enforces: readonly PolicyKind[];
  fqdnEgress: boolean;
  /** Whether traffic from a pod's own node (the kubelet's probes) reaches it whatever the policies say. */
  nodeReachesPods: boolean;
  /** The chart an Application deploys it from, when it is not part of the distribution. */
  chart?: string;
  /** Where the claim is documented. */
  source: string;
}

export const NETWORK_POLICY: PolicyKind = 'networking.k8s.io/NetworkPolicy';
export const CILIUM_POLICY: PolicyKind = 'cilium.io/CiliumNetworkPolicy';
export const CILIUM_CLUSTERWIDE_POLICY: PolicyKind = 'cilium.io/CiliumClusterwideNetworkPolicy';

export const KNOWN_CNIS: Readonly<Record<string, KnownCni>> = {
  flannel: {
    enforces: [],
    fqdnEgress: false,
    nodeReachesPods: true,
    source: 'Flannel README: "Flannel is focused on networking. For network policy, other projects such as Calico can be used"',
  },
  cilium: {
    enforces: [NETWORK_POLICY, CILIUM_POLICY, CILIUM_CLUSTERWIDE_POLICY],
    fqdnEgress: true,
    // Cilium's allow-localhost default: the local host may always reach its endpoints, so probes pass.
    nodeReachesPods: true,
    chart: 'cilium',
    source: 'docs.cilium.io, Network Policy: Kubernetes NetworkPolicy, CiliumNetworkPolicy, CiliumClusterwideNetworkPolicy; DNS-based (toFQDNs) egress',
  },
  calico: {
    enforces: [NETWORK_POLICY, 'crd.projectcalico.org/NetworkPolicy', 'crd.projectcalico.org/GlobalNetworkPolicy'],
    fqdnEgress: false,
    nodeReachesPods: true,
    chart: 'tigera-operator',
    source: 'docs.tigera.io: Kubernetes and Calico network policy; DNS policy is Calico Enterprise only',
  },
};

/** Every policy kind some known CNI enforces: what the gate treats as a network policy. */
export const POLICY_KINDS: ReadonlySet<PolicyKind> = new Set(Object.values(KNOWN_CNIS).flatMap((c) => c.enforces));

/** `group/Kind` of a resource (core kinds have no group). */
export function qualifiedKind(apiVersion: string, kind: string): PolicyKind {
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  return group ? `${group}/${kind}` : kind;
}

/** What is assumed when the fact is missing or broken: a CNI that enforces nothing, so no policy passes as enforced. */
export const NO_CNI: CniFacts = { name: 'unknown', enforces: [], fqdnEgress: false };

/** Reads the `cni` fact (a YAML mapping in a string): name, enforces, fqdnEgress. */
export function readCni(raw: unknown): { cni: CniFacts; problem?: string } {
  if (raw === undefined)
    return {
      cni: NO_CNI,
      problem: 'cluster fact "cni" is missing: name the CNI and the policy kinds it enforces (no network policy counts as enforced without it)',
    };
  let value: any;
  try {
    value = typeof raw === 'string' ? parse(raw) : undefined;
  } catch (err) {
    return { cni: NO_CNI, problem: `cluster fact "cni" does not parse: ${(err as Error).message.split('\n')[0]}` };
  }
  const name = typeof value?.name === 'string' ? value.name.trim().toLowerCase() : '';
  const enforces = value?.enforces ?? [];
  if (
    !name ||
    !Array.isArray(enforces) ||
    enforces.some((k: unknown) => typeof k !== 'string' || !k.includes('/')) ||
    typeof (value.fqdnEgress ?? false) !== 'boolean'
  )
    return {
      cni: NO_CNI,
      problem: 'cluster fact "cni" needs name, enforces (a list of group/Kind, such as networking.k8s.io/NetworkPolicy) and fqdnEgress (true or false)',
    };
  return { cni: { name, enforces: [...enforces], fqdnEgress: value.fqdnEgress === true } };
}

/** The CNI the cluster facts name; none when they name none. */
export const cniOf = (repo: { facts?: { cni?: CniFacts } }): CniFacts => repo.facts?.cni ?? NO_CNI;

/** Whether a resource is a network policy of any kind a CNI enforces. */
export const isNetworkPolicy = (r: { apiVersion: string; kind: string }): boolean => POLICY_KINDS.has(qualifiedKind(r.apiVersion, r.kind));
