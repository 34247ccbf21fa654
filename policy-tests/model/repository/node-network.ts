/**
 * The nodes' network, as the `nodeNetwork` cluster fact states it: the one
 * layer-2 segment the six nodes share with the router (its subnet and its
 * gateway), the control-plane address Talos floats among the control-plane
 * nodes (the VIP, the Kubernetes API endpoint), and each node's address. The
 * rest of the repository names these addresses in several places that must
 * agree: MetalLB announces its layer-2 pool by ARP, which only this segment
 * hears, and the etcd backup calls one control-plane node's Talos API by its
 * address, through a policy that allows that address. A fork that moves its
 * LAN changes this block, and the gate holds every other place to it. Where a
 * workload names a node by address (the etcd backup's TALOS_NODE, which
 * talosctl calls as its endpoint and node) is read here too.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { parse } from 'yaml';
import { list, obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';
import { workloadContainers, type ContainerRef } from '../core/workloads.ts';

export interface NodeNetwork {
  /** The segment, as a CIDR: `192.168.1.0/24`. */
  subnet: string;
  /** The router: the nodes' default route and resolver. */
  gateway: string;
  /** The control-plane endpoint Talos shares among the control-plane nodes, when there is one. */
  vip?: string;
  controlPlane: string[];
  workers: string[];
  /** The cluster's pod network and Service network (Talos' cluster.network podSubnets and serviceSubnets), as CIDRs. */
  pods: string;
  services: string;
  /**
   * The node-port range the API server allocates from (its `--service-node-port-range`, Talos'
   * cluster.apiServer.extraArgs), as `[low, high]`; Kubernetes' default 30000-32767 where the facts say none.
   */
  nodePorts: readonly [number, number];
  /**
   * The machines of the LAN the cluster reaches by name (the NAS, a hypervisor, the router), as the nodes' resolver
   * knows them; undefined where the facts name none, and a name a manifest gives a LAN machine is then not judged.
   */
  hosts?: readonly string[];
  /**
   * The router's port forward from the internet: the address on the segment it sends to (the public proxy's) and
   * the ports; undefined where the facts state none, and nothing public is then judged against it.
   */
  forwards?: Forward;
}

export interface Forward {
  address: string;
  ports: readonly number[];
}

/** The facts' `forwards`, or why they cannot be read. */
function forwardsOf(value: unknown): { forwards?: Forward; problem?: string } {
  if (value === undefined) return {};
  const { address, ports } = obj(value);
  const isPort = (p: unknown) => Number.isInteger(p) && (p as number) >= 1 && (p as number) <= 65535;
  if (isAddress(address) && Array.isArray(ports) && ports.length > 0 && ports.every(isPort)) return { forwards: { address, ports: ports as number[] } };
  return { problem: 'cluster fact "nodeNetwork": forwards is the router\'s port forward, {address: <an address on the subnet>, ports: [80, 443]}' };
}

/** A host name as a resolver takes it: dot-separated labels of letters, digits and hyphens, none at either end of one. */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** The facts' `hosts`, or why they cannot be read. */
function hostsOf(value: unknown): { hosts?: readonly string[]; problem?: string } {
  if (value === undefined) return {};
  if (Array.isArray(value) && value.every((h) => typeof h === 'string' && HOST_NAME.test(h))) return { hosts: value as string[] };
  return { problem: 'cluster fact "nodeNetwork": hosts lists the names of the LAN\'s machines the cluster reaches (nas.lan), each a host name' };
}

/** Kubernetes' default `--service-node-port-range`. */
export const DEFAULT_NODE_PORTS = [30000, 32767] as const;

/** A port range as the API server's flag takes it (utilnet.ParsePortRange): `low-high`, `low+offset`, or one port. */
export function parsePortRange(text: string): readonly [number, number] | undefined {
  const m = /^\s*(\d+)\s*(?:([-+])\s*(\d+))?\s*$/.exec(text);
  if (!m) return undefined;
  const low = Number(m[1]);
  const high = m[2] === undefined ? low : m[2] === '+' ? low + Number(m[3]) : Number(m[3]);
  const valid = (p: number) => Number.isInteger(p) && p >= 1 && p <= 65535;
  return valid(low) && valid(high) && low <= high ? [low, high] : undefined;
}

export type NodeRole = 'control-plane' | 'worker';

const SHAPE =
  'cluster fact "nodeNetwork" must be a YAML mapping: subnet (a CIDR), gateway, vip (optional), controlPlane and workers (lists of addresses), pods and services (the pod and Service CIDRs), nodePorts (optional: the node-port range, 30000-32767 by default), hosts (optional: the LAN machines the cluster reaches by name), forwards (optional: the router\'s port forward, its address and ports)';

/** An address's IP family as Kubernetes names it (a Service's ipFamilies), or undefined where it is no address. */
export const ipFamilyOf = (ip: string): 'IPv4' | 'IPv6' | undefined => (isIPv4(ip) ? 'IPv4' : isIPv6(ip) ? 'IPv6' : undefined);
// IPv4 asked first (ipFamilyOf): Node compiles the IPv6 grammar's large expression on its first use, some 5 ms of a run that meets none.
const family = (ip: string): 'ipv4' | 'ipv6' => (ipFamilyOf(ip) === 'IPv6' ? 'ipv6' : 'ipv4');
/** A CIDR's IP family, by its network address. */
export const cidrFamily = (cidr: string): 'IPv4' | 'IPv6' | undefined => ipFamilyOf(cidr.split('/')[0] ?? '');
const isAddress = (v: unknown): v is string => typeof v === 'string' && (isIPv4(v) || isIPv6(v));

const blocks = new Map<string, BlockList | undefined>();

/** The subnet as a BlockList, or undefined when it is not a CIDR; parsed once per subnet, since every address asked about meets it. */
export function subnetBlock(subnet: string): BlockList | undefined {
  if (!blocks.has(subnet)) blocks.set(subnet, parseSubnet(subnet));
  return blocks.get(subnet);
}

function parseSubnet(subnet: string): BlockList | undefined {
  const [net, prefix] = subnet.split('/');
  const bits = Number(prefix);
  if (!isAddress(net) || prefix === undefined || !Number.isInteger(bits) || bits < 0 || bits > (family(net) === 'ipv6' ? 128 : 32)) return undefined;
  const block = new BlockList();
  block.addSubnet(net, bits, family(net));
  return block;
}

/** A CIDR's network address and prefix length. */
const cidrParts = (cidr: string): [string, number] => [cidr.split('/')[0]!, Number(cidr.split('/')[1])];

/** Whether CIDR `inner` lies wholly inside CIDR `outer`: its network address is in `outer`, and its prefix is no shorter. */
export function cidrWithin(inner: string, outer: string): boolean {
  const [[address, bits], [, outerBits]] = [cidrParts(inner), cidrParts(outer)];
  const block = subnetBlock(outer);
  return (
    block !== undefined &&
    subnetBlock(inner) !== undefined &&
    family(address) === family(cidrParts(outer)[0]) &&
    bits >= outerBits &&
    block.check(address, family(address))
  );
}

/** Whether two CIDRs share an address: one lies inside the other. */
const cidrsOverlap = (a: string, b: string): boolean => cidrWithin(a, b) || cidrWithin(b, a);

/** Whether `ip` lies in the network's subnet. */
export function onSegment(network: NodeNetwork, ip: string): boolean {
  return isAddress(ip) && (subnetBlock(network.subnet)?.check(ip, family(ip)) ?? false);
}

/** Every node's address with its role. */
export function nodeRoles(network: NodeNetwork): Map<string, NodeRole> {
  return new Map<string, NodeRole>([...network.controlPlane.map((a) => [a, 'control-plane'] as const), ...network.workers.map((a) => [a, 'worker'] as const)]);
}

/** Every address the segment already gives to something: the nodes, the gateway and the VIP, each with what it is. */
export function reservedAddresses(network: NodeNetwork): Map<string, string> {
  const out = new Map<string, string>([[network.gateway, 'the gateway']]);
  if (network.vip) out.set(network.vip, "the control plane's VIP");
  for (const [address, role] of nodeRoles(network)) out.set(address, `a ${role} node`);
  return out;
}

/**
 * Reads the fact (YAML in a ConfigMap string), holding it to itself and to the node counts: every address on the
 * subnet, none given twice, as many control-plane nodes as `controlPlaneCount` and as many nodes in all as
 * `nodeCount`. The network is returned when its shape is right, even with problems, so one wrong address does not
 * silence every check that reads the others.
 */
export function readNodeNetwork(raw: unknown, counts: { nodeCount: number; controlPlaneCount: number }): { network?: NodeNetwork; problems: string[] } {
  if (raw === undefined) return { problems: ['cluster fact "nodeNetwork" is missing: state the nodes\' subnet, gateway and addresses'] };
  let value: Record<string, unknown>;
  try {
    value = typeof raw === 'string' ? parse(raw) : undefined;
  } catch (err) {
    return { problems: [`cluster fact "nodeNetwork" does not parse: ${(err as Error).message.split('\n')[0]}`] };
  }
  const addresses = (v: unknown): v is string[] => Array.isArray(v) && v.every(isAddress);
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof value.subnet !== 'string' ||
    !isAddress(value.gateway) ||
    (value.vip !== undefined && !isAddress(value.vip)) ||
    !addresses(value.controlPlane) ||
    !addresses(value.workers) ||
    typeof value.pods !== 'string' ||
    typeof value.services !== 'string' ||
    (value.nodePorts !== undefined && typeof value.nodePorts !== 'string')
  )
    return { problems: [SHAPE] };
  const nodePorts = value.nodePorts === undefined ? DEFAULT_NODE_PORTS : parsePortRange(value.nodePorts as string);
  if (!nodePorts) return { problems: [`cluster fact "nodeNetwork": nodePorts "${String(value.nodePorts)}" is not a port range (30000-32767)`] };
  const { hosts, problem } = hostsOf(value.hosts);
  const { forwards, problem: forwardProblem } = forwardsOf(value.forwards);
  const network: NodeNetwork = {
    subnet: value.subnet,
    gateway: value.gateway,
    ...(typeof value.vip === 'string' ? { vip: value.vip } : {}),
    controlPlane: value.controlPlane,
    workers: value.workers,
    pods: value.pods,
    services: value.services,
    nodePorts,
    ...(hosts ? { hosts } : {}),
    ...(forwards ? { forwards } : {}),
  };
  for (const key of ['subnet', 'pods', 'services'] as const)
    if (!subnetBlock(network[key])) return { problems: [`cluster fact "nodeNetwork": ${key} "${network[key]}" is not a CIDR`] };
  const problems: string[] = [problem, forwardProblem].filter((p) => p !== undefined);
  if (forwards && !onSegment(network, forwards.address))
    problems.push(`cluster fact "nodeNetwork": the router forwards to ${forwards.address}, outside the subnet ${network.subnet}`);
  // Three networks the nodes route between: one inside another sends a pod's or a Service's traffic to the wrong one.
  const nets = [
    ['subnet', network.subnet],
    ['pods', network.pods],
    ['services', network.services],
  ] as const;
  for (const [i, [a, cidrA]] of nets.entries())
    for (const [b, cidrB] of nets.slice(i + 1))
      if (cidrsOverlap(cidrA, cidrB)) problems.push(`cluster fact "nodeNetwork": ${a} ${cidrA} and ${b} ${cidrB} overlap`);
  const seen = new Map<string, string>();
  const named: [string, string][] = [
    [network.gateway, 'the gateway'],
    ...(network.vip ? [[network.vip, 'the VIP'] as [string, string]] : []),
    ...network.controlPlane.map((a) => [a, 'a control-plane node'] as [string, string]),
    ...network.workers.map((a) => [a, 'a worker'] as [string, string]),
  ];
  for (const [address, what] of named) {
    if (!onSegment(network, address)) problems.push(`cluster fact "nodeNetwork": ${what} (${address}) is outside the subnet ${network.subnet}`);
    const first = seen.get(address);
    if (first) problems.push(`cluster fact "nodeNetwork": ${address} is both ${first} and ${what}`);
    else seen.set(address, what);
  }
  if (Number.isInteger(counts.controlPlaneCount) && network.controlPlane.length !== counts.controlPlaneCount)
    problems.push(`cluster fact "nodeNetwork" lists ${network.controlPlane.length} control-plane nodes, and controlPlaneCount is ${counts.controlPlaneCount}`);
  const total = network.controlPlane.length + network.workers.length;
  if (Number.isInteger(counts.nodeCount) && total !== counts.nodeCount)
    problems.push(`cluster fact "nodeNetwork" lists ${total} nodes, and nodeCount is ${counts.nodeCount}`);
  return { network, problems };
}

/** Environment variables whose value names a node by its address, with the role that node must have. */
export const NODE_ADDRESS_ENV: ReadonlyMap<string, { role: 'control-plane'; why: string }> = new Map([
  ['TALOS_NODE', { role: 'control-plane', why: 'talosctl etcd snapshot asks that node for its etcd, which only a control-plane node runs' }],
]);

export interface NamedNode {
  address: string;
  /** The variable that names it. */
  env: string;
  resource: Resource;
  /** Where its value is written. */
  at: Path;
}

/** One variable of a container with where it is set under it (`env`, or the `envFrom` entry whose source sets it). */
export type ContainerVariable = { name: unknown; value?: unknown; at: readonly ['env' | 'envFrom', number] };

/** A container's env entries, each with where it is set: its variables where no reader of its envFrom sources is given. */
const envEntries = (_resource: Resource, c: ContainerRef): ContainerVariable[] =>
  list(c.container.env).map((e, i) => ({ ...obj(e), name: obj(e).name, at: ['env', i] as const }));

/**
 * Every node the repository's workloads name by address: each container's variables as `variables` gives them
 * (model/cluster/provided-keys.ts givenVariables, its envFrom sources too), else its env entries.
 */
export function namedNodes(
  resources: readonly Resource[],
  variables: (resource: Resource, c: ContainerRef) => readonly ContainerVariable[] = envEntries,
): NamedNode[] {
  const out: NamedNode[] = [];
  for (const { resource, c } of workloadContainers(resources))
    for (const e of variables(resource, c)) {
      const { name, value } = e;
      if (typeof name === 'string' && NODE_ADDRESS_ENV.has(name) && typeof value === 'string' && isAddress(value))
        out.push({ address: value, env: name, resource, at: [...c.at, ...e.at, ...(e.at[0] === 'env' ? ['value'] : [])] });
    }
  return out;
}
