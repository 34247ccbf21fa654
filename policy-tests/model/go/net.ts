/**
 * IP addresses and CIDRs as k8s.io/utils/net reads them (`ParseIPSloppy`, `ParseCIDRSloppy`: Go 1.16's parser, kept
 * for the API's legacy fields and for kube-openapi's `ipv4` and `cidr` formats): an IPv4 part may carry leading
 * zeros, read as decimal; an IPv6 address is Go's, which reads no zone (`fe80::1%eth0`, which Node's isIP admits).
 */
import { isIP } from 'node:net';

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
