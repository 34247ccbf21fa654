/**
 * Go's net/netip, where a program the cluster runs reads an address with it (Cilium's policy rules; Kubernetes' CEL
 * library on top, which refuses more): `ParseAddr` (no leading zeros in IPv4, an IPv6 zone allowed, an IPv4-mapped
 * IPv6 address kept as IPv6) and `ParsePrefix` (no zone, bits in decimal without a leading zero, at most the
 * family's width). Only whether each reads, and as what value: netip's error texts are not reproduced.
 */
export interface NetipAddr {
  family: 4 | 6;
  value: bigint;
  /** The zone after `%`, which only an IPv6 address may carry. */
  zone?: string;
}

export interface NetipPrefix {
  addr: NetipAddr;
  bits: number;
}

const IPV4_PART = /^(0|[1-9]\d{0,2})$/;

function parseIPv4(s: string): NetipAddr | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => IPV4_PART.test(p) && Number(p) <= 255)) return undefined;
  return { family: 4, value: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n) };
}

function parseIPv6(s: string): NetipAddr | undefined {
  // Everything after the first `%` is the zone, and it may not be empty.
  const percent = s.indexOf('%');
  const [text, zone] = percent < 0 ? [s, undefined] : [s.slice(0, percent), s.slice(percent + 1)];
  if (zone === '' || text.includes('[')) return undefined;
  let host: string;
  try {
    // The WHATWG URL parser reads an IPv6 literal as RFC 4291 writes it (an IPv4 tail among them) and prints it back.
    host = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail = ''] = host.split('::');
  const groups = (t: string) => (t ? t.split(':') : []);
  const left = groups(head);
  const right = host.includes('::') ? groups(tail) : [];
  const all = host.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  const value = all.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
  return zone === undefined ? { family: 6, value } : { family: 6, value, zone };
}

/** netip.ParseAddr, or undefined where it fails. */
export function parseAddr(s: string): NetipAddr | undefined {
  if (s.includes(':')) return parseIPv6(s);
  return s.includes('.') ? parseIPv4(s) : undefined;
}

/** netip.ParsePrefix, or undefined where it fails. */
export function parsePrefix(s: string): NetipPrefix | undefined {
  const slash = s.lastIndexOf('/');
  if (slash < 0) return undefined;
  const addr = parseAddr(s.slice(0, slash));
  const bitsText = s.slice(slash + 1);
  if (!addr || addr.zone !== undefined || !/^(0|[1-9]\d{0,2})$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= (addr.family === 4 ? 32 : 128) ? { addr, bits } : undefined;
}

const width = (family: 4 | 6) => (family === 4 ? 32 : 128);

/** The network mask of `bits` ones in an address of the family. */
export const prefixMask = (family: 4 | 6, bits: number): bigint => ((1n << BigInt(width(family))) - 1n) ^ ((1n << BigInt(width(family) - bits)) - 1n);

/** netip.Prefix.Contains: the address is of the prefix's family and within it. */
export const prefixContains = (p: NetipPrefix, a: NetipAddr): boolean =>
  p.addr.family === a.family && (p.addr.value & prefixMask(a.family, p.bits)) === (a.value & prefixMask(a.family, p.bits));
