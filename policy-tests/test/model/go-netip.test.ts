/** Go's net/netip as the model floor reads it: what ParseAddr and ParsePrefix take, and what CEL's stricter reading refuses of it. */
import { describe, expect, it } from 'vitest';
import { parseAddr, parsePrefix, prefixContains } from '../../model/go/netip.ts';
import { parseCIDR, parseIP } from '../../admission/cel/net.ts';

describe('net/netip', () => {
  it.each<[string, boolean]>([
    ['192.168.1.11', true],
    ['192.168.01.11', false], // no leading zeros
    ['256.1.1.1', false],
    ['1.2.3', false],
    ['::1', true],
    ['::ffff:1.2.3.4', true], // kept as IPv6
    ['fe80::1%eth0', true], // a zone
    ['fe80::1%', false], // an empty zone
    ['[::1]', false],
    ['example', false],
  ])('ParseAddr(%s) reads: %s', (text, reads) => {
    expect(parseAddr(text) !== undefined).toBe(reads);
  });

  it.each<[string, number | undefined]>([
    ['10.0.0.0/8', 8],
    ['10.0.0.0/08', undefined], // bits without a leading zero
    ['10.0.0.0/33', undefined],
    ['::/0', 0],
    ['fe80::1%eth0/64', undefined], // no zone in a prefix
    ['10.0.0.0/254.0.0.255', undefined], // no mask notation
    ['10.0.0.0', undefined],
  ])('ParsePrefix(%s) has bits %s', (text, bits) => {
    expect(parsePrefix(text)?.bits).toBe(bits);
  });

  it('a prefix holds the addresses of its family within it', () => {
    const p = parsePrefix('10.0.0.0/8')!;
    expect(prefixContains(p, parseAddr('10.96.0.1')!)).toBe(true);
    expect(prefixContains(p, parseAddr('11.0.0.1')!)).toBe(false);
    expect(prefixContains(p, parseAddr('::ffff:10.0.0.1')!)).toBe(false);
  });

  it("CEL's ip() and cidr() refuse what Kubernetes refuses beyond netip: a zone, an IPv4-mapped address", () => {
    expect(parseIP('fe80::1%eth0')).toBeUndefined();
    expect(parseIP('::ffff:1.2.3.4')).toBeUndefined();
    expect(parseCIDR('::ffff:1.2.3.4/128')).toBeUndefined();
    expect(parseCIDR('10.0.0.0/8')).toEqual({ ip: parseIP('10.0.0.0'), bits: 8 });
  });
});
