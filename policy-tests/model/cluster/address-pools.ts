/**
 * MetalLB's address pools and the addresses LoadBalancer Services ask for. MetalLB hands a Service the address it
 * asks for (annotation metallb.io/loadBalancerIPs, or the older spec.loadBalancerIP) only when a pool holds it and
 * no other Service has it, unless both share it under the same metallb.io/allow-shared-ip key; otherwise the
 * Service stays <pending>. Ranges and subnets through node:net's BlockList.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';

export const LOAD_BALANCER_IPS = 'metallb.io/loadBalancerIPs';
export const ALLOW_SHARED_IP = 'metallb.io/allow-shared-ip';

/**
 * The addresses a list of entries names, each a range (`a-b`), a subnet (`a/n`) or one address, as one BlockList.
 * An entry that is none of these adds nothing: the schema of whatever wrote it is what reports it.
 */
export function addressBlock(entries: Iterable<string>): BlockList {
  const list = new BlockList();
  const family = (ip: string) => (isIPv6(ip) ? 'ipv6' : 'ipv4');
  for (const entry of entries) {
    const [start, end] = entry.split('-').map((s) => s.trim()) as [string, string | undefined];
    const [net, prefix] = start.split('/') as [string, string | undefined];
    try {
      if (end !== undefined) list.addRange(start, end, family(start));
      else if (prefix !== undefined) list.addSubnet(net, Number(prefix), family(net));
      else list.addAddress(start, family(start));
    } catch {
      // Not an address: nothing is held.
    }
  }
  return list;
}

/** Every address the repository's IPAddressPools hold, as one BlockList (unparseable entries are the pool's own validation's to report). */
export function poolAddresses(resources: readonly Resource[]): BlockList {
  return addressBlock(resources.filter((r) => r.kind === 'IPAddressPool').flatMap((pool) => (dig(pool.object, ['spec', 'addresses']) ?? []) as string[]));
}

/** The addresses a LoadBalancer Service asks for, with where each is written. */
export function requestedAddresses(svc: Resource): { ip: string; path: Path }[] {
  const annotation = dig(svc.object, ['metadata', 'annotations', LOAD_BALANCER_IPS]);
  if (typeof annotation === 'string')
    return annotation
      .split(',')
      .map((ip) => ip.trim())
      .filter(Boolean)
      .map((ip) => ({ ip, path: ['metadata', 'annotations', LOAD_BALANCER_IPS] }));
  const legacy = dig(svc.object, ['spec', 'loadBalancerIP']);
  return typeof legacy === 'string' && legacy ? [{ ip: legacy, path: ['spec', 'loadBalancerIP'] }] : [];
}

/** Whether `ip` is an address at all, and whether the pools hold it. */
export function heldBy(pools: BlockList, ip: string): 'held' | 'outside' | 'not an address' {
  if (!isIPv4(ip) && !isIPv6(ip)) return 'not an address';
  return pools.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4') ? 'held' : 'outside';
}
