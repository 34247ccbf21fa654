/**
 * IP addresses and CIDRs as k8s.io/utils/net reads them (`ParseIPSloppy`, `ParseCIDRSloppy`: Go 1.16's parser, kept
 * for the API's legacy fields and for kube-openapi's `ipv4` and `cidr` formats): an IPv4 part may carry leading
 * zeros, read as decimal; an IPv6 address is Go's, which reads no zone (`fe80::1%eth0`, which Node's isIP admits).
 */
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** A dotted quad as the sloppy parser reads it: four parts of one to three digits, each at most 255. */
export const isIPv4Sloppy = (v: string): boolean => {
  const parts = v.split('.');
  return parts.length === 4 && parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
};

/** `ParseIPSloppy(v) != nil`. */
export function isIPSloppy(v: string): boolean {
  if (v.includes('%')) return false;
  return isIP(v) !== 0 || isIPv4Sloppy(v);
}

/** Go's `net.ParseIP` for IPv6: Node's reading, without a zone. */
export const isIPv6 = (v: string): boolean => !v.includes('%') && isIP(v) === 6;

/** What `ParseCIDRSloppy` makes of a CIDR: its family, or why it is none. */
export function cidrSloppy(v: string): { family: 4 | 6 } | { problem: 'invalid' | 'prefix length out of range' } {
  const [ip, bits, extra] = v.split('/');
  if (extra !== undefined || bits === undefined || !/^[0-9]+$/.test(bits)) return { problem: 'invalid' };
  const family = isIPv4Sloppy(ip!) ? 4 : isIPv6(ip!) ? 6 : undefined;
  if (family === undefined) return { problem: 'invalid' };
  return Number(bits) > (family === 4 ? 32 : 128) ? { problem: 'prefix length out of range' } : { family };
}

/**
 * Go's net.SplitHostPort: a host and a port, or the error Go gives (`missing port in address`, `too many colons in
 * address`, a bracket out of place), each as the text Go's AddrError carries after the address.
 */
export function splitHostPort(hostport: string): { host: string; port: string } | { error: string } {
  const i = hostport.lastIndexOf(':');
  if (i < 0) return { error: 'missing port in address' };
  let [host, j, k] = ['', 0, 0];
  if (hostport.startsWith('[')) {
    const end = hostport.indexOf(']');
    if (end < 0) return { error: "missing ']' in address" };
    if (end + 1 === hostport.length) return { error: 'missing port in address' };
    if (end + 1 !== i) return { error: hostport[end + 1] === ':' ? 'too many colons in address' : 'missing port in address' };
    [host, j, k] = [hostport.slice(1, end), 1, end + 1];
  } else {
    host = hostport.slice(0, i);
    if (host.includes(':')) return { error: 'too many colons in address' };
  }
  if (hostport.slice(j).includes('[')) return { error: "unexpected '[' in address" };
  if (hostport.slice(k).includes(']')) return { error: "unexpected ']' in address" };
  return { host, port: hostport.slice(i + 1) };
}

/** A Go net.IP: 4 bytes, or 16 (an IPv4 address among them as `::ffff:a.b.c.d`, as Go's parsers give it). */
export type GoIP = Uint8Array;
/** A Go net.IPNet: its network address and its mask, each 4 or 16 bytes. */
export interface GoIPNet {
  ip: GoIP;
  mask: Uint8Array;
}

const V4_IN_V6 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

/**
 * Go's net.ParseIP (Go 1.17 on: an IPv4 part with a leading zero is refused, as Node refuses it; no zone), always as
 * 16 bytes. The address is Node's to validate and ipaddr.js' to turn into bytes.
 */
export function parseGoIP(s: string): GoIP | undefined {
  const family = s.includes('%') ? 0 : isIP(s);
  if (family === 0) return undefined;
  const bytes = ipaddr.parse(s).toByteArray();
  return to16(Uint8Array.from(bytes));
}

/** `ip.To4()`: the 4 bytes of an IPv4 address, however it is held, or undefined. */
export function to4(ip: GoIP): GoIP | undefined {
  if (ip.length === 4) return ip;
  return ip.length === 16 && V4_IN_V6.every((b, i) => ip[i] === b) ? ip.subarray(12) : undefined;
}

/** `ip.To16()`: an IPv4 address of 4 bytes held in 16, as Go's parsers give it; 16 bytes as they are. */
export const to16 = (ip: GoIP): GoIP => (ip.length === 4 ? Uint8Array.from([...V4_IN_V6, ...ip]) : ip);

/** An address's bytes as one unsigned integer, to walk or summarize a range by. */
export const ipToInt = (ip: GoIP): bigint => [...ip].reduce((n, b) => (n << 8n) | BigInt(b), 0n);

/** The address of `length` bytes whose integer is `n`. */
export const ipFromInt = (n: bigint, length: number): GoIP => Uint8Array.from({ length }, (_, i) => Number((n >> BigInt(8 * (length - 1 - i))) & 0xffn));

/** `net.CIDRMask(ones, bits)`. */
export function cidrMask(ones: number, bits: number): Uint8Array {
  return Uint8Array.from({ length: bits / 8 }, (_, i) => 0xff & (0xff << (8 - Math.max(0, Math.min(8, ones - i * 8)))));
}

/** `ip.Mask(mask)`: an IPv4 address in 16 bytes under a 4-byte mask is masked as 4 bytes, as Go does. */
function maskIP(ip: GoIP, mask: Uint8Array): GoIP | undefined {
  let bytes = ip;
  if (mask.length === 16 && bytes.length === 4 && mask.subarray(0, 12).every((b) => b === 0xff)) mask = mask.subarray(12);
  if (mask.length === 4 && bytes.length === 16 && to4(bytes)) bytes = to4(bytes)!;
  return mask.length === bytes.length ? bytes.map((b, i) => b & mask[i]!) : undefined;
}

/**
 * Go's net.ParseCIDR (netip's reading of the address, a zone refused; a prefix length of decimal digits within the
 * family's bits): the network, its IPv4 address and mask in 4 bytes. Undefined where Go gives a ParseError.
 */
export function parseGoCIDR(s: string): GoIPNet | undefined {
  const slash = s.indexOf('/');
  if (slash === -1) return undefined;
  const [addr, bits] = [s.slice(0, slash), s.slice(slash + 1)];
  const ip = parseGoIP(addr);
  if (!ip || !/^[0-9]+$/.test(bits)) return undefined;
  const bitLen = isIP(addr) === 4 ? 32 : 128;
  const ones = Number(bits);
  if (ones > bitLen) return undefined;
  const mask = cidrMask(ones, bitLen);
  return { ip: maskIP(ip, mask)!, mask };
}

/** `IPMask.Size()`: the leading ones of a canonical mask (every mask here is one). */
export function maskOnes(mask: Uint8Array): number {
  let ones = 0;
  for (const b of mask) ones += b === 0xff ? 8 : 8 - Math.log2(((~b & 0xff) + 1) | 0);
  return ones;
}

/** `ip.Equal(x)`: the same address, an IPv4 one in 4 or 16 bytes alike. */
export function ipEqual(a: GoIP, b: GoIP): boolean {
  const [x, y] = a.length === b.length ? [a, b] : [to4(a), to4(b)];
  return x !== undefined && y !== undefined && x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Go's networkNumberAndMask: the network's address and mask in the same length, or undefined. */
function networkNumberAndMask(n: GoIPNet): { ip: GoIP; mask: Uint8Array } | undefined {
  const ip = to4(n.ip) ?? (n.ip.length === 16 ? n.ip : undefined);
  if (!ip) return undefined;
  if (n.mask.length === 4) return ip.length === 4 ? { ip, mask: n.mask } : undefined;
  if (n.mask.length === 16) return { ip, mask: ip.length === 4 ? n.mask.subarray(12) : n.mask };
  return undefined;
}

/** `IPNet.Contains(ip)`. */
export function ipNetContains(n: GoIPNet, ip: GoIP): boolean {
  const nm = networkNumberAndMask(n);
  const x = to4(ip) ?? ip;
  return nm !== undefined && x.length === nm.ip.length && x.every((b, i) => (nm.ip[i]! & nm.mask[i]!) === (b & nm.mask[i]!));
}

/** The network's prefix length in its own family's bits (an IPv4 network held in 16 bytes counts 32), as Go prints it. */
export function ipNetPrefix(n: GoIPNet): number {
  const nm = networkNumberAndMask(n);
  return nm ? maskOnes(nm.mask) : 0;
}

/** `IP.String()`: an IPv4 address dotted, an IPv6 one as RFC 5952 writes it (Go's form). */
export function ipString(ip: GoIP): string {
  const v4 = to4(ip);
  return v4 ? [...v4].join('.') : ipaddr.fromByteArray([...ip]).toString();
}

/** `IPNet.String()`: the network and its prefix length. */
export function ipNetString(n: GoIPNet): string {
  const nm = networkNumberAndMask(n);
  return nm ? `${ipString(nm.ip)}/${ipNetPrefix(n)}` : '<nil>';
}
