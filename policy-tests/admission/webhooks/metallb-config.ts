/**
 * MetalLB's reading of its configuration (v0.16.1, internal/config/config.go: `For`): BFD profiles and peers, the
 * communities, the IPAddressPools (`addressPoolFromCR`, `ParseCIDR` on the model floor, the overlap of every pool's
 * CIDRs with those before it), the L2Advertisements (`l2AdvertisementFromCR`, the pool selectors) and the BGP
 * advertisements on the pools they apply to (metallb-bgp.ts), then `validateConfig`. Its webhooks refuse what this
 * refuses (metallb.ts). Each error is the first Go returns, as its text reads, with the object and the field it is about.
 */
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import {
  bgpAdvertisementFrom,
  checkAdvertisementOnPool,
  checkBFDProfile,
  checkPeer,
  communitiesFrom,
  type BGPAdvertisement,
  type Community,
  type PeerSecret,
} from './metallb-bgp.ts';
import {
  blame,
  duplicate,
  duplicateSelectors,
  list,
  parses,
  plain,
  Refused,
  refusal,
  selectorString,
  selectorText,
  strings,
  type ConfigError,
  type MetalLBObject,
} from './metallb-selectors.ts';
import { advertisedPools, parsePoolEntry } from '../../model/cluster/address-pools.ts';
import { ipEqual, ipNetContains, ipNetString, maskOnes, to4, type GoIPNet } from '../../model/go/net.ts';
import type { Path } from '../../model/core/positions.ts';

type Obj = Record<string, any>;

export type { ConfigError, MetalLBObject } from './metallb-selectors.ts';

/** cidrContainsCIDR, both ways. */
function cidrsOverlap(a: GoIPNet, b: GoIPNet): boolean {
  const contains = (outer: GoIPNet, inner: GoIPNet) => {
    const [ol, il] = [maskOnes(outer.mask), maskOnes(inner.mask)];
    return (ol === il && ipEqual(outer.ip, inner.ip)) || (ol < il && ipNetContains(outer, inner.ip));
  };
  return contains(a, b) || contains(b, a);
}

/** addressPoolFromCR and its service allocations: the pool's CIDRs, each with the address entry it comes from. */
function poolCIDRs(pool: MetalLBObject): { net: GoIPNet; index: number }[] {
  const wrap = (e: string) => `parsing address pool ${pool.name}: ${e}`;
  if (pool.name === '') throw new Refused(['metadata', 'name'], wrap('missing pool name'));
  const addresses = strings(pool.spec.addresses);
  if (addresses.length === 0) throw new Refused(['spec', 'addresses'], wrap('pool has no prefixes defined'));
  const nets = addresses.flatMap((cidr, index) => {
    const parsed = parsePoolEntry(cidr);
    if ('error' in parsed)
      throw new Refused(['spec', 'addresses', index], wrap(`invalid CIDR ${JSON.stringify(cidr)} in pool ${JSON.stringify(pool.name)}: ${parsed.error}`));
    return parsed.map((net) => ({ net, index }));
  });
  const allocateTo = pool.spec.serviceAllocation as Obj | undefined;
  if (allocateTo && typeof allocateTo === 'object') allocations(pool, allocateTo, wrap);
  return nets;
}

/** addressPoolServiceAllocationsFromCR: namespaces once each, selectors once each and each one that parses. */
function allocations(pool: MetalLBObject, allocateTo: Obj, wrap: (e: string) => string): void {
  const at: Path = ['spec', 'serviceAllocation'];
  const rewrap = (f: () => void) => {
    try {
      f();
    } catch (err) {
      throw err instanceof Refused ? new Refused(err.path, wrap(err.message)) : err;
    }
  };
  const namespaces = strings(allocateTo.namespaces);
  const twice = namespaces.findIndex((n, i) => namespaces.indexOf(n) !== i);
  if (twice !== -1) throw new Refused([...at, 'namespaces', twice], wrap('duplicate definition in namespaces field'));
  const [nsSelectors, svcSelectors] = [list(allocateTo.namespaceSelectors), list(allocateTo.serviceSelectors)];
  if (namespaces.length === 0 && nsSelectors.length === 0 && svcSelectors.length === 0) return;
  rewrap(() => duplicateSelectors(nsSelectors, 'namespaceSelectors', [...at, 'namespaceSelectors']));
  rewrap(() => duplicateSelectors(svcSelectors, 'serviceSelectors', [...at, 'serviceSelectors']));
  nsSelectors.forEach((s, i) =>
    rewrap(() => parses(s, [...at, 'namespaceSelectors', i], `invalid namespace label selector ${selectorString(s)} in ip pool ${pool.name}`)),
  );
  svcSelectors.forEach((s, i) =>
    rewrap(() => parses(s, [...at, 'serviceSelectors', i], `invalid service label selector ${selectorText(s, plain)} in ip pool ${pool.name}`)),
  );
}

/** l2AdvertisementFromCR, then the pool selectors' parse (setL2AdvertisementsToPools). */
function checkL2Advertisement(adv: MetalLBObject): void {
  const spec = adv.spec;
  duplicate(strings(spec.ipAddressPools), 'ipAddressPools', ['spec', 'ipAddressPools']);
  duplicateSelectors(list(spec.ipAddressPoolSelectors), 'ipAddressPoolSelectors', ['spec', 'ipAddressPoolSelectors']);
  duplicateSelectors(list(spec.nodeSelectors), 'nodeSelectors', ['spec', 'nodeSelectors']);
  duplicateSelectors(list(spec.serviceSelectors), 'serviceSelectors', ['spec', 'serviceSelectors']);
  list(spec.nodeSelectors).forEach((s, i) =>
    parses(s, ['spec', 'nodeSelectors', i], `invalid label selector ${selectorText(s, plain)}`, `failed to parse node selector for ${adv.name}`),
  );
  list(spec.serviceSelectors).forEach((s, i) => {
    const error = labelSelectorError(s);
    if (error)
      throw new Refused(
        ['spec', 'serviceSelectors', i],
        `invalid service selector ${selectorText(s, plain)}: ${error}\nfailed to parse service selector for ${adv.name}`,
      );
  });
  list(spec.ipAddressPoolSelectors).forEach((s, i) => parses(s, ['spec', 'ipAddressPoolSelectors', i], `invalid label selector ${selectorText(s, plain)}`));
}

/** MetalLB's kinds a configuration is read from, as the webhooks and the controller list them. */
export interface MetalLBResources {
  pools: readonly MetalLBObject[];
  l2Advs: readonly MetalLBObject[];
  peers?: readonly MetalLBObject[];
  bfdProfiles?: readonly MetalLBObject[];
  bgpAdvs?: readonly MetalLBObject[];
  communities?: readonly MetalLBObject[];
  nodes?: readonly { name: string; labels: Record<string, unknown> }[];
  /** The Secrets peers' passwords are read from, by name; undefined where they are not looked up (the webhooks). */
  passwordSecrets?: ReadonlyMap<string, PeerSecret>;
}

/** bfdProfilesFor and peersFor: each profile and peer parsed, a name once, a profile a peer names one that exists. */
function profilesAndPeers(r: MetalLBResources): { echo: Set<string>; peers: MetalLBObject[] } {
  const profiles = new Map<string, boolean>();
  (r.bfdProfiles ?? []).forEach((b, i) =>
    blame(b, () => {
      try {
        checkBFDProfile(b.name, b.spec);
      } catch (err) {
        throw err instanceof Refused ? new Refused(err.path, `parsing bfd profile #${i + 1}: ${err.message}`) : err;
      }
      if (profiles.has(b.name)) throw new Refused(['metadata', 'name'], `found duplicate bfd profile name ${b.name}`);
      profiles.set(b.name, b.spec.echoMode === true);
    }),
  );
  const seen = new Map<string, string>();
  for (const peer of r.peers ?? [])
    blame(peer, () => {
      try {
        checkPeer(peer.name, peer.namespace ?? '', peer.spec, r.passwordSecrets);
      } catch (err) {
        throw err instanceof Refused ? new Refused(err.path, `parsing peer ${peer.name} ${err.message}`) : err;
      }
      const profile = String(peer.spec.bfdProfile ?? '');
      if (profile !== '' && !profiles.has(profile))
        throw new Refused(['spec', 'bfdProfile'], `peer ${peer.name} referencing non existing bfd profile ${profile}`);
      if (seen.get(peer.name) === JSON.stringify(peer.spec)) throw new Refused(['metadata', 'name'], `peer ${peer.name} already exists`);
      seen.set(peer.name, JSON.stringify(peer.spec));
    });
  const echo = new Set((r.peers ?? []).filter((p) => profiles.get(String(p.spec.bfdProfile ?? '')) === true).map((p) => p.name));
  return { echo, peers: [...(r.peers ?? [])] };
}

/** poolsFor's pools: each parsed, no name twice, no CIDR overlapping one before it; each pool's CIDRs by address entry. */
function parsePools(pools: readonly MetalLBObject[]): Map<MetalLBObject, Map<string, GoIPNet[]>> {
  const names = new Set<string>();
  const all: GoIPNet[] = [];
  const out = new Map<MetalLBObject, Map<string, GoIPNet[]>>();
  for (const pool of pools)
    blame(pool, () => {
      const cidrs = poolCIDRs(pool);
      if (names.has(pool.name)) throw new Refused(['metadata', 'name'], `duplicate definition of pool ${JSON.stringify(pool.name)}`);
      names.add(pool.name);
      const entries = strings(pool.spec.addresses);
      const byEntry = new Map<string, GoIPNet[]>();
      for (const { net, index } of cidrs) {
        const earlier = all.find((m) => cidrsOverlap(net, m));
        if (earlier)
          throw new Refused(
            ['spec', 'addresses', index],
            `CIDR ${JSON.stringify(ipNetString(net))} in pool ${JSON.stringify(pool.name)} overlaps with already defined CIDR ${JSON.stringify(ipNetString(earlier))}`,
          );
        all.push(net);
        const entry = entries[index]!;
        byEntry.set(entry, [...(byEntry.get(entry) ?? []), net]);
      }
      out.set(pool, byEntry);
    });
  return out;
}

/** poolsFor's BGP part and validateConfig: no advertisement twice, each parsed and fit for each pool it applies to, no BFD echo on IPv6. */
function bgpAdvertisements(
  r: MetalLBResources,
  parsed: Map<MetalLBObject, Map<string, GoIPNet[]>>,
  peering: { aliases: Map<string, Community>; echo: Set<string>; peers: readonly MetalLBObject[] },
): void {
  const { aliases, echo, peers } = peering;
  const advs = r.bgpAdvs ?? [];
  advs.forEach((adv, j) => {
    const twin = advs.findIndex((other) => JSON.stringify([other.name, other.labels, other.spec]) === JSON.stringify([adv.name, adv.labels, adv.spec]));
    if (twin < j)
      blame(adv, () => {
        throw new Refused(['spec'], `duplicate definition of bgpadvertisements. advertisement ${twin + 1} and ${j + 1} are equal`);
      });
  });
  const attached = new Map<MetalLBObject, BGPAdvertisement[]>();
  const nodes = (r.nodes ?? []).map((n) => ({ name: n.name, labels: n.labels }));
  for (const adv of advs)
    blame(adv, () => {
      const parsedAdv = bgpAdvertisementFrom(adv.name, adv.spec, aliases, nodes);
      list(adv.spec.ipAddressPoolSelectors).forEach((s, i) =>
        parses(s, ['spec', 'ipAddressPoolSelectors', i], `invalid label selector ${selectorText(s, plain)}`),
      );
      for (const pool of advertisedPools(adv.spec, r.pools, (p) => p.labels)) {
        checkAdvertisementOnPool(parsedAdv, parsed.get(pool) ?? new Map(), attached.get(pool) ?? []);
        attached.set(pool, [...(attached.get(pool) ?? []), parsedAdv]);
        const v6 = [...(parsed.get(pool)?.values() ?? [])].flat().some((n) => !to4(n.ip));
        const reached = parsedAdv.peers.length === 0 ? peers.map((p) => p.name) : parsedAdv.peers;
        const echoing = v6 && reached.find((p) => echo.has(p));
        if (echoing)
          throw new Refused(
            ['spec', 'peers'],
            `pool ${pool.name} has bgpadvertisement ${adv.name} which references peer ${echoing} which has bfd echo enabled, which is not possible`,
          );
      }
    });
}

/**
 * `For(resources, validate)` as MetalLB runs it: BFD profiles and peers, then the communities, the pools (each parsed,
 * no name twice, no CIDR overlapping one before it), the layer-2 advertisements, the BGP advertisements on the pools
 * they apply to, and no BFD echo towards a peer of an IPv6 pool. The first error, with the object it is about.
 */
export function parseConfig(r: MetalLBResources): ConfigError | undefined {
  try {
    const { echo, peers } = profilesAndPeers(r);
    const aliases = communitiesFrom(r.communities ?? []);
    const parsed = parsePools(r.pools);
    for (const adv of r.l2Advs) blame(adv, () => checkL2Advertisement(adv));
    bgpAdvertisements(r, parsed, { aliases, echo, peers });
    return undefined;
  } catch (err) {
    return refusal(err);
  }
}
