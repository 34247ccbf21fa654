/**
 * Cilium's DNS proxy as the gate reads it: matchPattern as pkg/fqdn/matchpattern turns it into a regular expression
 * (`*` within one label, a leading `**.` for one or more labels, `*` alone for every name), and the names a pod's
 * resolver asks on the way to one (the kubelet's search path, ndots 5).
 */
import { describe, expect, it } from 'vitest';
import { dialectOf, dnsAllows, firstRefused, patternRegex, searchCandidates } from '../../checks/network-policy/dns-proxy.ts';

const at = [] as const;
const current = { namespace: 'falco', dialect: dialectOf('1.19.8') };

describe('patternRegex, as Cilium matches a matchPattern', () => {
  it('takes * as any run of DNS characters within one label', () => {
    expect(patternRegex('*.cilium.io').test('sub.cilium.io.')).toBe(true);
    expect(patternRegex('*.cilium.io').test('a.b.cilium.io.')).toBe(false);
    expect(patternRegex('*.cilium.io').test('cilium.io.')).toBe(false);
    expect(patternRegex('test.*.cilium.io').test('test.a.cilium.io.')).toBe(true);
    expect(patternRegex('*cilium.io').test('cilium.io.')).toBe(true);
    expect(patternRegex('*cilium.io').test('sub.cilium.io.')).toBe(false);
  });

  it('takes a leading **. (or more stars) as one or more whole labels, and * or ** alone as every name', () => {
    for (const p of ['**.cilium.io', '***.cilium.io'])
      for (const [name, ok] of [
        ['sub.cilium.io.', true],
        ['a.b.c.cilium.io.', true],
        ['cilium.io.', false],
        ['a.b.cilium.org.', false],
      ] as const)
        expect(patternRegex(p).test(name), `${p} ${name}`).toBe(ok);
    expect(patternRegex('*').test('anything.at.all.')).toBe(true);
    expect(patternRegex('**').test('x.')).toBe(true);
  });

  it('matches without regard to case, and a name with or without its final dot', () => {
    expect(dnsAllows([{ matchPattern: '**.Cluster.Local', at }], 'svc.NS.svc.cluster.local')).toBe(true);
    expect(dnsAllows([{ matchName: 'ghcr.io.', at }], 'GHCR.io')).toBe(true);
  });
});

describe('the names a pod asks', () => {
  it('goes through the search path before the name itself, and asks a name with five dots or a final dot as it is', () => {
    expect(searchCandidates('ghcr.io', 'falco')).toEqual([
      'ghcr.io.falco.svc.cluster.local.',
      'ghcr.io.svc.cluster.local.',
      'ghcr.io.cluster.local.',
      'ghcr.io.',
    ]);
    expect(searchCandidates('a.b.c.d.e.f', 'x')).toEqual(['a.b.c.d.e.f.']);
    expect(searchCandidates('ghcr.io.', 'x')).toEqual(['ghcr.io.']);
  });

  it("names the first refused name, and stops at a Service's cluster name, which resolves", () => {
    const oneLabel = [
      { matchPattern: '*.cluster.local', at },
      { matchName: 'ghcr.io', at },
    ];
    expect(firstRefused(oneLabel, 'ghcr.io', current)).toBe('ghcr.io.falco.svc.cluster.local.');
    expect(firstRefused(oneLabel, 'falcosidekick.security.svc', current)).toBe('falcosidekick.security.svc.falco.svc.cluster.local.');
    const labels = [
      { matchPattern: '**.cluster.local', at },
      { matchName: 'ghcr.io', at },
    ];
    expect(firstRefused(labels, 'ghcr.io', current)).toBeUndefined();
    expect(firstRefused(labels, 'falcosidekick.security.svc', current)).toBeUndefined();
    expect(firstRefused([{ matchPattern: '**.cluster.local', at }], 'ghcr.io', current)).toBe('ghcr.io.');
  });

  it('sanitizes before it trims, as the agent does: a pattern padded with spaces keeps them, and matches no name', () => {
    expect(patternRegex('  **.cluster.local  ').test('a.cluster.local.')).toBe(false);
    expect(patternRegex('**.cluster.local').test('a.b.cluster.local.')).toBe(true);
    expect(patternRegex(' * ').test('a.cluster.local.')).toBe(false);
    expect(patternRegex('**.').test('.')).toBe(true);
  });

  it('reads a leading **. as one label, like any *, for a Cilium before 1.19', () => {
    expect(dialectOf('1.18.6')).toEqual({ multiLabel: false });
    expect(dialectOf('1.19.0')).toEqual({ multiLabel: true });
    const older = { namespace: 'falco', dialect: dialectOf('1.18.6') };
    expect(firstRefused([{ matchPattern: '**.cluster.local', at }], 'falcosidekick.security.svc', older)).toBe(
      'falcosidekick.security.svc.falco.svc.cluster.local.',
    );
  });
});
