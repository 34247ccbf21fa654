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
import { ipFromInt, ipNetContains, ipNetPrefix, ipString, ipToInt, parseGoIP, to4, type GoIP, type GoIPNet } from '../go/net.ts';

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

/** An address given (`asked`: the one the Service asks for, else the allocator's pick of the moment), or why none is. */
export type Allocation = { pool: string; ips: string[]; asked: boolean } | { error: string; path: Path };

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
/** A Service's ports as MetalLB's sharing compares them: `<protocol>/<port>`, TCP where none is written. */
export const portsOf = (svc: Pick<LBService, 'spec'>): string[] =>
  (Array.isArray(svc.spec.ports) ? svc.spec.ports : []).map((p: Obj) => `${p?.protocol ?? 'TCP'}/${p?.port}`);
const goIPs = (ips: readonly GoIP[]) => `[${ips.map((ip) => JSON.stringify(ipString(ip))).join(' ')}]`;

export interface SharingKey {
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

/** What the allocator is asked on a Service's behalf: its key, where it runs, its labels, its ports and sharing key. */
export interface AllocationRequest {
  svcKey: string;
  namespace: string;
  labels: Readonly<Record<string, string>>;
  /** Each port as `PROTO/port`, as MetalLB prints a Port. */
  ports: readonly string[];
  key: SharingKey;
}

/** The request a Service makes (k8salloc.Ports, SharingKey, BackendKey). */
export const requestOf = (svc: LBService): AllocationRequest => ({
  svcKey: svc.key,
  namespace: svc.namespace,
  labels: svc.labels,
  ports: portsOf(svc),
  key: keyOf(svc),
});

/** The allocator's state over one run: what each Service holds, and who holds each address, under which key, on which ports. */
export class MetalLBAllocator {
  private readonly pools: readonly AllocatorPool[];
  private readonly allocated = new Map<string, { pool: string; ips: string[]; ports: readonly string[] }>();
  private readonly keyForIP = new Map<string, SharingKey>();
  private readonly portsInUse = new Map<string, Map<string, string>>();
  private readonly servicesOnIP = new Map<string, Set<string>>();

  constructor(pools: readonly AllocatorPool[]) {
    this.pools = [...pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The addresses a Service holds, as Go prints them. */
  assigned(svcKey: string): string[] | undefined {
    return this.allocated.get(svcKey)?.ips;
  }

  /** isPoolCompatibleWithService */
  private compatible(p: AllocatorPool, req: AllocationRequest): boolean {
    if (!p.allocation) return true;
    if (p.allocation.namespaces.size > 0 && !p.allocation.namespaces.has(req.namespace)) return false;
    if (p.allocation.serviceSelectors.length > 0) return p.allocation.serviceSelectors.some((s) => selectorMatches(s, req.labels));
    return true;
  }

  /** poolFor: the pool whose CIDRs hold every address (an address its buggy-IP rule avoids held by none). */
  private poolFor(ips: readonly GoIP[]): AllocatorPool | undefined {
    return this.pools.find((p) => ips.every((ip) => !(p.avoidBuggyIPs && buggy(ip)) && p.nets.some((n) => ipNetContains(n, ip))));
  }

  /** checkSharing */
  private sharing(req: AllocationRequest, ip: string): string | undefined {
    const existing = this.keyForIP.get(ip);
    if (!existing) return undefined;
    if (sharingProblem(existing, req.key)) {
      const others = [...(this.servicesOnIP.get(ip) ?? [])].filter((s) => s !== req.svcKey);
      if (others.length > 0) return `can't change sharing key for ${JSON.stringify(req.svcKey)}, address also in use by ${others.join(',')}`;
    }
    for (const port of req.ports) {
      const holder = this.portsInUse.get(ip)?.get(port);
      if (holder !== undefined && holder !== req.svcKey) return `port ${port} is already in use on ${JSON.stringify(ip)}`;
    }
    return undefined;
  }

  /** Unassign: the Service's addresses freed, an address no port holds any more freed of its sharing key too. */
  unassign(svcKey: string): void {
    const held = this.allocated.get(svcKey);
    if (!held) return;
    this.allocated.delete(svcKey);
    for (const ip of held.ips) {
      for (const port of held.ports) this.portsInUse.get(ip)?.delete(port);
      this.servicesOnIP.get(ip)?.delete(svcKey);
      if ((this.portsInUse.get(ip)?.size ?? 0) === 0) {
        this.portsInUse.delete(ip);
        this.keyForIP.delete(ip);
      }
    }
  }

  /** Assign: the addresses to the Service, or why not. */
  assign(req: AllocationRequest, ips: readonly GoIP[]): { pool: string } | { error: string } {
    const pool = this.poolFor(ips);
    if (!pool) return { error: `${goIPs(ips)} is not allowed in config` };
    if (!this.compatible(pool, req)) return { error: `pool ${pool.name} not compatible for ip assignment` };
    if (ips.length > 2) return { error: `more than two addresses ${goIPs(ips)}` };
    if (ips.length === 2 && familyOf(ips[0]!) === familyOf(ips[1]!)) return { error: `"${ipString(ips[0]!)}" "${ipString(ips[1]!)}" has the same family` };
    for (const ip of ips) {
      const problem = this.sharing(req, ipString(ip));
      if (problem) return { error: problem };
    }
    this.unassign(req.svcKey);
    const texts = ips.map(ipString);
    this.allocated.set(req.svcKey, { pool: pool.name, ips: texts, ports: [...req.ports] });
    for (const ip of texts) {
      this.keyForIP.set(ip, req.key);
      const inUse = this.portsInUse.get(ip) ?? new Map<string, string>();
      for (const port of req.ports) inUse.set(port, req.svcKey);
      this.portsInUse.set(ip, inUse);
      this.servicesOnIP.set(ip, (this.servicesOnIP.get(ip) ?? new Set()).add(req.svcKey));
    }
    return { pool: pool.name };
  }

  /** getIPFromCIDR: the first address of the CIDR the Service may take (addresses held are few, so the walk is short). */
  private freeIn(n: GoIPNet, avoidBuggy: boolean, req: AllocationRequest): GoIP | undefined {
    const bytes = to4(n.ip) ?? n.ip;
    const bits = bytes.length * 8;
    const first = ipToInt(bytes);
    const size = 1n << BigInt(bits - ipNetPrefix(n));
    for (let i = 0n; i < size; i++) {
      const ip = ipFromInt(first + i, bits / 8);
      if ((avoidBuggy && buggy(ip)) || this.sharing(req, ipString(ip))) continue;
      return ip;
    }
    return undefined;
  }

  /** getFreeIPsFromPool: one free address of each family the pool has. */
  private freeInPool(pool: AllocatorPool, req: AllocationRequest): Partial<Record<IPFamily, GoIP>> | undefined {
    const found: Partial<Record<IPFamily, GoIP>> = {};
    for (const n of pool.nets) {
      const family = familyOf(n.ip);
      if (found[family]) continue;
      const ip = this.freeIn(n, pool.avoidBuggyIPs, req);
      if (ip) found[family] = ip;
    }
    return found.IPv4 || found.IPv6 ? found : undefined;
  }

  /** allocateFromPools, single-stack: the first pool with a free address of the family, assigned. */
  private fromPools(pools: readonly AllocatorPool[], req: AllocationRequest, family: IPFamily): string[] | undefined {
    for (const pool of pools) {
      const ip = this.freeInPool(pool, req)?.[family];
      if (!ip) continue;
      return 'error' in this.assign(req, [ip]) ? undefined : [ipString(ip)];
    }
    return undefined;
  }

  /** pinnedPoolsForService, sorted as sortPools sorts them: a priority first, the lowest first; none last. */
  private pinned(req: AllocationRequest): AllocatorPool[] {
    const byNamespace = this.pools.filter((p) => p.allocation?.namespaces.has(req.namespace));
    const bySelector = this.pools.filter((p) => (p.allocation?.serviceSelectors.length ?? 0) > 0);
    const pools = [...byNamespace, ...bySelector].filter((p) => p.autoAssign && this.compatible(p, req));
    const rank = (p: AllocatorPool) => (p.allocation!.priority > 0 ? p.allocation!.priority : Number.POSITIVE_INFINITY);
    return pools.sort((a, b) => rank(a) - rank(b));
  }

  /** Allocate, single-stack: what the Service holds again, else the pinned pools, else any pool that pins nothing. */
  allocateAny(req: AllocationRequest, family: IPFamily): string[] | { error: string } {
    const held = this.allocated.get(req.svcKey);
    if (held) {
      const again = this.assign(
        req,
        held.ips.map((ip) => parseGoIP(ip)!),
      );
      return 'error' in again ? again : held.ips;
    }
    const open = this.pools.filter((p) => p.autoAssign && !p.allocation);
    return this.fromPools(this.pinned(req), req, family) ?? this.fromPools(open, req, family) ?? { error: 'no available IPs' };
  }

  /** AllocateFromPool, single-stack: a free address of the family from the pool named. */
  allocateFromPool(req: AllocationRequest, family: IPFamily, poolName: string): string[] | { error: string } {
    const named = this.pools.find((p) => p.name === poolName);
    if (!named) return { error: `unknown pool ${JSON.stringify(poolName)}` };
    const free = this.freeInPool(named, req);
    if (!free) return { error: `no available IPs in pool ${named.name}` };
    const ip = free[family];
    if (!ip) return { error: `no available IPs in pool ${named.name} for ${family} IPFamily` };
    const assigned = this.assign(req, [ip]);
    return 'error' in assigned ? assigned : [ipString(ip)];
  }

  /** allocateIPs for one Service: the addresses it gets, or why it gets none (and stays <pending>). */
  allocate(svc: LBService): Allocation {
    const wanted = desiredIPs(svc);
    if ('error' in wanted) return wanted;
    const req = requestOf(svc);
    const pool = annotation(svc, POOL, POOL_OLD);
    if (wanted.ips.length > 0) {
      if (wanted.ips.some((ip) => familyOf(ip) !== svc.family))
        return { error: `requested loadBalancer IP(s) ${goIPs(wanted.ips)} does not match the ipFamily of the service`, path: wanted.path };
      const assigned = this.assign(req, wanted.ips);
      if ('error' in assigned) return { error: assigned.error, path: wanted.path };
      if (pool.value !== '' && assigned.pool !== pool.value) {
        this.unassign(req.svcKey);
        return { error: `requested loadBalancer IP(s) ${goIPs(wanted.ips)} is not compatible with requested address pool ${pool.value}`, path: pool.path };
      }
      return { pool: assigned.pool, ips: wanted.ips.map(ipString), asked: true };
    }
    const got = pool.value !== '' ? this.allocateFromPool(req, svc.family, pool.value) : this.allocateAny(req, svc.family);
    if ('error' in got) return { error: got.error, path: pool.value !== '' ? pool.path : ['spec', 'type'] };
    return { pool: this.allocated.get(req.svcKey)!.pool, ips: got, asked: false };
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
