/**
 * cert-manager's solver picker (model/certificates/acme-solvers.ts): which of an ACME issuer's solvers solves a name, and
 * miekg/dns's label comparison its zone selector counts with.
 */
import { describe, expect, it } from 'vitest';
import { compareDomainNames, countLabels, offeredChallenges, pickSolver } from '../../model/certificates/acme-solvers.ts';

const dns01 = (selector?: object) => ({ ...(selector ? { selector } : {}), dns01: { cloudflare: {} } });
const http01 = (selector?: object) => ({ ...(selector ? { selector } : {}), http01: { ingress: {} } });
const pick = (domain: string, solvers: object[], labels: Record<string, string> = {}) => pickSolver(domain, offeredChallenges(domain), solvers, labels);

describe("cert-manager's solver picker", () => {
  it('takes the first solver without a selector, unless a later selector matches the name', () => {
    expect(pick('a.example.net', [dns01(), http01()])).toEqual({ index: 0, challenge: 'dns-01' });
    expect(pick('a.example.net', [dns01(), http01({ dnsZones: ['example.net'] })])).toEqual({ index: 1, challenge: 'http-01' });
    expect(pick('a.example.net', [http01({ dnsZones: ['example.net'] }), dns01()])).toEqual({ index: 0, challenge: 'http-01' });
  });

  it('prefers a listed name to a zone, a longer zone to a shorter, and more labels', () => {
    expect(pick('a.lan.example.net', [dns01({ dnsZones: ['example.net'] }), dns01({ dnsZones: ['lan.example.net'] })])?.index).toBe(1);
    expect(pick('a.example.net', [dns01({ dnsZones: ['example.net'] }), dns01({ dnsNames: ['a.example.net'] })])?.index).toBe(1);
    expect(
      pick('a.example.net', [dns01({ matchLabels: { tier: 'web' } }), dns01({ matchLabels: { tier: 'web', team: 'x' } })], { tier: 'web', team: 'x' })?.index,
    ).toBe(1);
  });

  it('picks none where no selector matches, where labels are missing, and for a wildcard without DNS-01', () => {
    expect(pick('a.example.net', [dns01({ dnsZones: ['lan.example.net'] })])).toBeUndefined();
    expect(pick('a.example.net', [dns01({ matchLabels: { tier: 'web' } })])).toBeUndefined();
    expect(pick('*.example.net', [http01()])).toBeUndefined();
    expect(pick('*.example.net', [http01(), dns01({ dnsZones: ['example.net'] })])).toEqual({ index: 1, challenge: 'dns-01' });
    expect(pick('a.example.net', [])).toBeUndefined();
  });

  it('counts shared labels from the right as miekg/dns does, without case, a trailing dot making a label of its own', () => {
    expect(compareDomainNames('example.net', 'www.EXAMPLE.net')).toBe(2);
    expect(compareDomainNames('lan.example.net', 'www.example.net')).toBe(2);
    expect(compareDomainNames('example.net.', 'www.example.net')).toBe(0);
    expect(compareDomainNames('.', 'example.net')).toBe(0);
    expect([countLabels('example.net'), countLabels('*.example.net'), countLabels('.'), countLabels('a\\.b.net')]).toEqual([2, 3, 0, 2]);
  });
});
