/**
 * What each of MetalLB's BGP modes refuses before its configuration is parsed (v0.16.1, internal/config/validation.go):
 * the native mode the features only FRR has (`DiscardFRROnly`), the FRR modes two peers one FRR instance cannot hold
 * (`DiscardNativeOnly`). The chart's values pick the mode.
 */
import { parsePoolEntry } from '../../model/cluster/address-pools.ts';
import { selectorMatches } from '../../model/core/label-selector.ts';
import { goDurationMs } from '../../model/core/time.ts';
import { ipNetString, to4 } from '../../model/go/net.ts';
import { labelSelectorError } from '../../model/scheduling/label-syntax.ts';
import { parseCommunity } from './metallb-bgp.ts';
import { list, plain, selectorText, strings, type ConfigError, type MetalLBObject } from './metallb-selectors.ts';

type Obj = Record<string, any>;

/**
 * DiscardFRROnly: what MetalLB's native BGP mode (the speaker without FRR) refuses, before anything is parsed: a peer
 * field only FRR reads, a BFD profile, an IPv6 pool a BGP advertisement applies to, a large community.
 */
export function discardFRROnly(r: {
  pools: readonly MetalLBObject[];
  peers?: readonly MetalLBObject[];
  bfdProfiles?: readonly MetalLBObject[];
  bgpAdvs?: readonly MetalLBObject[];
  communities?: readonly MetalLBObject[];
}): ConfigError | undefined {
  const FRR_ONLY: [string, (v: unknown) => boolean, string][] = [
    ['bfdProfile', (v) => typeof v === 'string' && v !== '', 'bfd-profile'],
    ['keepaliveTime', (v) => typeof v === 'string' && (goDurationMs(v) ?? 0) !== 0, 'keepalive-time'],
    ['vrf', (v) => typeof v === 'string' && v !== '', 'vrf'],
    ['connectTime', (v) => v !== undefined && v !== null, 'connect time'],
    ['enableGracefulRestart', (v) => v === true, 'EnableGracefulRestart flag'],
    ['disableMP', (v) => v === true, 'disable MP flag'],
    ['dualStackAddressFamily', (v) => v === true, 'dualstackaddressfamily flag'],
    ['dynamicASN', (v) => typeof v === 'string' && v !== '', 'dynamicASN'],
    ['interface', (v) => typeof v === 'string' && v !== '', 'interface'],
    ['localASN', (v) => typeof v === 'number' && v !== 0, 'localASN'],
  ];
  for (const peer of r.peers ?? [])
    for (const [field, set, what] of FRR_ONLY)
      if (set(peer.spec[field]))
        return { object: peer, path: ['spec', field], message: `peer ${String(peer.spec.peerAddress ?? '')} has ${what} set on native bgp mode` };
  const [firstProfile] = r.bfdProfiles ?? [];
  if (firstProfile) return { object: firstProfile, path: ['spec'], message: 'bfd profiles section set' };
  const advs = r.bgpAdvs ?? [];
  if (advs.length > 0) {
    const all = advs.some((a) => strings(a.spec.ipAddressPools).length === 0 && list(a.spec.ipAddressPoolSelectors).length === 0);
    const names = new Set(advs.flatMap((a) => strings(a.spec.ipAddressPools)));
    const selectors = advs.flatMap((a) => list(a.spec.ipAddressPoolSelectors));
    for (const pool of r.pools) {
      if (!all && !names.has(pool.name) && !selectors.some((s) => selectorMatches(s, pool.labels))) continue;
      for (const entry of strings(pool.spec.addresses)) {
        const nets = parsePoolEntry(entry);
        if ('error' in nets)
          return {
            object: pool,
            path: ['spec', 'addresses'],
            message: `invalid CIDR ${JSON.stringify(entry)} in pool ${JSON.stringify(pool.name)}: ${nets.error}`,
          };
        const v6 = nets.find((n) => !to4(n.ip));
        if (v6)
          return {
            object: pool,
            path: ['spec', 'addresses'],
            message: `pool ${JSON.stringify(pool.name)} has ipv6 CIDR ${ipNetString(v6)}, native bgp mode does not support ipv6`,
          };
      }
    }
  }
  for (const adv of advs)
    for (const [i, c] of strings(adv.spec.communities).entries()) {
      const parsed = parseCommunity(c);
      if (!('error' in parsed) && !parsed.legacy)
        return {
          object: adv,
          path: ['spec', 'communities', i],
          message: `native BGP mode only supports legacy communities, BGP advertisement ${JSON.stringify(adv.name)} has non legacy community ${JSON.stringify(c)}`,
        };
    }
  for (const co of r.communities ?? [])
    for (const [i, alias] of list(co.spec.communities).entries()) {
      const parsed = parseCommunity(String(alias?.value ?? ''));
      if (!('error' in parsed) && !parsed.legacy)
        return {
          object: co,
          path: ['spec', 'communities', i, 'value'],
          message: `native BGP mode only supports legacy communities, BGP community CR ${JSON.stringify(co.name)} has non legacy community {${String(alias?.name ?? '')} ${String(alias?.value ?? '')}}`,
        };
    }
  return undefined;
}

/** PeerIdentifier: a peer's address (or interface), with its VRF where it has one. */
const peerIdentifier = (spec: Obj): string => {
  const id = String(spec.peerAddress ?? '') || String(spec.interface ?? '');
  return spec.vrf ? `${id}-${String(spec.vrf)}` : id;
};

/** selectedNodes: the nodes any of the selectors match, every node where there are none. */
function selectedNodes(nodes: readonly { name: string; labels: Obj }[], selectors: readonly Obj[]): Set<string> {
  return new Set(nodes.filter((n) => selectors.length === 0 || selectors.some((s) => selectorMatches(s, n.labels))).map((n) => n.name));
}

/**
 * DiscardNativeOnly (checkFRRPeersCompatible): what the FRR modes refuse of two peers that share a node, one FRR
 * instance: different router IDs, the same peer twice, different local ASNs within one VRF. With no nodes known,
 * every two peers share one, as MetalLB assumes.
 */
export function discardNativeOnly(r: { peers?: readonly MetalLBObject[]; nodes?: readonly { name: string; labels: Obj }[] }): ConfigError | undefined {
  const peers = r.peers ?? [];
  const nodes = r.nodes ?? [];
  for (const [i, p] of peers.entries())
    for (const q of peers.slice(0, i)) {
      const bad = [p, q].flatMap((peer) =>
        list(peer.spec.nodeSelectors).flatMap((s, k) => {
          const error = labelSelectorError(s);
          return error ? [{ peer, k, s, error }] : [];
        }),
      )[0];
      if (bad && nodes.length > 0)
        return {
          object: bad.peer,
          path: ['spec', 'nodeSelectors', bad.k],
          message: `${bad.error}\ninvalid label selector ${selectorText(bad.s, plain)}`,
        };
      if (nodes.length > 0) {
        const [mine, theirs] = [selectedNodes(nodes, list(p.spec.nodeSelectors)), selectedNodes(nodes, list(q.spec.nodeSelectors))];
        if (![...mine].some((n) => theirs.has(n))) continue;
      }
      const [ps, qs] = [p.spec, q.spec];
      if (String(ps.routerID ?? '') !== String(qs.routerID ?? ''))
        return {
          object: p,
          path: ['spec', 'routerID'],
          message: `peer ${String(ps.routerID ?? '')} has RouterID different from ${String(qs.routerID ?? '')}, in FRR mode peers selecting the same node must all have the same RouterID`,
        };
      if (peerIdentifier(ps) === peerIdentifier(qs))
        return {
          object: p,
          path: ['spec', 'peerAddress'],
          message: `peer ${peerIdentifier(ps)} already exists, FRR mode doesn't support duplicate BGPPeers selecting the same node`,
        };
      if (Number(ps.myASN ?? 0) !== Number(qs.myASN ?? 0) && String(ps.vrf ?? '') === String(qs.vrf ?? ''))
        return {
          object: p,
          path: ['spec', 'myASN'],
          message: `peer ${peerIdentifier(ps)} has myAsn different from ${peerIdentifier(qs)}, in FRR mode peers selecting the same node must have the same myAsn within the same VRF`,
        };
    }
  return undefined;
}
