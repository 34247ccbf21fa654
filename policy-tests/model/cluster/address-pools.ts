/**
 * MetalLB's address pools: the one reading of a pool's address entries, as MetalLB reads them (parsePoolEntry), which
 * its webhook, its allocator (metallb-allocator.ts) and the checks of the nodes' segment share; and the addresses a
 * pool holds, in node:net's BlockList.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { dig, list, obj } from '../core/dig.ts';
import { selectorMatches } from '../core/label-selector.ts';
import { cidrMask, ipFromInt, ipNetPrefix, ipString, ipToInt, parseGoCIDR, parseGoIP, to16, to4, type GoIP, type GoIPNet } from '../go/net.ts';

/** mikioh/ipaddr's Summarize: the fewest prefixes that cover first..last, none where the families differ. */
export function summarize(first: GoIP, last: GoIP): GoIPNet[] {
  const [f4, l4] = [to4(first), to4(last)];
  if ((f4 === undefined) !== (l4 === undefined)) return [];
  const bits = f4 ? 32 : 128;
  const [from, to] = [ipToInt(f4 ?? first), ipToInt(l4 ?? last)];
  const out: GoIPNet[] = [];
  for (let fi = from; fi <= to;) {
    let n = bits;
    while (n > 0) {
      const size = 1n << BigInt(bits - n + 1);
      if (fi % size !== 0n || fi + size - 1n > to) break;
      n--;
    }
    // An IPv4 prefix's address is held in 16 bytes under a 4-byte mask, as ipaddr's Prefix holds it.
    out.push({ ip: to16(ipFromInt(fi, bits / 8)), mask: cidrMask(n, bits) });
    fi += 1n << BigInt(bits - n);
  }
  return out;
}

/**
 * MetalLB's reading of a pool's address entry (v0.16.1, internal/config: `ParseCIDR`): a CIDR as Go's net.ParseCIDR
 * reads it, or a range `start-end` of two addresses net.ParseIP reads, summarized into CIDRs; or MetalLB's error.
 */
export function parsePoolEntry(cidr: string): GoIPNet[] | { error: string } {
  const q = JSON.stringify;
  if (!cidr.includes('-')) {
    const n = parseGoCIDR(cidr);
    return n ? [n] : { error: `invalid CIDR ${q(cidr)}` };
  }
  const dash = cidr.indexOf('-');
  const [a, b] = [cidr.slice(0, dash), cidr.slice(dash + 1)];
  const start = parseGoIP(a.trim());
  if (!start) return { error: `invalid IP range ${q(cidr)}: invalid start IP ${q(a)}` };
  const end = parseGoIP(b.trim());
  if (!end) return { error: `invalid IP range ${q(cidr)}: invalid end IP ${q(b)}` };
  if (Buffer.compare(start, end) > 0) return { error: `invalid IP range ${q(cidr)}: start IP ${q(ipString(start))} is after the end IP ${q(ipString(end))}` };
  return summarize(start, end);
}

/**
 * The addresses a list of pool entries names, as one BlockList: each entry as MetalLB reads it (parsePoolEntry). An
 * entry MetalLB cannot read adds nothing: its webhook refuses the pool (metallb-webhook says so).
 */
export function addressBlock(entries: Iterable<string>): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const nets = parsePoolEntry(entry);
    if ('error' in nets) continue;
    for (const n of nets) list.addSubnet(ipString(n.ip), ipNetPrefix(n), to4(n.ip) ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Whether `ip` is an address at all, and whether the pools hold it. */
export function heldBy(pools: BlockList, ip: string): 'held' | 'outside' | 'not an address' {
  if (!isIPv4(ip) && !isIPv6(ip)) return 'not an address';
  return pools.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4') ? 'held' : 'outside';
}

/**
 * The pools an L2 or BGP advertisement applies to (setL2AdvertisementsToPools, setBGPAdvertisementsToPools): those
 * it names and those its pool selectors match, or every pool where it says neither; each once, in the pools' order.
 */
export function advertisedPools<P extends { name: string }>(spec: unknown, pools: readonly P[], labelsOf: (pool: P) => unknown): P[] {
  const names = list(dig(spec, ['ipAddressPools']));
  const selectors = list(dig(spec, ['ipAddressPoolSelectors']));
  if (names.length === 0 && selectors.length === 0) return [...pools];
  return pools.filter((p) => names.includes(p.name) || selectors.some((s) => selectorMatches(obj(s), obj(labelsOf(p)))));
}
