/**
 * pflag under cobra on cert-manager's controller, webhook and CA injector (v1.21.1, as the repository's facts list
 * them): the chart's arguments, the flags users give them (DNS-01 nameservers, owner references, TLS files, ignored
 * namespaces), and what each PreRunE refuses of them as it starts: a nameserver without its port, a DNS-over-HTTPS URL
 * without a host, a log format it has not, TLS from files beside a dynamic CA or either in part, a port beyond 65535,
 * --namespace beside --ignore-namespaces; a --config file, whose settings override the command line's, leaves those
 * checks not judged.
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

  it('refuses as it starts a controller name it does not have, each item as the CSV record holds it, "-" before it or not', () => {
    expect(refusal('--controllers=*,-certificaterequests-approver', '--controllers=certificatesigningrequests-issuer-ca')).toBeUndefined();
    expect(refusal('--controllers=*,-certificaterequest-approver')).toEqual({
      index: 5,
      message: '"-certificaterequest-approver" in --controllers is none the program knows (did you mean "-certificaterequests-approver"?)',
      exit: 1,
      started: true,
    });
    // listenerset has a controller name but is not among AllControllers at v1.21.1; a space is part of a CSV field.
    expect(refusal('--controllers=listenerset')).toMatchObject({ exit: 1, started: true });
    expect(refusal('--controllers=issuers, orders')).toMatchObject({ exit: 1, message: expect.stringMatching(/^" orders" in --controllers/) });
  });

  it('leaves what it checks as it starts not judged beside a --config file, which may override it', () => {
    expect(refusal('--config=/etc/cert-manager/config.yaml', '--dns01-recursive-nameservers=8.8.8.8')).toMatchObject({
      unjudged: expect.stringMatching(/override it/),
    });
  });

  it('refuses as it starts a leader election time not above 0 while it elects, a burst below its rate, an issuer kind left empty', () => {
    expect(refusal('--leader-election-retry-period=0s')).toEqual({
      index: 5,
      exit: 1,
      started: true,
      message: '--leader-election-retry-period "0s": must be greater than 0',
    });
    expect(refusal('--leader-election-retry-period=0s', '--leader-elect=false')).toBeUndefined();
    expect(refusal('--internal-healthz-leader-election-timeout=-1s')).toMatchObject({ index: 5, started: true });
    // float32(burst) below the QPS, each its last value given, else its default (50 and 20).
    expect(refusal('--kube-api-burst=10')).toMatchObject({
      index: 5,
      started: true,
      message: '--kube-api-burst 10 below --kube-api-qps 20: must be higher or equal to kubernetesAPIQPS',
    });
    expect(refusal('--kube-api-qps=60')).toMatchObject({ index: 5, started: true });
    expect(refusal('--kube-api-qps=60', '--kube-api-burst=0x40')).toBeUndefined();
    expect(refusal('--kube-api-qps=-2', '--kube-api-burst=-3')).toMatchObject({ message: '--kube-api-burst "-3": must be greater than or equal to -1' });
    expect(refusal('--default-issuer-kind=')).toMatchObject({ index: 5, started: true, message: '--default-issuer-kind "": must not be empty' });
    // A module's level as strconv.ParseUint(s, 10, 31) reads it: 2147483647 at most.
    expect(refusal('--vmodule=controller*=2147483647')).toBeUndefined();
    expect(refusal('--vmodule=controller*=2147483648')).toMatchObject({ index: 5, exit: 1 });
  });

  it("refuses a feature gate it does not register as it starts, over every time the flag is given; the CA injector's is not judged", () => {
    expect(refusal('--feature-gates=ExperimentalGatewayAPISupport=true', '--feature-gates= AllAlpha = false,')).toBeUndefined();
    expect(refusal('--feature-gates=ServerSideApply=true', '--feature-gates=ExperimentalGatewayApiSupport=true')).toEqual({
      index: 6,
      exit: 1,
      started: true,
      message: 'unrecognized feature gate: ExperimentalGatewayApiSupport (did you mean "ExperimentalGatewayAPISupport"?)',
    });
    expect(refusal('--feature-gates=CAInjectorMerging=false')).toMatchObject({
      index: 5,
      unjudged: expect.stringMatching(/^CAInjectorMerging is a feature gate another build/),
    });
    // What the program refuses whatever the gate: a name no build has, or another check, before another build's gate.
    expect(refusal('--feature-gates=CAInjectorMerging=false,Nope=true')).toMatchObject({ message: 'unrecognized feature gate: Nope' });
    expect(refusal('--feature-gates=CAInjectorMerging=false', '--kube-api-burst=10')).toMatchObject({ index: 6, started: true });
  });

  it("refuses its metrics server's TLS from files beside a dynamic CA, or from a certificate without its key", () => {
    expect(refusal('--metrics-tls-cert-file=/tls/tls.crt', '--metrics-tls-private-key-file=/tls/tls.key')).toBeUndefined();
    expect(refusal('--metrics-tls-cert-file=/tls/tls.crt')).toMatchObject({
      index: 5,
      exit: 1,
      started: true,
      message: '--metrics-tls-private-key-file not set beside --metrics-tls-cert-file: must be specified when using filesystem based TLS config',
    });
    expect(refusal('--metrics-tls-cert-file=/c', '--metrics-tls-private-key-file=/k', '--metrics-dynamic-serving-dns-names=cert-manager')).toMatchObject({
      index: 7,
      message: expect.stringMatching(/cannot specify both filesystem based and dynamic TLS configuration$/),
    });
  });
});

const webhook = programOptions<PflagOptions>('apps/platform/cert-manager/facts/images.yaml', 'webhook');
// The chart's arguments for the webhook (cert-manager v1.21.1 with the repository's values), its dynamic serving CA.
const WEBHOOK = [
  '--v=2',
  '--secure-port=10250',
  '--dynamic-serving-ca-secret-namespace=$(POD_NAMESPACE)',
  '--dynamic-serving-ca-secret-name=cert-manager-webhook-ca',
  '--dynamic-serving-dns-names=cert-manager-webhook',
  '--dynamic-serving-dns-names=cert-manager-webhook.$(POD_NAMESPACE)',
  '--dynamic-serving-dns-names=cert-manager-webhook.$(POD_NAMESPACE).svc',
];
const webhookRefusal = (...extra: string[]) => pflagRefusal([...WEBHOOK, ...extra, '--metrics-listen-address=0'], webhook);

describe("pflag, on cert-manager's webhook", () => {
  it("takes the chart's arguments, a port in base 16 and a client's subject names", () => {
    expect(isPflagOptions(webhook)).toBe(true);
    expect(webhookRefusal()).toBeUndefined();
    expect(webhookRefusal('--healthz-port=0x17c0', '--client-subject-names=kube-apiserver,"front, proxy"', '--enable-client-verification')).toBeUndefined();
  });

  it('refuses a port its Int32 reads beyond 65535 as it starts, and one it does not read as it parses', () => {
    expect(webhookRefusal('--secure-port=70000')).toEqual({ index: 7, exit: 1, started: true, message: '--secure-port "70000": must be a valid port number' });
    expect(webhookRefusal('--healthz-port=-1')).toMatchObject({ index: 7, started: true });
    expect(webhookRefusal('--secure-port=4294967296')).toMatchObject({ index: 7, exit: 1, message: expect.stringMatching(/value out of range$/) });
    expect(webhookRefusal('--secure-port=10250', '--secure-prot=6443')).toMatchObject({
      index: 8,
      message: expect.stringMatching(/did you mean "--secure-port"/),
    });
  });

  it("refuses TLS from files beside the chart's dynamic CA, and a dynamic CA a later value leaves without its name", () => {
    expect(webhookRefusal('--tls-cert-file=/tls/tls.crt', '--tls-private-key-file=/tls/tls.key')).toEqual({
      index: 7,
      exit: 1,
      started: true,
      message: '--tls-cert-file and --dynamic-serving-ca-secret-namespace both set: cannot specify both filesystem based and dynamic TLS configuration',
    });
    // A string is set where its last value is not empty; a StringSlice where any value given holds a name.
    expect(webhookRefusal('--dynamic-serving-ca-secret-name=')).toMatchObject({
      index: 7,
      message: '--dynamic-serving-ca-secret-name not set beside --dynamic-serving-ca-secret-namespace: must be specified when using dynamic TLS config',
    });
    expect(webhookRefusal('--dynamic-serving-dns-names=')).toBeUndefined();
    expect(webhookRefusal('--tls-cert-file=/tls/tls.crt', '--tls-cert-file=')).toBeUndefined();
    expect(webhookRefusal('--config=/var/cert-manager/config/config.yaml', '--tls-cert-file=/c')).toMatchObject({
      unjudged: expect.stringMatching(/override it/),
    });
  });
});

const cainjector = programOptions<PflagOptions>('apps/platform/cert-manager/facts/images.yaml', 'cainjector');
const cainjectorRefusal = (...extra: string[]) =>
  pflagRefusal(['--v=2', '--leader-election-namespace=kube-system', ...extra, '--metrics-listen-address=0'], cainjector);

describe("pflag, on cert-manager's CA injector", () => {
  it('takes its switches, and refuses --namespace beside --ignore-namespaces as it starts', () => {
    expect(isPflagOptions(cainjector)).toBe(true);
    expect(cainjectorRefusal('--enable-apiservices-injectable=false', '--ignore-namespaces=kube-system,flux-system')).toBeUndefined();
    expect(cainjectorRefusal('--namespace=cert-manager', '--ignore-namespaces=kube-system')).toEqual({
      index: 3,
      exit: 1,
      started: true,
      message: '--namespace and --ignore-namespaces both set: should not be used with --namespace',
    });
    expect(cainjectorRefusal('--namespace=', '--ignore-namespaces=kube-system')).toBeUndefined();
    expect(cainjectorRefusal('--namespace=cert-manager', '--ignore-namespace=kube-system')).toMatchObject({
      exit: 1,
      message: expect.stringMatching(/^unknown flag/),
    });
  });

  it('refuses a leader election time not above 0 unless --leader-elect=false', () => {
    expect(cainjectorRefusal('--leader-election-lease-duration=0s')).toMatchObject({ index: 2, exit: 1, started: true });
    expect(cainjectorRefusal('--leader-elect=false', '--leader-election-lease-duration=0s')).toBeUndefined();
    expect(cainjectorRefusal('--leader-election-renew-deadline=1ns')).toBeUndefined();
  });

  it('refuses a facts entry whose range, groups apart or whole group do not hold together', () => {
    // A range is of a whole number, a duration or a float: not of a list's names.
    const values = { ...cainjector.values, '--ignore-namespaces': { slice: true, within: { min: 1, max: 2, says: 'x' } } };
    expect(isPflagOptions({ ...cainjector, values })).toBe(false);
    expect(isPflagOptions({ ...cainjector, apart: [{ groups: [['--namespace']], says: 'x' }] })).toBe(false);
    expect(isPflagOptions({ ...cainjector, apart: [{ groups: [['--namespace'], ['--nope']], says: 'x' }] })).toBe(false);
    expect(isPflagOptions({ ...cainjector, whole: [{ flags: ['--namespace'], says: 'x' }] })).toBe(false);
    expect(isPflagOptions({ ...webhook, values: { '--secure-port': { pattern: '^[0-9]+$', within: { min: 2, max: 1, says: 'x' } } } })).toBe(false);
    expect(isPflagOptions({ ...webhook, values: { '--secure-port': { pattern: '^[0-9]+$', within: { says: 'x' } } } })).toBe(false);
    const lease = (during: unknown) => ({ '--leader-election-lease-duration': { duration: true, within: { min: 1, says: 'x', while: during } } });
    expect(isPflagOptions({ ...cainjector, values: lease({ flag: '--leader-elect', default: true }) })).toBe(true);
    expect(isPflagOptions({ ...cainjector, values: lease({ flag: '--namespace', default: true }) })).toBe(false);
    expect(isPflagOptions({ ...cainjector, notBelow: [{ flag: '--namespace', other: '--nope', defaults: ['1', '2'], says: 'x' }] })).toBe(false);
    expect(isPflagOptions({ ...cainjector, values: { '--feature-gates': { gates: { known: [] } } } })).toBe(false);
    expect(isPflagOptions({ ...cainjector, values: { '--feature-gates': { gates: { known: ['A'], others: 'B' } } } })).toBe(false);
    expect(isPflagOptions({ ...cainjector, notBelow: [{ flag: '--namespace', other: '--kubeconfig', defaults: ['1'], says: 'x' }] })).toBe(false);
  });
});

const startupapicheck = programOptions<PflagOptions>('apps/platform/cert-manager/facts/images.yaml', 'startupapicheck');
// The chart's post-install Job: `check api --wait=<timeout>`, then the values' extraArgs (-v by default).
const checkRefusal = (...extra: string[]) => pflagRefusal(['check', 'api', '--wait=1m', '-v', ...extra], startupapicheck);

describe("pflag, on cert-manager's startupapicheck", () => {
  it('takes -v without a value (2), and then reads the next word as an argument, as pflag reads a NoOptDefVal', () => {
    expect(isPflagOptions(startupapicheck)).toBe(true);
    expect(checkRefusal()).toBeUndefined();
    expect(checkRefusal('-v=4', '-n', 'cert-manager', '--interval=10s')).toBeUndefined();
    expect(pflagRefusal(['check', 'api', '-v', '4'], startupapicheck)).toBeUndefined();
    // `-v4` is -v (2) and then a shorthand 4 it does not have; `--v=x` a verbosity its Set refuses.
    expect(checkRefusal('-v4')).toEqual({ index: 4, exit: 1, message: "unknown shorthand flag: '4' in -4" });
    expect(checkRefusal('--v=x')).toMatchObject({ index: 4, exit: 1 });
  });

  it('refuses a misspelt flag and a timeout without its unit, and leaves another command not judged', () => {
    expect(checkRefusal('--wiat=5m')).toMatchObject({ index: 4, exit: 1, message: 'unknown flag: --wiat (did you mean "--wait"?)' });
    expect(checkRefusal('--interval=5')).toMatchObject({ index: 4, exit: 1, message: expect.stringMatching(/missing unit in duration/) });
    expect(checkRefusal('--logging-format=logfmt')).toMatchObject({ index: 4, exit: 1, started: true });
    expect(pflagRefusal(['check', 'webhook'], startupapicheck)).toMatchObject({ unjudged: expect.stringMatching(/another command/) });
  });

  it('refuses a facts entry whose optional value is empty or of a flag it does not have', () => {
    expect(isPflagOptions({ ...startupapicheck, optional: { '--v': '' } })).toBe(false);
    expect(isPflagOptions({ ...startupapicheck, optional: { '--verbose': '2' } })).toBe(false);
  });
});
