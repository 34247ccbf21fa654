/**
 * pflag under cobra on cert-manager's controller (v1.21.1, as the repository's facts list it): the chart's arguments,
 * the flags users give it (DNS-01 nameservers, owner references), and what its PreRunE refuses of them as it starts: a
 * nameserver without its port, a DNS-over-HTTPS URL without a host, a log format it has not; a --config file, whose
 * settings override the command line's, leaves those checks not judged.
 */
import { describe, expect, it } from 'vitest';
import { isPflagOptions } from '../../model/command-lines/pflag-facts.ts';
import { pflagRefusal, type PflagOptions } from '../../model/command-lines/pflag.ts';
import { programOptions } from '../../../test-support/program-options.ts';

const facts = programOptions<PflagOptions>('apps/platform/cert-manager/facts/images.yaml', 'controller');
// The chart's own arguments (cert-manager v1.21.1 with the repository's values).
const CHART = [
  '--v=2',
  '--cluster-resource-namespace=$(POD_NAMESPACE)',
  '--leader-election-namespace=kube-system',
  '--acme-http01-solver-image=quay.io/jetstack/cert-manager-acmesolver:v1.21.1',
  '--max-concurrent-challenges=60',
];
const refusal = (...extra: string[]) => pflagRefusal([...CHART, ...extra], facts);

describe("pflag, on cert-manager's controller", () => {
  it("takes the chart's arguments and the flags a DNS-01 issuer is given", () => {
    expect(isPflagOptions(facts)).toBe(true);
    // A list's items checked as addresses only on a StringSlice, whose value is read as CSV.
    const values = { ...facts.values, '--dns01-recursive-nameservers': { hostPorts: { says: 'x' } } };
    expect(isPflagOptions({ ...facts, values })).toBe(false);
    expect(refusal()).toBeUndefined();
    expect(refusal('--dns01-recursive-nameservers-only', '--dns01-recursive-nameservers=1.1.1.1:53,[2606:4700::1111]:53')).toBeUndefined();
    expect(refusal('--dns01-recursive-nameservers=https://1.1.1.1/dns-query', '--enable-certificate-owner-ref=true', '-v', '4')).toBeUndefined();
    expect(refusal('--logging-format=json', '--kube-api-qps=20.5', '--vmodule=controller*=4,')).toBeUndefined();
  });

  it('refuses a flag it does not have, with the one meant, and a value its type refuses (exit 1)', () => {
    expect(refusal('--dns01-recursive-nameserver=1.1.1.1:53')).toMatchObject({
      index: 5,
      exit: 1,
      message: 'unknown flag: --dns01-recursive-nameserver (did you mean "--dns01-recursive-nameservers"?)',
    });
    expect(refusal('--max-concurrent-challenges=sixty')).toMatchObject({ index: 5, exit: 1 });
    expect(refusal('--dns01-check-retry-period=10 s')).toMatchObject({ index: 5, exit: 1 });
    expect(refusal('--v=-1')).toMatchObject({ index: 5, exit: 1 });
    // A StringSlice reads its value as one CSV record, and a map of key=bool pairs each with its '='.
    expect(refusal('--controllers=issuers,"certificates')).toMatchObject({ index: 5, exit: 1, message: expect.stringMatching(/in quoted-field$/) });
    expect(refusal('--feature-gates=ExperimentalGatewayAPISupport')).toMatchObject({ index: 5, exit: 1 });
    expect(refusal('--feature-gates=ExperimentalGatewayAPISupport=true,', '--acme-http01-solver-extra-labels=team=web')).toBeUndefined();
  });

  it('refuses as it starts a nameserver without its port, over every time the flag is given, and a log format it has not', () => {
    expect(refusal('--dns01-recursive-nameservers=1.1.1.1:53', '--dns01-recursive-nameservers=8.8.8.8')).toEqual({
      index: 6,
      message: '"8.8.8.8" in --dns01-recursive-nameservers: must be in the format <ip address>:<port> or https://<DoH RFC 8484 server address>',
      exit: 1,
      started: true,
    });
    expect(refusal('--dns01-recursive-nameservers=https://')).toMatchObject({ exit: 1, started: true });
    expect(refusal('--dns01-recursive-nameservers=1.1.1.1:53,"8.8.8.8"')).toMatchObject({
      exit: 1,
      started: true,
      message: expect.stringMatching(/^"8\.8\.8\.8" in/),
    });
    expect(refusal('--acme-http01-solver-nameservers=1.1.1.1')).toMatchObject({ exit: 1, started: true });
    // Go's net.SplitHostPort splits a URL at its last colon, so the HTTP-01 check takes one, as the program does.
    expect(refusal('--acme-http01-solver-nameservers=https://1.1.1.1/dns-query')).toBeUndefined();
    expect(refusal('--logging-format=logfmt')).toMatchObject({ exit: 1, started: true, message: expect.stringMatching(/Unsupported log format/) });
  });

  it('leaves what it checks as it starts not judged beside a --config file, which may override it', () => {
    expect(refusal('--config=/etc/cert-manager/config.yaml', '--dns01-recursive-nameservers=8.8.8.8')).toMatchObject({
      unjudged: expect.stringMatching(/override it/),
    });
  });
});
