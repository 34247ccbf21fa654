/**
 * IP addresses and CIDRs as Kubernetes' CEL library parses them (Go's
 * net/netip: no leading zeros in IPv4, no zones, no IPv4-mapped IPv6) and
 * prints them (netip's String: RFC 5952 for IPv6, which is also what the
 * WHATWG URL serializer prints). A value is carried as its canonical string,
 * so two spellings of one address are equal, as they are in the API server.
 */
import { parseAddr, parsePrefix, prefixContains, prefixMask } from '../../model/go/netip.ts';

export interface ParsedIP {
  family: 4 | 6;
  value: bigint;
}

/** netip.ParseAddr without a zone, and never an IPv4-mapped IPv6 address (::ffff:a.b.c.d), which Kubernetes' ip() and cidr() refuse. */
export function parseIP(s: string): ParsedIP | undefined {
  const addr = parseAddr(s);
  if (!addr || addr.zone !== undefined || (addr.family === 6 && addr.value >> 32n === 0xffffn)) return undefined;
  return { family: addr.family, value: addr.value };
}

export function formatIP(ip: ParsedIP): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  const hex = Array.from({ length: 8 }, (_, i) => ((ip.value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
  return new URL(`http://[${hex}]/`).hostname.slice(1, -1);
}

export interface ParsedCIDR {
  ip: ParsedIP;
  bits: number;
}

export function parseCIDR(s: string): ParsedCIDR | undefined {
  const slash = s.indexOf('/');
  const ip = slash < 0 ? undefined : parseIP(s.slice(0, slash));
  const prefix = ip && parsePrefix(s);
  return prefix ? { ip, bits: prefix.bits } : undefined;
}

export const formatCIDR = (c: ParsedCIDR): string => `${formatIP(c.ip)}/${c.bits}`;
export const masked = (c: ParsedCIDR): ParsedCIDR => ({ ip: { family: c.ip.family, value: c.ip.value & prefixMask(c.ip.family, c.bits) }, bits: c.bits });

export const containsIP = (c: ParsedCIDR, ip: ParsedIP): boolean => prefixContains({ addr: c.ip, bits: c.bits }, ip);

export const containsCIDR = (c: ParsedCIDR, other: ParsedCIDR): boolean => other.bits >= c.bits && containsIP(c, other.ip);

const inPrefix = (ip: ParsedIP, family: 4 | 6, prefix: bigint, bits: number) => ip.family === family && containsIP({ ip: { family, value: prefix }, bits }, ip);

/** Go's netip predicates. */
export const ipPredicates = {
  isUnspecified: (ip: ParsedIP) => ip.value === 0n,
  isLoopback: (ip: ParsedIP) => (ip.family === 4 ? inPrefix(ip, 4, 0x7f000000n, 8) : ip.value === 1n),
  isLinkLocalMulticast: (ip: ParsedIP) => (ip.family === 4 ? inPrefix(ip, 4, 0xe0000000n, 24) : inPrefix(ip, 6, 0xff02n << 112n, 16)),
  isLinkLocalUnicast: (ip: ParsedIP) => (ip.family === 4 ? inPrefix(ip, 4, 0xa9fe0000n, 16) : inPrefix(ip, 6, 0xfe80n << 112n, 10)),
  isGlobalUnicast: (ip: ParsedIP) =>
    !(ip.value === 0n || (ip.family === 4 && ip.value === 0xffffffffn)) &&
    !ipPredicates.isLoopback(ip) &&
    !(ip.family === 4 ? inPrefix(ip, 4, 0xe0000000n, 4) : inPrefix(ip, 6, 0xffn << 120n, 8)) &&
    !ipPredicates.isLinkLocalUnicast(ip),
};
