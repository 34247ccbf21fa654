/**
 * A Service as pkg/apis/core/validation `ValidateService` judges it on create, after the API server's defaults (a
 * type of ClusterIP, ports over TCP, no session affinity, the traffic policies) and after its allocation of cluster
 * IPs and node ports, which the REST create runs first: its ports, what each type may and may not carry, session
 * affinity's timeout, external IPs, source ranges, the load balancer's class and node ports, the health check port.
 * The enums the schema holds are the schema layer's.
 */
import { BlockList } from 'node:net';
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { cidr, dns1123Label, dns1123Subdomain, isPortNumber, isSloppyIP, portName, qualifiedName } from './syntax.ts';

type Obj = Record<string, any>;

/** MaxClientIPServiceAffinitySeconds: a day. */
const MAX_AFFINITY_SECONDS = 86_400;
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';
const LOAD_BALANCER_ONLY = "may only be used when `type` is 'LoadBalancer'";

function portProblems(o: Obj): Invalid[] {
  const ports = list(o.spec?.ports) as Obj[];
  const out: Invalid[] = [];
  const names = new Set<string>();
  const seen = new Set<string>();
  const nodePorts = new Set<string>();
  ports.forEach((p, i) => {
    const at: PathSegment[] = ['spec', 'ports', i];
    if (ports.length > 1 && !p?.name) out.push({ path: at, fn: 'validateServicePort', message: 'name is required when a Service has more than one port' });
    if (typeof p?.name === 'string' && p.name !== '') {
      // A Service's port names are DNS labels (up to 63 characters), unlike a container's IANA names.
      const bad = dns1123Label(p.name);
      if (bad) out.push({ path: [...at, 'name'], fn: 'validateServicePort (ValidateDNS1123Label)', message: `port name "${p.name}": ${bad}` });
      if (names.has(p.name)) out.push({ path: [...at, 'name'], fn: 'validateServicePort', message: `duplicate port name "${p.name}"` });
      names.add(p.name);
    }
    if (p?.port !== undefined && !isPortNumber(p.port))
      out.push({ path: [...at, 'port'], fn: 'validateServicePort', message: `port ${String(p.port)} must be between 1 and 65535, inclusive` });
    const t = p?.targetPort;
    const badTarget =
      typeof t === 'number' ? (isPortNumber(t) ? undefined : 'must be between 1 and 65535, inclusive') : typeof t === 'string' ? portName(t) : undefined;
    if (badTarget) out.push({ path: [...at, 'targetPort'], fn: 'validateServicePort', message: `targetPort ${JSON.stringify(t)} ${badTarget}` });
    if (typeof p?.appProtocol === 'string') {
      const bad = qualifiedName(p.appProtocol);
      if (bad) out.push({ path: [...at, 'appProtocol'], fn: 'validateServicePort', message: `appProtocol "${p.appProtocol}": ${bad}` });
    }
    if (p?.nodePort !== undefined && !isPortNumber(p.nodePort))
      out.push({ path: [...at, 'nodePort'], fn: 'validateServicePort', message: `nodePort ${String(p.nodePort)} must be between 1 and 65535, inclusive` });
    if (p?.nodePort !== undefined && p.nodePort !== 0 && (o.spec?.type ?? 'ClusterIP') === 'ClusterIP')
      out.push({ path: [...at, 'nodePort'], fn: 'ValidateService', message: "may not be used when `type` is 'ClusterIP'" });
    const protocol = String(p?.protocol ?? 'TCP');
    const key = `${String(p?.port)}/${protocol}`;
    if (seen.has(key)) out.push({ path: [...at, 'port'], fn: 'ValidateService', message: `duplicate port ${key}` });
    seen.add(key);
    if (typeof p?.nodePort === 'number' && p.nodePort !== 0) {
      const node = `${p.nodePort}/${protocol}`;
      if (nodePorts.has(node)) out.push({ path: [...at, 'nodePort'], fn: 'ValidateService', message: `Duplicate value: nodePort ${node}` });
      nodePorts.add(node);
    }
  });
  return out;
}

const headless = (spec: Obj): boolean =>
  spec.clusterIP === 'None' || (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length === 1 && spec.clusterIPs[0] === 'None');

/** What each type may not carry: a headless NodePort or LoadBalancer, an ExternalName's IPs, a non-LoadBalancer's load balancer fields. */
function typeProblems(o: Obj): Invalid[] {
  const spec = o.spec ?? {};
  const type = spec.type ?? 'ClusterIP';
  const out: Invalid[] = [];
  const say = (path: PathSegment[], message: string) => out.push({ path, fn: 'ValidateService', message });
  if ((type === 'LoadBalancer' || type === 'NodePort') && headless(spec)) say(['spec', 'clusterIP'], `may not be set to 'None' for ${type} services`);
  if (type === 'ExternalName') {
    const bad = typeof spec.externalName === 'string' && spec.externalName !== '' ? dns1123Subdomain(spec.externalName.replace(/\.$/, '')) : 'is required';
    if (bad) say(['spec', 'externalName'], `externalName ${bad}`);
    if (spec.clusterIP || (Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0))
      say(['spec', 'clusterIP'], 'may not be set for ExternalName services');
    if (Array.isArray(spec.ipFamilies) && spec.ipFamilies.length > 0) say(['spec', 'ipFamilies'], 'may not be set for ExternalName services');
    if (spec.ipFamilyPolicy !== undefined && spec.ipFamilyPolicy !== null) say(['spec', 'ipFamilyPolicy'], 'may not be set for ExternalName services');
  } else if (list(spec.ports).length === 0 && !headless(spec))
    say(['spec', 'ports'], 'a Service needs at least one port (unless it is headless or ExternalName)');
  if (type !== 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts !== undefined && spec.allocateLoadBalancerNodePorts !== null)
      say(['spec', 'allocateLoadBalancerNodePorts'], LOAD_BALANCER_ONLY);
    if (spec.loadBalancerClass !== undefined && spec.loadBalancerClass !== null) say(['spec', 'loadBalancerClass'], LOAD_BALANCER_ONLY);
  } else if (typeof spec.loadBalancerClass === 'string') {
    const bad = qualifiedName(spec.loadBalancerClass);
    if (bad) say(['spec', 'loadBalancerClass'], `loadBalancerClass "${spec.loadBalancerClass}": ${bad}`);
  }
  // The strategy copies clusterIP into clusterIPs on create, never the other way: a list without the field is refused.
  if (!spec.clusterIP && Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0)
    say(['spec', 'clusterIPs'], 'must be empty when `clusterIP` is not specified');
  else if (spec.clusterIP && Array.isArray(spec.clusterIPs) && spec.clusterIPs.length > 0 && spec.clusterIPs[0] !== spec.clusterIP)
    say(['spec', 'clusterIPs'], 'first value must match `clusterIP`');
  return out;
}

const UNSPECIFIED = 'may not be unspecified';

/** The addresses ValidateNonSpecialIP refuses as an external IP, with its words. */
const SPECIAL = ((): { list: BlockList; why: string }[] => {
  const make = (why: string, nets: [string, number, 'ipv4' | 'ipv6'][]) => {
    const list = new BlockList();
    for (const [net, bits, family] of nets) list.addSubnet(net, bits, family);
    return { list, why };
  };
  const multicast6 = [...Array(16).keys()].map((flags): [string, number, 'ipv6'] => [`ff${flags.toString(16)}2::`, 16, 'ipv6']);
  return [
    make(UNSPECIFIED, [
      ['0.0.0.0', 32, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
    make('may not be in the loopback range (127.0.0.0/8, ::1/128)', [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
    make('may not be in the link-local range (169.254.0.0/16, fe80::/10)', [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
    make('may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)', [['224.0.0.0', 24, 'ipv4'], ...multicast6]),
  ];
})();

/** An IPv4 address as ParseIPSloppy reads it, leading zeros dropped (decimal, never octal). */
const plainIP = (ip: string): string =>
  /^[\d.]+$/.test(ip)
    ? ip
        .split('.')
        .map((part) => String(Number(part)))
        .join('.')
    : ip;

function addressProblems(o: Obj): Invalid[] {
  const spec = o.spec ?? {};
  const out: Invalid[] = [];
  (Array.isArray(spec.externalIPs) ? spec.externalIPs : []).forEach((ip: unknown, i: number) => {
    const at = ['spec', 'externalIPs', i];
    if (typeof ip !== 'string' || !isSloppyIP(ip))
      return void out.push({ path: at, fn: 'ValidateService (IsValidIP)', message: `externalIPs "${String(ip)}": must be a valid IP address` });
    // Go reads an IPv4-mapped IPv6 address as the IPv4 one it maps.
    const plain = plainIP(ip.replace(/^::ffff:(?=[\d.]+$)/i, ''));
    const family = plain.includes(':') ? 'ipv6' : 'ipv4';
    for (const { list, why } of SPECIAL)
      if (list.check(plain, family))
        out.push({ path: at, fn: 'ValidateNonSpecialIP', message: `externalIPs "${ip}": ${why === UNSPECIFIED ? `${why} (${ip})` : why}` });
  });
  const ranges = Array.isArray(spec.loadBalancerSourceRanges) ? spec.loadBalancerSourceRanges : [];
  const annotation = o.metadata?.annotations?.[SOURCE_RANGES_ANNOTATION];
  const [place, values]: [PathSegment[], unknown[]] =
    ranges.length > 0
      ? [['spec', 'loadBalancerSourceRanges'], ranges]
      : typeof annotation === 'string'
        ? [['metadata', 'annotations', SOURCE_RANGES_ANNOTATION], annotation.trim() === '' ? [] : annotation.split(',')]
        : [[], []];
  if (place.length > 0 && (spec.type ?? 'ClusterIP') !== 'LoadBalancer') out.push({ path: place, fn: 'ValidateService', message: LOAD_BALANCER_ONLY });
  values.forEach((v, i) => {
    // Space-padded values are accepted, a leftover of the annotation.
    const bad = typeof v === 'string' ? cidr(v.trim()) : 'must be a string';
    if (bad) out.push({ path: ranges.length > 0 ? [...place, i] : place, fn: 'ValidateService (IsValidCIDR)', message: `source range "${String(v)}": ${bad}` });
  });
  return out;
}

/** Session affinity's timeout, and the traffic fields only an externally reachable Service may carry. */
function trafficProblems(o: Obj): Invalid[] {
  const spec = o.spec ?? {};
  const type = spec.type ?? 'ClusterIP';
  const out: Invalid[] = [];
  const affinity = spec.sessionAffinity ?? 'None';
  const timeout = spec.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (affinity === 'None' && spec.sessionAffinityConfig !== undefined && spec.sessionAffinityConfig !== null)
    out.push({ path: ['spec', 'sessionAffinityConfig'], fn: 'ValidateService', message: 'must not be set when session affinity is None' });
  if (affinity === 'ClientIP' && typeof timeout === 'number' && (timeout <= 0 || timeout > MAX_AFFINITY_SECONDS))
    out.push({
      path: ['spec', 'sessionAffinityConfig', 'clientIP', 'timeoutSeconds'],
      fn: 'validateAffinityTimeout',
      message: `timeoutSeconds ${timeout}: must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`,
    });
  const reachable = type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && list(spec.externalIPs).length > 0);
  if (!reachable && spec.externalTrafficPolicy)
    out.push({
      path: ['spec', 'externalTrafficPolicy'],
      fn: 'validateServiceExternalTrafficPolicy',
      message: 'may only be set for externally-accessible services',
    });
  const needsHealthCheck = type === 'LoadBalancer' && spec.externalTrafficPolicy === 'Local';
  if (!needsHealthCheck && spec.healthCheckNodePort)
    out.push({
      path: ['spec', 'healthCheckNodePort'],
      fn: 'validateServiceExternalTrafficPolicy',
      message: "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    });
  else if (needsHealthCheck && spec.healthCheckNodePort !== undefined && !isPortNumber(spec.healthCheckNodePort))
    out.push({ path: ['spec', 'healthCheckNodePort'], fn: 'validateServiceExternalTrafficPolicy', message: 'must be between 1 and 65535, inclusive' });
  return out;
}

/** ValidateService on create: what the gate can judge without the cluster's allocators. */
export function serviceProblems(o: Obj): Invalid[] {
  return [...typeProblems(o), ...portProblems(o), ...addressProblems(o), ...trafficProblems(o)];
}
