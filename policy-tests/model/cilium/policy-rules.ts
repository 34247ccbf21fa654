/**
 * What Cilium's agent refuses of a CiliumNetworkPolicy or CiliumClusterwideNetworkPolicy when it reads one: the
 * policy's `Parse` (pkg/k8s/apis/cilium.io/v2) and each rule's `Validate` (pkg/policy/api/rule_validation.go, with
 * `rule_validation_helpers.go`, `fqdn.go`, `cidr.go`, `selector.go` and pkg/fqdn/matchpattern), as Cilium 1.19 writes
 * them. The API server stores whatever the CRD's schema takes; the agent then refuses the whole policy on the first
 * rule it cannot enforce (an error in its log, the policy's condition false) and enforces none of its rules.
 *
 * Go walks the map of a rule's peers in random order, so of two peers combined the agent may name them the other
 * way round; they are named here in the order the fields are declared.
 */
import { isSet, list, obj, str, type Obj } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import { goParseUint } from '../go/strconv.ts';
import { parseAddr, parsePrefix, prefixContains } from '../go/netip.ts';
import { labelSelectorError } from '../scheduling/label-syntax.ts';
import { re2Problem } from '../core/re2.ts';

/** The agent's settings a rule's validation reads, by their cilium-config keys, with the agent's defaults. */
const OPTION_DEFAULTS = {
  'enable-l7-proxy': true,
  'enable-icmp-rules': true,
  'enable-node-selector-labels': false,
  'enable-extended-ip-protocols': false,
} as const;

export type AgentOption = keyof typeof OPTION_DEFAULTS;
export type AgentOptions = Readonly<Record<AgentOption, boolean>>;

/** The settings as the agent reads them from its ConfigMap's data: a key it lacks takes the flag's default. */
export function agentOptions(data: Obj): AgentOptions {
  // viper's GetBool: strconv.ParseBool's true spellings are true; anything else is false.
  const truthy = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
  const read = (key: AgentOption) => {
    const value = data[key];
    if (value === undefined) return OPTION_DEFAULTS[key];
    return (typeof value === 'string' || typeof value === 'boolean') && truthy.has(String(value));
  };
  return Object.fromEntries(Object.keys(OPTION_DEFAULTS).map((k) => [k, read(k as AgentOption)])) as Record<AgentOption, boolean>;
}

/** Where and why the agent refuses a policy; `unread` names the setting it rests on where the gate could not read it. */
export interface PolicyRefusal {
  path: Path;
  message: string;
  unread?: AgentOption;
}

type Found = PolicyRefusal | undefined;

interface Judging {
  options: AgentOptions | undefined;
  hostPolicy: boolean;
}

const refuse = (path: Path, message: string): PolicyRefusal => ({ path, message });

/** A refusal unless the setting is on; said unread where the settings are not known. */
function unless(j: Judging, key: AgentOption, refusal: PolicyRefusal): Found {
  if (j.options === undefined) return { ...refusal, unread: key };
  return j.options[key] ? undefined : refusal;
}

const goName = (field: string) => field[0]!.toUpperCase() + field.slice(1);
const firstOf = <T>(items: readonly T[], judge: (item: T, i: number) => Found): Found => {
  for (const [i, item] of items.entries()) {
    const found = judge(item, i);
    if (found) return found;
  }
  return undefined;
};

/** Entities the agent maps to selectors (EntitySelectorMapping). */
const ENTITIES = new Set([
  'all',
  'world',
  'world-ipv4',
  'world-ipv6',
  'cluster',
  'host',
  'init',
  'ingress',
  'unmanaged',
  'remote-node',
  'health',
  'none',
  'kube-apiserver',
]);

/** labels.GetExtendedKeyFrom: a key with its source (`k8s:`, `$` for reserved, `any` where none) as the agent keys it. */
function extendedKey(key: string): string {
  if (key.startsWith('$')) return `reserved.${key.slice(1)}`;
  const colon = key.indexOf(':');
  const [source, rest] = colon < 0 ? ['any', key] : [key.slice(0, colon), key.slice(colon + 1)];
  const equals = rest.indexOf('=');
  return `${source}.${equals < 0 ? rest : rest.slice(0, equals)}`;
}

/** EndpointSelector.Validate: the selector, its keys extended with their source, is one apimachinery builds. */
function selectorRefusal(selector: unknown, at: Path): Found {
  const s = obj(selector);
  const matchLabels = Object.fromEntries(Object.entries(obj(s.matchLabels)).map(([k, v]) => [extendedKey(k), v]));
  const matchExpressions = list(s.matchExpressions).map((e) => ({ ...obj(e), key: extendedKey(str(obj(e).key)) }));
  const error = labelSelectorError({ matchLabels, matchExpressions });
  return error ? refuse(at, `invalid label selector: ${error}`) : undefined;
}

/** api.CIDR.Validate: a prefix, or a bare address. */
function cidrRefusal(cidr: unknown, at: Path): Found {
  const text = str(cidr);
  if (text === '') return refuse(at, 'IP must be specified');
  return parsePrefix(text) || parseAddr(text) ? undefined : refuse(at, `unable to parse CIDR: ParseAddr(${JSON.stringify(text)}): unable to parse IP`);
}

/** CIDRRule.Validate: one of cidr, cidrGroupRef and cidrGroupSelector; a prefix holding each of its exceptions. */
function cidrRuleRefusal(value: unknown, at: Path): Found {
  const rule = obj(value);
  const set = [str(rule.cidr) !== '', str(rule.cidrGroupRef) !== '', isSet(rule.cidrGroupSelector)].filter(Boolean).length;
  if (set === 0) return refuse(at, 'one of cidr, cidrGroupRef, or cidrGroupSelector is required');
  if (set > 1) return refuse(at, 'more than one of cidr, cidrGroupRef, or cidrGroupSelector may not be set');
  if (isSet(rule.cidrGroupSelector)) {
    const error = labelSelectorError(obj(rule.cidrGroupSelector));
    return error ? refuse([...at, 'cidrGroupSelector'], `failed to sanitize cidrGroupSelector: ${error}`) : undefined;
  }
  if (str(rule.cidr) === '') return undefined;
  const prefix = parsePrefix(str(rule.cidr));
  if (!prefix) return refuse([...at, 'cidr'], `unable to parse CIDRRule ${JSON.stringify(str(rule.cidr))}: netip.ParsePrefix: not a prefix`);
  return firstOf(list(rule.except), (e, i) => {
    const except = parsePrefix(str(e));
    if (!except) return refuse([...at, 'except', i], `netip.ParsePrefix(${JSON.stringify(str(e))}): not a prefix`);
    return prefix.bits > except.bits || !prefixContains(prefix, except.addr)
      ? refuse([...at, 'except', i], `allow CIDR prefix ${str(rule.cidr)} does not contain exclude CIDR prefix ${str(e)}`)
      : undefined;
  });
}

/** The peers one rule may name only one kind of (a rule's l3Members), with how many of each it names. */
const INGRESS_PEERS = ['fromEndpoints', 'fromCIDR', 'fromCIDRSet', 'fromEntities', 'fromNodes', 'fromGroups'];
const EGRESS_PEERS = ['toCIDR', 'toCIDRSet', 'toEndpoints', 'toEntities', 'toServices', 'toGroups', 'toNodes'];

/** The fields of a direction's peers, by what each names. */
const PEER_FIELDS = {
  ingress: { endpoints: 'fromEndpoints', nodes: 'fromNodes', cidr: 'fromCIDR', cidrSet: 'fromCIDRSet', entities: 'fromEntities' },
  egress: { endpoints: 'toEndpoints', nodes: 'toNodes', cidr: 'toCIDR', cidrSet: 'toCIDRSet', entities: 'toEntities' },
} as const;

/** IngressCommonRule/EgressCommonRule.Validate: one kind of peer, node peers only where the agent reads node labels, each peer well formed. */
function peersRefusal(rule: Obj, at: Path, j: Judging & { ingress: boolean; deny: boolean }): Found {
  const peers = j.ingress ? INGRESS_PEERS : j.deny ? EGRESS_PEERS : [...EGRESS_PEERS, 'toFQDNs'];
  const named = peers.filter((p) => list(rule[p]).length > 0);
  if (named.length > 1) return refuse([...at, named[1]!], `combining ${goName(named[0]!)} and ${goName(named[1]!)} is not supported yet`);
  const f = PEER_FIELDS[j.ingress ? 'ingress' : 'egress'];
  const each = (field: string, judge: (v: unknown, path: Path) => Found) => firstOf(list(rule[field]), (v, i) => judge(v, [...at, field, i]));
  // The node-label setting's error is joined after any other, so any other is the one the agent prints first.
  const found =
    each(f.endpoints, selectorRefusal) ??
    each(f.nodes, selectorRefusal) ??
    each(f.cidr, cidrRefusal) ??
    each(f.cidrSet, cidrRuleRefusal) ??
    each(f.entities, (e, path) => (ENTITIES.has(str(e)) ? undefined : refuse(path, `unsupported entity: ${str(e)}`)));
  if (found || list(rule[f.nodes]).length === 0) return found;
  return unless(
    j,
    'enable-node-selector-labels',
    refuse([...at, f.nodes], 'FromNodes/ToNodes rules can only be applied when the "enable-node-selector-labels" flag is set'),
  );
}

/** IANA service names (RFC 6335), which the agent reads as named ports (pkg/iana). */
const isSvcName = (name: string) => name.length > 0 && name.length <= 15 && /^([a-zA-Z0-9]-?)*[a-zA-Z](-?[a-zA-Z0-9])*$/.test(name);
const PROTOCOLS = new Set(['TCP', 'UDP', 'SCTP', 'ICMP', 'ICMPV6', 'VRRP', 'IGMP', 'ANY']);

/** PortProtocol.Validate: a port the agent reads (a number by strconv.ParseUint with base 0, or a name) and its protocol; whether the port is 0. */
function portRefusal(value: unknown, at: Path, dns: boolean, j: Judging): { found: Found; zero: boolean } {
  const pp = obj(value);
  // A port that is no string the API server refuses first (the CRD's schema): nothing of the agent's to add.
  if (pp.port !== undefined && typeof pp.port !== 'string') return { found: undefined, zero: false };
  const port = str(pp.port);
  const protocol = str(pp.protocol).toUpperCase();
  let zero = false;
  if (port === '') {
    const found = unless(j, 'enable-extended-ip-protocols', refuse([...at, 'port'], 'port must be specified'));
    if (found) return { found, zero };
  } else if (!isSvcName(port)) {
    if (port !== '0' && ['VRRP', 'IGMP'].includes(protocol)) return { found: refuse([...at, 'port'], 'port must be empty or 0'), zero };
    const n = goParseUint(port);
    if (n === undefined || n > 0xffffn) {
      const why = n === undefined ? 'invalid syntax' : 'value out of range';
      return { found: refuse([...at, 'port'], `unable to parse port: strconv.ParseUint: parsing ${JSON.stringify(port)}: ${why}`), zero };
    }
    zero = n === 0n;
    if (dns && typeof pp.endPort === 'number' && pp.endPort > Number(n))
      return { found: refuse([...at, 'endPort'], 'DNS rules do not support port ranges'), zero };
  }
  // ParseL4Proto: upper-cased, empty for any; the set is the CRD's enum, which the API server holds first.
  if (protocol !== '' && !PROTOCOLS.has(protocol))
    return { found: refuse([...at, 'protocol'], `invalid protocol ${JSON.stringify(protocol)}, must be { tcp | udp | sctp | any }`), zero };
  return { found: undefined, zero };
}

/** PortRuleHTTP's validation: path and method Go regular expressions; each header match named, with an action Envoy knows. */
function httpRefusal(value: unknown, at: Path): Found {
  const rule = obj(value);
  for (const field of ['path', 'method']) {
    const problem = str(rule[field]) === '' ? undefined : re2Problem(str(rule[field]));
    // re2's words are Go regexp's own (`error parsing regexp: ...`).
    if (problem) return refuse([...at, field], problem);
  }
  return firstOf(list(rule.headerMatches), (m, i) => {
    const match = obj(m);
    if (str(match.name) === '') return refuse([...at, 'headerMatches', i], 'Header name missing');
    if (str(match.mismatch) !== '' && !['LOG', 'ADD', 'DELETE', 'REPLACE'].includes(str(match.mismatch)))
      return refuse([...at, 'headerMatches', i, 'mismatch'], `Invalid header action: ${str(match.mismatch)}`);
    return isSet(match.secret) && str(obj(match.secret).name) === '' ? refuse([...at, 'headerMatches', i, 'secret'], 'Secret name missing') : undefined;
  });
}

/** L7Rules.Validate: HTTP rules; DNS rules with their port; the FQDN patterns they hold; one kind of L7 rule. */
function l7Refusal(rules: Obj, at: Path, hasPorts: boolean): Found {
  const http = firstOf(list(rules.http), (h, i) => httpRefusal(h, [...at, 'http', i]));
  if (http) return http;
  if (isSet(rules.dns) && !hasPorts) return refuse([...at, 'dns'], 'port 53 must be specified for DNS rules');
  const dns = firstOf(list(rules.dns), (d, i) => fqdnRefusal(obj(d), [...at, 'dns', i], { portRule: true }));
  if (dns) return dns;
  if (isSet(rules.l7) && str(rules.l7proto) === '') return refuse([...at, 'l7'], "'l7' may only be specified when a 'l7proto' is also specified");
  const kinds = [isSet(rules.http), isSet(rules.kafka), isSet(rules.dns), str(rules.l7proto) !== ''].filter(Boolean).length;
  return kinds > 1 ? refuse(at, 'multiple L7 protocol rule types specified in single rule') : undefined;
}

/** L7Rules.IsEmpty: no kind of L7 rule is set. */
const l7Empty = (rules: Obj) => !['http', 'kafka', 'dns', 'l7'].some((k) => isSet(rules[k]));

/** PortRule.Validate (PortDenyRule's where `deny`): the ports, server names, listener and L7 rules of one toPorts entry. */
function portRuleRefusal(value: unknown, at: Path, j: Judging & { ingress: boolean; deny?: boolean }): Found {
  const pr = obj(value);
  const rules = obj(pr.rules);
  const dns = list(rules.dns).length > 0;
  const ports = list(pr.ports);
  if (!j.deny) {
    if (j.ingress && dns) return refuse([...at, 'rules', 'dns'], 'DNS rules are not allowed on ingress');
    const names = list(pr.serverNames);
    if (names.length > 0 && !l7Empty(rules) && !isSet(pr.terminatingTLS))
      return refuse([...at, 'serverNames'], 'ServerNames are not allowed with L7 rules without TLS termination');
    if (names.some((n) => str(n) === '')) return refuse([...at, 'serverNames'], 'empty server name is not allowed');
  }
  if (ports.length > 40) return refuse([...at, 'ports'], 'too many ports, the max is 40');
  let zero = false;
  for (const [i, p] of ports.entries()) {
    const port = portRefusal(p, [...at, 'ports', i], !j.deny && dns, j);
    if (port.found) return port.found;
    zero ||= port.zero;
    const protocol = str(obj(p).protocol);
    if (!j.deny && !l7Empty(rules) && !dns && protocol !== 'TCP')
      return refuse([...at, 'ports', i, 'protocol'], `L7 rules can only apply to TCP (not ${protocol}) except for DNS rules`);
  }
  if (j.deny) return undefined;
  const listener = obj(pr.listener);
  if (isSet(pr.listener) && j.ingress) return refuse([...at, 'listener'], `Listener is not allowed on ingress (${str(listener.name)})`);
  if (isSet(pr.listener) && !l7Empty(rules)) return refuse([...at, 'listener'], `Listener is not allowed with L7 rules (${str(listener.name)})`);
  if (l7Empty(rules)) return undefined;
  if (zero) return refuse([...at, 'rules'], 'L7 rules can not be used when a port is 0');
  return l7Refusal(rules, [...at, 'rules'], ports.length > 0);
}

/** FQDNSelector.Validate and PortRuleDNS.Validate: the characters and length the agent takes of a DNS name or pattern. */
function fqdnRefusal(selector: Obj, at: Path, { portRule = false } = {}): Found {
  const name = str(selector.matchName);
  const pattern = str(selector.matchPattern);
  if (!portRule && name !== '' && pattern !== '') return refuse(at, 'only one of MatchName or MatchPattern is allowed in an FQDNSelector');
  if (name !== '' && !/^[-a-zA-Z0-9_.]+$/.test(name))
    return refuse([...at, 'matchName'], `Invalid characters in MatchName: "${name}". Only 0-9, a-z, A-Z and . and - characters are allowed`);
  if (pattern !== '' && !/^[-a-zA-Z0-9_.*]+$/.test(pattern))
    return refuse([...at, 'matchPattern'], `Invalid characters in MatchPattern: "${pattern}". Only 0-9, a-z, A-Z and ., - and * characters are allowed`);
  if (pattern.trim().length > 255) return refuse([...at, 'matchPattern'], `Invalid MatchPattern: ${JSON.stringify(pattern)}. Must be <= 255 characters long.`);
  return undefined;
}

/** The L7 kinds a rule's ports hold (countL7Rules: present once any port has L7 rules). */
function l7Kinds(rule: Obj): Map<string, number> {
  const kinds = new Map<string, number>();
  for (const pr of list(rule.toPorts)) {
    const rules = obj(obj(pr).rules);
    if (l7Empty(rules)) continue;
    for (const [kind, key] of [
      ['DNS', 'dns'],
      ['HTTP', 'http'],
      ['Kafka', 'kafka'],
    ] as const)
      kinds.set(kind, (kinds.get(kind) ?? 0) + list(rules[key]).length);
  }
  return kinds;
}

/** ICMPs: the agent's setting, never beside toPorts, at most 40 fields of a known family. */
function icmpRefusal(rule: Obj, at: Path, j: Judging): Found {
  const icmps = list(rule.icmps);
  if (icmps.length === 0) return undefined;
  const off = unless(j, 'enable-icmp-rules', refuse([...at, 'icmps'], 'ICMP rules can only be applied when the "enable-icmp-rules" flag is set'));
  if (off) return off;
  if (list(rule.toPorts).length > 0)
    return refuse([...at, 'icmps'], 'the ICMPs block may only be present without ToPorts. Define a separate rule to use ToPorts');
  return firstOf(icmps, (icmp, i) => {
    const fields = list(obj(icmp).fields);
    if (fields.length > 40) return refuse([...at, 'icmps', i, 'fields'], 'too many types, the max is 40');
    return firstOf(fields, (f, k) =>
      ['', 'IPv4', 'IPv6'].includes(str(obj(f).family)) ? undefined : refuse([...at, 'icmps', i, 'fields', k, 'family'], `wrong family: ${str(obj(f).family)}`),
    );
  });
}

/** IngressRule/EgressRule.Validate (and their deny forms): peers, L7 support, ICMPs, ports, DNS names. */
function directionRefusal(rule: Obj, at: Path, j: Judging & { ingress: boolean; deny: boolean }): Found {
  const common = peersRefusal(rule, at, j);
  if (common) return common;
  const kinds = j.deny ? new Map<string, number>() : l7Kinds(rule);
  if (j.ingress && j.hostPolicy && kinds.size > 0) return refuse([...at, 'toPorts'], 'L7 policy is not supported on host ingress yet');
  if (kinds.size > 0) {
    const off = unless(j, 'enable-l7-proxy', refuse([...at, 'toPorts'], 'L7 policy is not supported since L7 proxy is not enabled'));
    if (off) return off;
  }
  for (const [kind, count] of kinds) {
    const supported = j.ingress ? kind !== 'DNS' : kind === 'DNS' || !j.hostPolicy;
    if (count > 0 && !supported)
      return refuse(
        [...at, 'toPorts'],
        `L7 protocol ${kind} is not supported on ${j.ingress ? '' : j.hostPolicy ? 'host ' : ''}${j.ingress ? 'ingress' : 'egress'} yet`,
      );
  }
  return (
    icmpRefusal(rule, at, j) ??
    firstOf(list(rule.toPorts), (pr, i) => portRuleRefusal(pr, [...at, 'toPorts', i], j)) ??
    firstOf(list(rule.toFQDNs), (f, i) => fqdnRefusal(obj(f), [...at, 'toFQDNs', i]))
  );
}

/** Rule.Validate: a rule of at least one direction, for endpoints or nodes, each direction's rules as above. */
export function ruleRefusal(value: unknown, at: Path, options: AgentOptions | undefined): Found {
  const rule = obj(value);
  const directions = ['ingress', 'ingressDeny', 'egress', 'egressDeny'] as const;
  if (directions.every((d) => list(rule[d]).length === 0)) return refuse(at, 'rule must have at least one of Ingress, IngressDeny, Egress, EgressDeny');
  const endpoints = isSet(rule.endpointSelector);
  const nodes = isSet(rule.nodeSelector);
  if (!endpoints && !nodes) return refuse(at, 'rule must have one of EndpointSelector or NodeSelector');
  if (endpoints && nodes) return refuse([...at, 'nodeSelector'], 'rule cannot have both EndpointSelector and NodeSelector');
  const selector = endpoints ? 'endpointSelector' : 'nodeSelector';
  const own = selectorRefusal(rule[selector], [...at, selector]);
  if (own) return own;
  const j: Judging = { options, hostPolicy: nodes };
  return firstOf(directions, (d) =>
    firstOf(list(rule[d]), (r, i) => directionRefusal(obj(r), [...at, d, i], { ...j, ingress: d.startsWith('ingress'), deny: d.endsWith('Deny') })),
  );
}

/** Every setting on: what the agent refuses under these it refuses under any. */
const ALL_ON: AgentOptions = agentOptions(Object.fromEntries(Object.keys(OPTION_DEFAULTS).map((k) => [k, 'true'])));

/**
 * CiliumNetworkPolicy.Parse (CiliumClusterwideNetworkPolicy's where the policy has no namespace): a spec or specs,
 * each rule valid, and no node selector in a namespaced policy. Where the agent's settings are not known, a refusal
 * no setting lifts is still one; else the first setting a rule rests on is said unread.
 */
export function policyRefusal(policy: { object: Obj }, namespaced: boolean, options: AgentOptions | undefined): Found {
  return options
    ? parseRefusal(policy.object, namespaced, options)
    : (parseRefusal(policy.object, namespaced, ALL_ON) ?? parseRefusal(policy.object, namespaced, undefined));
}

/** The rules of a Cilium policy, `spec` then each of `specs`, each with where it stands and the field that holds it. */
export function ciliumRules(object: Obj): { rule: unknown; at: Path; field: 'spec' | 'specs' }[] {
  const { spec, specs } = object;
  return [
    ...(isSet(spec) ? [{ rule: spec, at: ['spec'] as Path, field: 'spec' as const }] : []),
    ...list(specs).map((rule, i) => ({ rule, at: ['specs', i] as Path, field: 'specs' as const })),
  ];
}

function parseRefusal(object: Obj, namespaced: boolean, options: AgentOptions | undefined): Found {
  const { spec, specs } = object;
  const kind = namespaced ? 'CiliumNetworkPolicy' : 'CiliumClusterwideNetworkPolicy';
  if (!isSet(spec) && !isSet(specs)) return refuse([], `Invalid ${kind} spec(s): empty policy`);
  return firstOf(ciliumRules(object), ({ rule, at, field }) => {
    const found = ruleRefusal(rule, at, options);
    if (found) return { ...found, message: `Invalid ${kind} ${field}: ${found.message}` };
    return namespaced && isSet(obj(rule).nodeSelector) ? refuse([...at, 'nodeSelector'], `Invalid ${kind} ${field}: rule cannot have NodeSelector`) : undefined;
  });
}

/**
 * Whether Cilium's agent refuses a Cilium policy whatever its settings (it then enforces none of its rules): the
 * checks that judge a path through it leave that to network-policy-cilium-accepted, the cause.
 */
export const refusedOutright = (policy: { kind: string; object: Obj }): boolean => {
  if (!policy.kind.startsWith('Cilium')) return false;
  const refusal = policyRefusal(policy, policy.kind === 'CiliumNetworkPolicy', undefined);
  return refusal !== undefined && !refusal.unread;
};
