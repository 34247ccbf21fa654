/**
 * MetalLB's controller handing LoadBalancer Services their addresses (v0.16.1: controller/service.go's
 * `allocateIPs`, internal/allocator's `Assign`, `AllocateFromPool` and `Allocate`): an address asked for
 * (metallb.io/loadBalancerIPs, or spec.loadBalancerIP) from the pool that holds it, if the pool serves the Service and
 * nobody else holds the address on the same ports without the same sharing key; else an address from the pool
 * named (metallb.io/address-pool); else from the pools pinned to the Service's namespace or labels (by priority), then
 * from any pool that auto-assigns and pins nothing. A Service it refuses stays <pending>. Services are taken in the
 * order a starting controller lists them (namespace, then name); of several pools that could serve one, Go picks one
 * in map order, this the first by name. One IP family a Service (the cluster's, or its ipFamilies' first).
 */
import { selectorMatches } from '../core/label-selector.ts';
import { parsePoolEntry } from './address-pools.ts';
import type { Path } from '../core/positions.ts';
import { ipNetContains, ipNetPrefix, ipString, parseGoIP, to4, type GoIP, type GoIPNet } from '../go/net.ts';

type Obj = Record<string, any>;
export type IPFamily = 'IPv4' | 'IPv6';

/** A pool as the allocator holds it (config.Pool). */
export interface AllocatorPool {
  name: string;
  nets: GoIPNet[];
  autoAssign: boolean;
  avoidBuggyIPs: boolean;
  /** Its service allocation: the namespaces it serves (named or selected) and its Service selectors ([{}] where it names neither). */
  allocation?: { priority: number; namespaces: ReadonlySet<string>; serviceSelectors: readonly Obj[] };
}

/** A LoadBalancer Service as MetalLB reads it. */
export interface LBService {
  key: string;
  namespace: string;
  labels: Readonly<Record<string, string>>;
  annotations: Readonly<Record<string, string>>;
  spec: Obj;
  family: IPFamily;
}

export type Allocation = { pool: string; ips: string[] } | { error: string; path: Path };

const ANNOTATION = (name: string) => [`metallb.io/${name}`, `metallb.universe.tf/${name}`] as const;
const [LB_IPS, LB_IPS_OLD] = ANNOTATION('loadBalancerIPs');
const [POOL, POOL_OLD] = ANNOTATION('address-pool');
const [SHARED, SHARED_OLD] = ANNOTATION('allow-shared-ip');

/** valueForAnnotation: the stable annotation where it is set, else the deprecated one, else ''. */
function annotation(svc: LBService, stable: string, deprecated: string): { value: string; path: Path } {
  const key = stable in svc.annotations ? stable : deprecated;
  return { value: svc.annotations[key] ?? '', path: ['metadata', 'annotations', key] };
}

const familyOf = (ip: GoIP): IPFamily => (to4(ip) ? 'IPv4' : 'IPv6');
const buggy = (ip: GoIP) => {
  const v4 = to4(ip);
  return v4 !== undefined && (v4[3] === 0 || v4[3] === 255);
};
const portsOf = (svc: LBService): string[] => (Array.isArray(svc.spec.ports) ? svc.spec.ports : []).map((p: Obj) => `${p?.protocol ?? 'TCP'}/${p?.port}`);
const goIPs = (ips: readonly GoIP[]) => `[${ips.map((ip) => JSON.stringify(ipString(ip))).join(' ')}]`;

interface SharingKey {
  sharing: string;
  backend: string;
}
function keyOf(svc: LBService): SharingKey {
  const selector = (svc.spec.selector ?? {}) as Record<string, string>;
  const backend =
    svc.spec.externalTrafficPolicy === 'Local'
      ? Object.keys(selector)
          .sort()
          .map((k) => `${k}=${selector[k]}`)
          .join(',')
      : '';
  return { sharing: svc.annotations[SHARED] ?? svc.annotations[SHARED_OLD] ?? '', backend };
}

/** sharingOK: why an address held under `existing` may not be shared with `next`. */
function sharingProblem(existing: SharingKey, next: SharingKey): string | undefined {
  if (existing.sharing === '') return 'existing service does not allow sharing';
  if (next.sharing === '') return 'new service does not allow sharing';
  if (existing.sharing !== next.sharing)
    return `sharing key ${JSON.stringify(next.sharing)} does not match existing sharing key ${JSON.stringify(existing.sharing)}`;
  if (existing.backend !== next.backend)
    return `backend key ${JSON.stringify(next.backend)} does not match existing sharing key ${JSON.stringify(existing.backend)}`;
  return undefined;
}

/** The allocator's state over one run: who holds each address, under which key, on which ports. */
export class MetalLBAllocator {
  private readonly pools: readonly AllocatorPool[];
  private readonly keyForIP = new Map<string, SharingKey>();
  private readonly portsInUse = new Map<string, Map<string, string>>();
  private readonly servicesOnIP = new Map<string, Set<string>>();

  constructor(pools: readonly AllocatorPool[]) {
    this.pools = [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** isPoolCompatibleWithService */
  private compatible(p: AllocatorPool, svc: LBService): boolean {
    if (!p.allocation) return true;
    if (p.allocation.namespaces.size > 0 && !p.allocation.namespaces.has(svc.namespace)) return false;
    if (p.allocation.serviceSelectors.length > 0) return p.allocation.serviceSelectors.some((s) => selectorMatches(s, svc.labels));
    return true;
  }

  /** poolFor: the pool whose CIDRs hold every address (an address its buggy-IP rule avoids held by none). */
  private poolFor(ips: readonly GoIP[]): AllocatorPool | undefined {
    return this.pools.find((p) => ips.every((ip) => !(p.avoidBuggyIPs && buggy(ip)) && p.nets.some((n) => ipNetContains(n, ip))));
  }

  /** checkSharing */
  private sharing(svc: string, ip: string, ports: readonly string[], key: SharingKey): string | undefined {
    const existing = this.keyForIP.get(ip);
    if (!existing) return undefined;
    if (sharingProblem(existing, key)) {
      const others = [...(this.servicesOnIP.get(ip) ?? [])].filter((s) => s !== svc);
      if (others.length > 0) return `can't change sharing key for ${JSON.stringify(svc)}, address also in use by ${others.join(',')}`;
    }
    for (const port of ports) {
      const holder = this.portsInUse.get(ip)?.get(port);
      if (holder !== undefined && holder !== svc) return `port ${port} is already in use on ${JSON.stringify(ip)}`;
    }
    return undefined;
  }

  /** Assign: the addresses to the Service, or why not. */
  assign(svc: LBService, ips: readonly GoIP[]): { pool: string } | { error: string } {
    const pool = this.poolFor(ips);
    if (!pool) return { error: `${goIPs(ips)} is not allowed in config` };
    if (!this.compatible(pool, svc)) return { error: `pool ${pool.name} not compatible for ip assignment` };
    if (ips.length > 2) return { error: `more than two addresses ${goIPs(ips)}` };
    if (ips.length === 2 && familyOf(ips[0]!) === familyOf(ips[1]!)) return { error: `"${ipString(ips[0]!)}" "${ipString(ips[1]!)}" has the same family` };
    const [ports, key] = [portsOf(svc), keyOf(svc)];
    for (const ip of ips) {
      const problem = this.sharing(svc.key, ipString(ip), ports, key);
      if (problem) return { error: problem };
    }
    for (const ip of ips.map(ipString)) {
      this.keyForIP.set(ip, key);
      const inUse = this.portsInUse.get(ip) ?? new Map<string, string>();
      for (const port of ports) inUse.set(port, svc.key);
      this.portsInUse.set(ip, inUse);
      this.servicesOnIP.set(ip, (this.servicesOnIP.get(ip) ?? new Set()).add(svc.key));
    }
    return { pool: pool.name };
  }

  /** getIPFromCIDR: the first address of the CIDR the Service may take (addresses held are few, so the walk is short). */
  private freeIn(n: GoIPNet, avoidBuggy: boolean, svc: LBService): GoIP | undefined {
    const v4 = to4(n.ip);
    const bytes = v4 ?? n.ip;
    const bits = bytes.length * 8;
    const first = [...bytes].reduce((acc, b) => (acc << 8n) | BigInt(b), 0n);
    const size = 1n << BigInt(bits - ipNetPrefix(n));
    const [ports, key] = [portsOf(svc), keyOf(svc)];
    for (let i = 0n; i < size; i++) {
      const at = first + i;
      const ip = Uint8Array.from({ length: bits / 8 }, (_, k) => Number((at >> BigInt(bits - 8 * (k + 1))) & 0xffn));
      if ((avoidBuggy && buggy(ip)) || this.sharing(svc.key, ipString(ip), ports, key)) continue;
      return ip;
    }
    return undefined;
  }

  /** getFreeIPsFromPool: one free address of each family the pool has. */
  private freeInPool(pool: AllocatorPool, svc: LBService): Partial<Record<IPFamily, GoIP>> | undefined {
    const found: Partial<Record<IPFamily, GoIP>> = {};
    for (const n of pool.nets) {
      const family = familyOf(n.ip);
      if (found[family]) continue;
      const ip = this.freeIn(n, pool.avoidBuggyIPs, svc);
      if (ip) found[family] = ip;
    }
    return found.IPv4 || found.IPv6 ? found : undefined;
  }

  /** allocateFromPools, single-stack: the first pool with a free address of the Service's family. */
  private fromPools(pools: readonly AllocatorPool[], svc: LBService): Allocation | undefined {
    for (const pool of pools) {
      const ip = this.freeInPool(pool, svc)?.[svc.family];
      if (!ip) continue;
      const assigned = this.assign(svc, [ip]);
      return 'error' in assigned ? undefined : { pool: assigned.pool, ips: [ipString(ip)] };
    }
    return undefined;
  }

  /** pinnedPoolsForService, sorted as sortPools sorts them: a priority first, the lowest first; none last. */
  private pinned(svc: LBService): AllocatorPool[] {
    const byNamespace = this.pools.filter((p) => p.allocation?.namespaces.has(svc.namespace));
    const bySelector = this.pools.filter((p) => (p.allocation?.serviceSelectors.length ?? 0) > 0);
    const pools = [...byNamespace, ...bySelector].filter((p) => p.autoAssign && this.compatible(p, svc));
    const rank = (p: AllocatorPool) => (p.allocation!.priority > 0 ? p.allocation!.priority : Number.POSITIVE_INFINITY);
    return pools.sort((a, b) => rank(a) - rank(b));
  }

  /** allocateIPs for one Service: the addresses it gets, or why it gets none (and stays <pending>). */
  allocate(svc: LBService): Allocation {
    const wanted = desiredIPs(svc);
    if ('error' in wanted) return wanted;
    const pool = annotation(svc, POOL, POOL_OLD);
    if (wanted.ips.length > 0) {
      if (wanted.ips.some((ip) => familyOf(ip) !== svc.family))
        return { error: `requested loadBalancer IP(s) ${goIPs(wanted.ips)} does not match the ipFamily of the service`, path: wanted.path };
      const assigned = this.assign(svc, wanted.ips);
      if ('error' in assigned) return { error: assigned.error, path: wanted.path };
      if (pool.value !== '' && assigned.pool !== pool.value)
        return { error: `requested loadBalancer IP(s) ${goIPs(wanted.ips)} is not compatible with requested address pool ${pool.value}`, path: pool.path };
      return { pool: assigned.pool, ips: wanted.ips.map(ipString) };
    }
    if (pool.value !== '') {
      const named = this.pools.find((p) => p.name === pool.value);
      if (!named) return { error: `unknown pool ${JSON.stringify(pool.value)}`, path: pool.path };
      const free = this.freeInPool(named, svc);
      if (!free) return { error: `no available IPs in pool ${named.name}`, path: pool.path };
      const ip = free[svc.family];
      if (!ip) return { error: `no available IPs in pool ${named.name} for ${svc.family} IPFamily`, path: pool.path };
      const assigned = this.assign(svc, [ip]);
      return 'error' in assigned ? { error: assigned.error, path: pool.path } : { pool: assigned.pool, ips: [ipString(ip)] };
    }
    const open = this.pools.filter((p) => p.autoAssign && !p.allocation);
    return this.fromPools(this.pinned(svc), svc) ?? this.fromPools(open, svc) ?? { error: 'no available IPs', path: ['spec', 'type'] };
  }
}

/** getDesiredLbIPs: the addresses a Service asks for, each as Go's net.ParseIP reads it. */
function desiredIPs(svc: LBService): { ips: GoIP[]; path: Path } | { error: string; path: Path } {
  const listed = annotation(svc, LB_IPS, LB_IPS_OLD);
  const legacy = typeof svc.spec.loadBalancerIP === 'string' ? svc.spec.loadBalancerIP : '';
  if (listed.value === '' && legacy === '') return { ips: [], path: [] };
  if (listed.value !== '' && legacy !== '') return { error: `service can not have both ${LB_IPS} and svc.Spec.LoadBalancerIP`, path: listed.path };
  if (listed.value !== '') {
    const ips = listed.value.split(',').map((s) => parseGoIP(s.trim()));
    if (ips.some((ip) => ip === undefined)) return { error: `invalid ${LB_IPS}: ${JSON.stringify(listed.value)}`, path: listed.path };
    return { ips: ips as GoIP[], path: listed.path };
  }
  const ip = parseGoIP(legacy);
  return ip
    ? { ips: [ip], path: ['spec', 'loadBalancerIP'] }
    : { error: `invalid spec.loadBalancerIP ${JSON.stringify(legacy)}`, path: ['spec', 'loadBalancerIP'] };
}

/**
 * A pool as the allocator holds it (config's addressPoolFromCR): its entries' CIDRs (an entry MetalLB cannot read,
 * which its webhook refuses, none), auto-assignment on unless turned off, and its service allocation with the
 * namespaces its selectors select among those the cluster has; an allocation naming nothing serves every Service.
 */
export function allocatorPool(pool: { name: string; spec: Obj }, namespaceLabels: ReadonlyMap<string, Obj>): AllocatorPool {
  const nets = (Array.isArray(pool.spec.addresses) ? pool.spec.addresses : []).flatMap((entry: unknown) => {
    const parsed = typeof entry === 'string' ? parsePoolEntry(entry) : { error: 'not a string' };
    return 'error' in parsed ? [] : parsed;
  });
  const base = { name: pool.name, nets, autoAssign: pool.spec.autoAssign !== false, avoidBuggyIPs: pool.spec.avoidBuggyIPs === true };
  const sa = pool.spec.serviceAllocation as Obj | undefined;
  if (!sa || typeof sa !== 'object') return base;
  const list = (v: unknown): Obj[] => (Array.isArray(v) ? v : []);
  const named = list(sa.namespaces).map(String);
  const selected = [...namespaceLabels].filter(([, labels]) => list(sa.namespaceSelectors).some((s) => selectorMatches(s, labels))).map(([name]) => name);
  const serviceSelectors = list(sa.serviceSelectors);
  const none = named.length === 0 && list(sa.namespaceSelectors).length === 0 && serviceSelectors.length === 0;
  return {
    ...base,
    allocation: { priority: Number(sa.priority) || 0, namespaces: new Set([...named, ...selected]), serviceSelectors: none ? [{}] : serviceSelectors },
  };
}
