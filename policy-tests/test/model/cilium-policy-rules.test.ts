/**
 * What Cilium's agent refuses of a policy. The rows marked "upstream" are the cases of Cilium 1.19's own tests
 * (pkg/policy/api/rule_validation_test.go: TestL7RulesWithNonTCPProtocols, TestL7RuleRejectsEmptyPort,
 * TestHTTPRuleRegexes, TestCIDRsanitize, and pkg/k8s/apis/cilium.io/v2's TestParseWithNodeSelector), written as the YAML a repository
 * holds, with the verdict and, where the test asserts one, the text they assert.
 */
import { describe, expect, it } from 'vitest';
import { agentOptions, policyRefusal, type AgentOptions } from '../../model/cilium/policy-rules.ts';
import type { Obj } from '../../model/core/dig.ts';

const DEFAULTS = agentOptions({});
const any = { endpointSelector: {} };
const ingress = (rule: Obj): Obj => ({ ...any, ingress: [{ fromEndpoints: [{}], ...rule }] });
const egress = (rule: Obj): Obj => ({ ...any, egress: [{ toEndpoints: [{}], ...rule }] });
const ports = (...list: [string, string][]) => list.map(([port, protocol]) => ({ port, protocol }));
const http = { http: [{ method: 'GET', path: '/' }] };

/** The agent's message for one rule of a namespaced policy, or undefined where it accepts it. */
function verdict(rule: Obj, options: AgentOptions | undefined = DEFAULTS, namespaced = true): string | undefined {
  return policyRefusal({ object: { spec: rule } }, namespaced, options)?.message.replace(/^Invalid Cilium(Clusterwide)?NetworkPolicy spec: /, '');
}

describe("Cilium's rule validation: upstream cases (TestL7RulesWithNonTCPProtocols)", () => {
  it.each<[string, Obj, string | undefined]>([
    ['L7 on TCP ports', ingress({ toPorts: [{ ports: ports(['80', 'TCP'], ['81', 'TCP']), rules: http }] }), undefined],
    ['DNS rules without a port', egress({ toPorts: [{ rules: { dns: [{ matchName: 'domain.com' }] } }] }), 'port 53 must be specified for DNS rules'],
    [
      'DNS rules on TCP and UDP',
      egress({ toPorts: [{ ports: ports(['53', 'TCP'], ['53', 'UDP']), rules: { dns: [{ matchName: 'domain.com' }] } }] }),
      undefined,
    ],
    ['an SCTP port', egress({ toPorts: [{ ports: ports(['4000', 'SCTP']) }] }), undefined],
    ['an SCTP deny port', { ...any, egressDeny: [{ toEndpoints: [{}], toPorts: [{ ports: ports(['4000', 'SCTP']) }] }] }, undefined],
    ['L7 on UDP', ingress({ toPorts: [{ ports: ports(['80', 'UDP']), rules: http }] }), 'L7 rules can only apply to TCP (not UDP) except for DNS rules'],
    [
      'DNS rules on ingress',
      ingress({ toPorts: [{ ports: ports(['53', 'ANY']), rules: { dns: [{ matchName: 'domain.com' }] } }] }),
      'L7 protocol DNS is not supported on ingress yet',
    ],
    ['L7 on ANY', ingress({ toPorts: [{ ports: ports(['80', 'ANY']), rules: http }] }), 'L7 rules can only apply to TCP (not ANY) except for DNS rules'],
    [
      'L7 on TCP then UDP',
      ingress({ toPorts: [{ ports: ports(['80', 'TCP'], ['12345', 'UDP']), rules: http }] }),
      'L7 rules can only apply to TCP (not UDP) except for DNS rules',
    ],
    [
      'L7 on UDP then TCP',
      ingress({ toPorts: [{ ports: ports(['80', 'UDP'], ['12345', 'TCP']), rules: http }] }),
      'L7 rules can only apply to TCP (not UDP) except for DNS rules',
    ],
    ['server names for SNI', egress({ toPorts: [{ ports: ports(['443', 'TCP']), serverNames: ['foo.bar.com', 'bar.foo.com'] }] }), undefined],
    ['an empty server name', egress({ toPorts: [{ ports: ports(['443', 'TCP']), serverNames: [''] }] }), 'empty server name is not allowed'],
    [
      'server names with L7 and no TLS termination',
      egress({ toPorts: [{ ports: ports(['443', 'TCP']), serverNames: ['foo.bar.com'], rules: http }] }),
      'ServerNames are not allowed with L7 rules without TLS termination',
    ],
    [
      'server names with L7 and TLS termination',
      egress({ toPorts: [{ ports: ports(['443', 'TCP']), terminatingTLS: { secret: { name: 'test-secret' } }, serverNames: ['foo.bar.com'], rules: http }] }),
      undefined,
    ],
    [
      'a listener on egress',
      egress({ toPorts: [{ ports: ports(['443', 'TCP']), listener: { envoyConfig: { name: 'c' }, name: 'myCustomListener' } }] }),
      undefined,
    ],
    [
      'a listener on ingress',
      ingress({ toPorts: [{ ports: ports(['443', 'TCP']), listener: { envoyConfig: { name: 'c' }, name: 'myCustomListener' } }] }),
      'Listener is not allowed on ingress (myCustomListener)',
    ],
    [
      'a listener with L7 rules',
      egress({ toPorts: [{ ports: ports(['443', 'TCP']), listener: { envoyConfig: { name: 'c' }, name: 'myCustomListener' }, rules: http }] }),
      'Listener is not allowed with L7 rules (myCustomListener)',
    ],
    // TestL7RuleRejectsEmptyPort
    ['L7 on port 0', ingress({ toPorts: [{ ports: ports(['0', 'TCP']), rules: { http: [{}] } }] }), 'L7 rules can not be used when a port is 0'],
    // TestHTTPRuleRegexes
    [
      'a path no regex',
      ingress({ toPorts: [{ ports: ports(['80', 'TCP']), rules: { http: [{ method: 'GET', path: '*' }] } }] }),
      'error parsing regexp: missing argument to repetition operator: `*`',
    ],
    [
      'a method no regex',
      ingress({ toPorts: [{ ports: ports(['80', 'TCP']), rules: { http: [{ method: '*', path: '/' }] } }] }),
      'error parsing regexp: missing argument to repetition operator: `*`',
    ],
  ])('%s', (_, rule, message) => {
    expect(verdict(rule)).toBe(message);
  });
});

describe("Cilium's rule validation: upstream cases (TestCIDRsanitize)", () => {
  const cidrSet = (rule: Obj) => verdict(egress({ toEndpoints: [], toCIDRSet: [rule] }));
  it.each<[Obj, boolean]>([
    [{}, false],
    [{ cidr: '0.0.0.0/0' }, true],
    [{ cidr: '10.0.0.0/24' }, true],
    [{ cidr: '192.0.2.3/32' }, true],
    [{ cidr: '::/0' }, true],
    [{ cidr: 'ff02::/64' }, true],
    [{ cidrGroupRef: 'cidrgroup' }, true],
    [{ cidrGroupSelector: { matchLabels: { foo: 'bar' } } }, true],
    [{ cidrGroupRef: 'foo', cidrGroupSelector: { matchLabels: { foo: 'bar' } } }, false],
    [{ cidr: '2001:0db8:85a3:0000:0000:8a2e:0370:7334/128' }, true],
    [{ cidr: '10.0.0.0/254.0.0.255' }, false],
  ])('%j: accepted %s', (rule, accepted) => {
    expect(cidrSet(rule) === undefined).toBe(accepted);
  });

  it('an exception outside its prefix, or wider than it', () => {
    expect(cidrSet({ cidr: '10.0.0.0/8', except: ['10.96.0.0/12'] })).toBeUndefined();
    expect(cidrSet({ cidr: '10.0.0.0/8', except: ['192.168.0.0/16'] })).toBe(
      'allow CIDR prefix 10.0.0.0/8 does not contain exclude CIDR prefix 192.168.0.0/16',
    );
    expect(cidrSet({ cidr: '10.0.0.0/16', except: ['10.0.0.0/8'] })).toBe('allow CIDR prefix 10.0.0.0/16 does not contain exclude CIDR prefix 10.0.0.0/8');
  });
});

describe("Cilium's policy parse: upstream cases (TestParseWithNodeSelector)", () => {
  const host = { nodeSelector: {}, ingress: [{ fromEntities: ['cluster'] }] };
  it('refuses a node selector in a namespaced policy, and takes it in a clusterwide one', () => {
    expect(verdict(host)).toBe('rule cannot have NodeSelector');
    expect(verdict(host, DEFAULTS, false)).toBeUndefined();
    expect(verdict({ ...any, ingress: [{ fromEntities: ['cluster'] }] })).toBeUndefined();
  });

  it('refuses L7 rules on a host ingress, and HTTP on a host egress', () => {
    expect(
      verdict({ nodeSelector: {}, ingress: [{ fromEntities: ['cluster'], toPorts: [{ ports: ports(['80', 'TCP']), rules: http }] }] }, DEFAULTS, false),
    ).toBe('L7 policy is not supported on host ingress yet');
    expect(verdict({ nodeSelector: {}, egress: [{ toEntities: ['world'], toPorts: [{ ports: ports(['80', 'TCP']), rules: http }] }] }, DEFAULTS, false)).toBe(
      'L7 protocol HTTP is not supported on host egress yet',
    );
  });
});

describe("Cilium's rule validation: what the repository's policies could trip", () => {
  it('one kind of peer per rule', () => {
    expect(verdict(egress({ toEntities: ['kube-apiserver'] }))).toBe('combining ToEndpoints and ToEntities is not supported yet');
    expect(verdict(ingress({ fromCIDR: ['10.0.0.0/8'] }))).toBe('combining FromEndpoints and FromCIDR is not supported yet');
    expect(verdict({ ...any, egress: [{ toFQDNs: [{ matchName: 'a.example' }], toCIDR: ['1.2.3.4/32'] }] })).toBe(
      'combining ToCIDR and ToFQDNs is not supported yet',
    );
    expect(verdict({ ...any, egress: [{ toFQDNs: [{ matchName: 'a.example' }], toPorts: [{ ports: ports(['443', 'TCP']) }] }] })).toBeUndefined();
  });

  it('a rule of some direction, for endpoints or nodes', () => {
    expect(verdict(any)).toBe('rule must have at least one of Ingress, IngressDeny, Egress, EgressDeny');
    expect(verdict({ egress: [{}] })).toBe('rule must have one of EndpointSelector or NodeSelector');
    expect(verdict({ ...any, nodeSelector: {}, egress: [{}] })).toBe('rule cannot have both EndpointSelector and NodeSelector');
    expect(policyRefusal({ object: {} }, true, DEFAULTS)?.message).toBe('Invalid CiliumNetworkPolicy spec(s): empty policy');
  });

  it('ports the agent reads: a number by ParseUint with base 0, or an IANA service name', () => {
    const port = (p: string, protocol = 'TCP') => verdict(egress({ toPorts: [{ ports: ports([p, protocol]) }] }));
    expect(port('443')).toBeUndefined();
    expect(port('0x1bb')).toBeUndefined(); // a service name, as the agent reads it
    expect(port('https')).toBeUndefined();
    expect(port('123-')).toBe('unable to parse port: strconv.ParseUint: parsing "123-": invalid syntax');
    expect(port('70000')).toBe('unable to parse port: strconv.ParseUint: parsing "70000": value out of range');
    expect(port('5', 'VRRP')).toBe('port must be empty or 0');
    expect(verdict(egress({ toPorts: [{ ports: [{ protocol: 'TCP' }] }] }))).toBe('port must be specified');
    expect(verdict(egress({ toPorts: [{ ports: [{ port: 443, protocol: 'TCP' }] }] }))).toBeUndefined(); // the schema's to refuse
    expect(verdict(egress({ toPorts: [{ ports: Array.from({ length: 41 }, (_, i) => ({ port: String(1000 + i) })) }] }))).toBe('too many ports, the max is 40');
  });

  it('DNS rules: never a port range; names and patterns of DNS characters', () => {
    const dns = (rule: Obj, port: Obj = { port: '53', protocol: 'ANY' }) => verdict(egress({ toPorts: [{ ports: [port], rules: { dns: [rule] } }] }));
    expect(dns({ matchPattern: '**.cluster.local' })).toBeUndefined();
    expect(dns({ matchName: 'a.example' }, { port: '53', endPort: 54, protocol: 'ANY' })).toBe('DNS rules do not support port ranges');
    expect(dns({ matchName: 'a b' })).toMatch(/^Invalid characters in MatchName: "a b"/);
    expect(verdict({ ...any, egress: [{ toFQDNs: [{ matchName: 'a.example', matchPattern: '*.example' }] }] })).toBe(
      'only one of MatchName or MatchPattern is allowed in an FQDNSelector',
    );
    expect(verdict({ ...any, egress: [{ toFQDNs: [{ matchPattern: `${'a'.repeat(250)}.*.com` }] }] })).toMatch(/Must be <= 255 characters long/);
  });

  it('selectors, entities and CIDRs the agent parses', () => {
    expect(
      verdict(egress({ toEndpoints: [{ matchLabels: { 'k8s:io.kubernetes.pod.namespace': 'kube-system', 'k8s:k8s-app': 'kube-dns' } }] })),
    ).toBeUndefined();
    expect(verdict(egress({ toEndpoints: [{ matchLabels: { 'app name': 'x' } }] }))).toMatch(/^invalid label selector: /);
    expect(verdict({ ...any, egress: [{ toEntities: ['everything'] }] })).toBe('unsupported entity: everything');
    expect(verdict({ ...any, egress: [{ toCIDR: ['192.168.1.11'] }] })).toBeUndefined();
    expect(verdict({ ...any, egress: [{ toCIDR: ['192.168.1.0/33'] }] })).toMatch(/^unable to parse CIDR: /);
    expect(verdict({ ...any, egress: [{ toCIDR: ['192.168.01.0/24'] }] })).toMatch(/^unable to parse CIDR: /);
  });

  it('ICMP rules apart from ports', () => {
    expect(verdict({ ...any, egress: [{ toEntities: ['world'], icmps: [{ fields: [{ type: 8, family: 'IPv4' }] }] }] })).toBeUndefined();
    expect(verdict({ ...any, egress: [{ toEntities: ['world'], icmps: [{ fields: [{ type: 8 }] }], toPorts: [{ ports: ports(['80', 'TCP']) }] }] })).toBe(
      'the ICMPs block may only be present without ToPorts. Define a separate rule to use ToPorts',
    );
    expect(verdict({ ...any, egress: [{ toEntities: ['world'], icmps: [{ fields: [{ type: 8, family: 'IPv5' }] }] }] })).toBe('wrong family: IPv5');
  });
});

describe("the agent's settings", () => {
  const dnsPolicy = egress({ toPorts: [{ ports: ports(['53', 'ANY']), rules: { dns: [{ matchPattern: '*' }] } }] });
  const nodes = { ...any, egress: [{ toNodes: [{}] }] };

  it('are read from cilium-config as the agent reads a boolean, with its defaults', () => {
    expect(agentOptions({})).toEqual({
      'enable-l7-proxy': true,
      'enable-icmp-rules': true,
      'enable-node-selector-labels': false,
      'enable-extended-ip-protocols': false,
    });
    expect(agentOptions({ 'enable-l7-proxy': 'false', 'enable-node-selector-labels': 'True' })).toMatchObject({
      'enable-l7-proxy': false,
      'enable-node-selector-labels': true,
    });
  });

  it('decide L7 rules and node peers', () => {
    expect(verdict(dnsPolicy, agentOptions({ 'enable-l7-proxy': 'false' }))).toBe('L7 policy is not supported since L7 proxy is not enabled');
    expect(verdict(nodes)).toBe('FromNodes/ToNodes rules can only be applied when the "enable-node-selector-labels" flag is set');
    expect(verdict(nodes, agentOptions({ 'enable-node-selector-labels': 'true' }))).toBeUndefined();
  });

  it('unknown, a refusal no setting lifts is still one; otherwise the setting is said unread', () => {
    expect(policyRefusal({ object: { spec: dnsPolicy } }, true, undefined)).toMatchObject({ unread: 'enable-l7-proxy' });
    const combined = policyRefusal({ object: { spec: egress({ toEntities: ['world'] }) } }, true, undefined);
    expect([combined?.message, combined?.unread]).toEqual([
      'Invalid CiliumNetworkPolicy spec: combining ToEndpoints and ToEntities is not supported yet',
      undefined,
    ]);
    expect(policyRefusal({ object: { spec: egress({ toPorts: [{ ports: ports(['53', 'TCP']) }] }) } }, true, undefined)).toBeUndefined();
  });
});
