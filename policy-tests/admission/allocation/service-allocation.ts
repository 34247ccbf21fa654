/**
 * What the Service registry's allocator refuses on create, after validation (k8s.io/kubernetes v1.36,
 * pkg/registry/core/service/storage/alloc.go: `initIPFamilyFields`, `allocIPs`; the IP and port allocators): families
 * and addresses are the cluster's to give. A cluster has the IP families of its Service ranges (the API server's
 * `--service-cluster-ip-range`, Talos' serviceSubnets; a ServiceCIDR object widens a family's range, never adds a
 * family); a Service may ask for a cluster IP only inside them and not taken, and a node port only inside the
 * node-port range (the facts', the API server's default 30000-32767 where they name none) and not taken. What one Service takes, the next cannot.
 */
import { BlockList } from 'node:net';
import { ipFamilyOf } from '../../model/repository/node-network.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from '../validation/metadata.ts';

type Obj = Record<string, any>;

/** The cluster's Service network: its ranges by family, the first giving the default family. */
export interface ServiceNetwork {
  /** Each Service range as a CIDR (`10.96.0.0/12`), the first the default family's. */
  ranges: readonly string[];
  /** The node-port range, inclusive. */
  nodePorts: readonly [number, number];
  /** Addresses objects outside the repository hold (Talos' kube-dns), with who holds each. */
  held?: readonly { ip: string; by: string }[];
}

/** The API server's default node-port range (`--service-node-port-range`), which Talos leaves as it is. */

type Family = 'IPv4' | 'IPv6';
const FN = 'initIPFamilyFields';
const ALLOC = 'allocIPs';
const PORTS = 'initNodePorts';

/** A CIDR's block, with its network and (IPv4) broadcast addresses, which no Service is given; undefined where it is none. */
function rangeOf(cidr: string): { cidr: string; family: Family; block: BlockList; reserved: string[] } | undefined {
  const [net, bitsText] = cidr.split('/');
  const family = net === undefined ? undefined : ipFamilyOf(net);
  const bits = Number(bitsText);
  if (!family || !Number.isInteger(bits) || bits < 0 || bits > (family === 'IPv4' ? 32 : 128)) return undefined;
  const block = new BlockList();
  block.addSubnet(net!, bits, family === 'IPv4' ? 'ipv4' : 'ipv6');
  const reserved = [net!];
  if (family === 'IPv4' && bits < 32) {
    const base = net!.split('.').reduce((n, o) => n * 256 + Number(o), 0) >>> 0;
    const last = (base | (2 ** (32 - bits) - 1)) >>> 0;
    reserved.push([24, 16, 8, 0].map((s) => (last >>> s) & 255).join('.'));
  }
  return { cidr, family, block, reserved };
}

/** The `n`th address of an IPv4 range after its network address (1 is the `kubernetes` Service's); undefined for IPv6. */
export function nthAddress(cidr: string, n: number): string | undefined {
  const range = rangeOf(cidr);
  if (range?.family !== 'IPv4') return undefined;
  const base = range.reserved[0]!.split('.').reduce((total, o) => total * 256 + Number(o), 0) >>> 0;
  return [24, 16, 8, 0].map((s) => ((base + n) >>> s) & 255).join('.');
}

const isHeadless = (o: Obj) => o.spec?.clusterIP === 'None' || (Array.isArray(o.spec?.clusterIPs) && o.spec.clusterIPs[0] === 'None');
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** The cluster IPs a Service asks for, as clusterIPs holds them (clusterIP is its first). */
function askedIPs(o: Obj): { ips: string[]; path: PathSegment[] } {
  const listed = texts(o.spec?.clusterIPs);
  if (listed.length) return { ips: listed, path: ['spec', 'clusterIPs'] };
  const one = typeof o.spec?.clusterIP === 'string' && o.spec.clusterIP ? [o.spec.clusterIP] : [];
  return { ips: one, path: ['spec', 'clusterIP'] };
}

/** initIPFamilyFields' refusals: a family the cluster does not have, asked for or implied by an address. */
function familyProblems(o: Obj, families: ReadonlySet<Family>): Invalid[] {
  const out: Invalid[] = [];
  const { ips, path } = askedIPs(o);
  const asked = texts(o.spec?.ipFamilies);
  ips.forEach((ip, i) => {
    const family = ipFamilyOf(ip);
    if (ip === 'None' || !family || i < asked.length || families.has(family)) return;
    out.push({
      path: path.length === 2 && path[1] === 'clusterIP' ? path : [...path, i],
      fn: FN,
      message: `spec.clusterIPs[${i}]: Invalid value: ${JSON.stringify(ips)}: ${family} is not configured on this cluster`,
    });
  });
  if (out.length) return out;
  // Headless and selectorless: the special case that may carry families the cluster does not have.
  if (isHeadless(o) && !Object.keys(o.spec?.selector ?? {}).length) return [];
  if (o.spec?.ipFamilyPolicy === 'RequireDualStack' && families.size < 2)
    out.push({
      path: ['spec', 'ipFamilyPolicy'],
      fn: FN,
      message: 'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services',
    });
  asked.forEach((family, i) => {
    if (!families.has(family as Family))
      out.push({
        path: ['spec', 'ipFamilies', i],
        fn: FN,
        message: `spec.ipFamilies[${i}]: Invalid value: ${JSON.stringify(family)}: not configured on this cluster`,
      });
  });
  return out;
}

/** One Service as the allocator meets it. */
export interface AllocatedService {
  object: Obj;
  /** How a message names it: `Service media/sonarr`. */
  label: string;
}

/**
 * Every refusal of the allocator across `services`, created in the order given: each with the index of its Service.
 * Two that ask for one address or node port: the second is refused, as whichever Argo CD creates second would be.
 */
/** A Service the allocator refuses, and the Service of the list that holds what it asked for, where one does. */
export interface Refusal {
  index: number;
  invalid: Invalid;
  heldBy?: number;
}

export function serviceAllocations(services: readonly AllocatedService[], network: ServiceNetwork): Refusal[] {
  const ranges = network.ranges.map(rangeOf).filter((r) => r !== undefined);
  const families = new Set(ranges.map((r) => r.family));
  // What is taken, by whom: a label, and the Service's index where it is one of the list.
  const ipTaken = new Map<string, string>();
  const ipHolder = new Map<string, number>();
  const kubernetes = network.ranges[0] === undefined ? undefined : nthAddress(network.ranges[0], 1);
  if (kubernetes) ipTaken.set(kubernetes, 'the kubernetes Service (default/kubernetes), which the API server gives the first address');
  for (const { ip, by } of network.held ?? []) ipTaken.set(ip, by);
  const portTaken = new Map<number, string>();
  const portHolder = new Map<number, number>();
  const out: Refusal[] = [];
  services.forEach(({ object: o, label }, index) => {
    if (o.spec?.type === 'ExternalName') return;
    // No Service range known: the families and addresses are not judged (the check says so), the node ports are.
    const refused = ranges.length ? familyProblems(o, families) : [];
    for (const invalid of refused) out.push({ index, invalid });
    if (refused.length) return;
    const { ips, path } = ranges.length ? askedIPs(o) : { ips: [], path: [] };
    const isApiService = o.metadata?.name === 'kubernetes' && (o.metadata?.namespace ?? 'default') === 'default';
    ips.forEach((ip, i) => {
      const family = ipFamilyOf(ip);
      if (ip === 'None' || !family) return;
      const at = path[1] === 'clusterIP' ? path : [...path, i];
      const ofFamily = ranges.filter((r) => r.family === family);
      const fail = (why: string, heldBy?: number) =>
        out.push({
          index,
          invalid: { path: at, fn: ALLOC, message: `spec.clusterIPs: Invalid value: ${JSON.stringify(ips)}: failed to allocate IP ${ip}: ${why}` },
          ...(heldBy === undefined ? {} : { heldBy }),
        });
      if (!ofFamily.some((r) => r.block.check(ip, family === 'IPv4' ? 'ipv4' : 'ipv6') && !r.reserved.includes(ip)))
        fail(`the provided IP (${ip}) is not in the valid range. The range of valid IPs is ${ofFamily.map((r) => r.cidr).join(', ')}`);
      else if (ipTaken.has(ip) && !(isApiService && ip === kubernetes)) fail(`provided IP is already allocated (to ${ipTaken.get(ip)})`, ipHolder.get(ip));
      else {
        ipTaken.set(ip, label);
        ipHolder.set(ip, index);
      }
    });
    if (o.spec?.type !== 'NodePort' && o.spec?.type !== 'LoadBalancer') return;
    const mine = new Set<number>();
    (Array.isArray(o.spec?.ports) ? (o.spec.ports as Obj[]) : []).forEach((port, i) => {
      const nodePort = port?.nodePort;
      if (typeof nodePort !== 'number' || nodePort === 0 || mine.has(nodePort)) return;
      const at = ['spec', 'ports', i, 'nodePort'];
      const [low, high] = network.nodePorts;
      const fail = (why: string, heldBy?: number) =>
        out.push({
          index,
          invalid: { path: at, fn: PORTS, message: `spec.ports[${i}].nodePort: Invalid value: ${nodePort}: ${why}` },
          ...(heldBy === undefined ? {} : { heldBy }),
        });
      if (nodePort < low || nodePort > high) fail(`provided port is not in the valid range. The range of valid ports is ${low}-${high}`);
      else if (portTaken.has(nodePort)) fail(`provided port is already allocated (to ${portTaken.get(nodePort)})`, portHolder.get(nodePort));
      else {
        portTaken.set(nodePort, label);
        portHolder.set(nodePort, index);
        mine.add(nodePort);
      }
    });
  });
  return out;
}
