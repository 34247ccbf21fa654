/**
 * An Ingress and an IngressClass as pkg/apis/networking/validation judges them on create (`ValidateIngressCreate`,
 * `ValidateIngressSpec`, `validateHTTPIngressPath`, `validateIngressBackend`, `validateIngressTLS`,
 * `validateIngressClassSpec`): a default backend or rules, hosts that are DNS names (a leading `*.` allowed, never an
 * IP), paths that are absolute and free of `//`, `/./`, `/../` and encoded slashes, backends naming one Service port
 * or one resource, TLS hosts and secret names, the class name, and its agreement with the older annotation.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import {
  dns1035Label,
  dns1123Label,
  dns1123Subdomain,
  domainPrefixedPath,
  isPortNumber,
  isSloppyIP,
  notSupported,
  pathSegmentName,
  portName,
  tooLong,
  wildcardSubdomain,
} from './syntax.ts';

type Obj = Record<string, any>;

const INVALID_SEQUENCES = ['//', '/./', '/../', '%2f', '%2F'];
const INVALID_SUFFIXES = ['/..', '/.'];
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const MAX_CONTROLLER = 250;

/** A host, a rule's or a TLS entry's: a wildcard subdomain where it holds a `*`, else a DNS subdomain. */
const hostProblem = (host: string): string | undefined => (host.includes('*') ? wildcardSubdomain(host) : dns1123Subdomain(host));

function pathProblems(p: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateHTTPIngressPath';
  const path = typeof p?.path === 'string' ? p.path : '';
  const out: Invalid[] = [];
  const say = (message: string) => out.push({ path: [...at, 'path'], fn, message: `path "${path}": ${message}` });
  if (p?.pathType === 'Prefix' || p?.pathType === 'Exact') {
    if (!path.startsWith('/')) say('must be an absolute path');
    for (const seq of INVALID_SEQUENCES) if (path.includes(seq)) say(`must not contain '${seq}'`);
    for (const suffix of INVALID_SUFFIXES) if (path.endsWith(suffix)) say(`cannot end with '${suffix}'`);
  } else if (p?.pathType === 'ImplementationSpecific' && path !== '' && !path.startsWith('/')) say('must be an absolute path');
  return out;
}

function backendProblems(b: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateIngressBackend';
  if (b.service && b.resource) return [{ path: at, fn, message: 'cannot set both resource and service backends' }];
  if (b.resource) {
    const r = b.resource as Obj;
    const out: Invalid[] = [];
    if (typeof r.apiGroup === 'string' && dns1123Subdomain(r.apiGroup))
      out.push({ path: [...at, 'resource', 'apiGroup'], fn, message: `apiGroup "${r.apiGroup}": ${dns1123Subdomain(r.apiGroup)}` });
    for (const field of ['kind', 'name']) {
      const bad = typeof r[field] === 'string' && r[field] !== '' ? pathSegmentName(r[field]) : `${field} is required`;
      if (bad) out.push({ path: [...at, 'resource', field], fn, message: `${field} "${String(r[field] ?? '')}": ${bad}` });
    }
    return out;
  }
  if (!b.service) return [{ path: at, fn, message: 'resource or service backend is required' }];
  const out: Invalid[] = [];
  const name = b.service.name;
  const badName = typeof name === 'string' && name !== '' ? dns1035Label(name) : 'Required value';
  if (badName) out.push({ path: [...at, 'service', 'name'], fn, message: `service name "${String(name ?? '')}": ${badName}` });
  const port = (b.service.port ?? {}) as Obj;
  const hasName = typeof port.name === 'string' && port.name !== '';
  const hasNumber = port.number !== undefined && port.number !== null && port.number !== 0;
  if (hasName && hasNumber) out.push({ path: at, fn, message: 'cannot set both port name & port number' });
  else if (hasName) {
    const bad = portName(port.name);
    if (bad) out.push({ path: [...at, 'service', 'port', 'name'], fn, message: `port name "${port.name}": ${bad}` });
  } else if (hasNumber) {
    if (!isPortNumber(port.number))
      out.push({ path: [...at, 'service', 'port', 'number'], fn, message: `port ${String(port.number)} must be between 1 and 65535, inclusive` });
  } else out.push({ path: at, fn, message: 'port name or number is required' });
  return out;
}

function ruleProblems(rules: Obj[]): Invalid[] {
  return rules.flatMap((r, i) => {
    const at: PathSegment[] = ['spec', 'rules', i];
    const out: Invalid[] = [];
    if (typeof r?.host === 'string' && r.host !== '') {
      if (isSloppyIP(r.host))
        out.push({ path: [...at, 'host'], fn: 'validateIngressRules', message: `host "${r.host}": must be a DNS name, not an IP address` });
      const bad = hostProblem(r.host);
      if (bad) out.push({ path: [...at, 'host'], fn: 'validateIngressRules', message: `host "${r.host}": ${bad}` });
    }
    if (r?.http) {
      const paths = list(r.http.paths) as Obj[];
      if (paths.length === 0) out.push({ path: [...at, 'http', 'paths'], fn: 'validateHTTPIngressRuleValue', message: 'paths: Required value' });
      paths.forEach((p, j) => {
        const here = [...at, 'http', 'paths', j];
        out.push(...pathProblems(p, here), ...(p?.backend ? backendProblems(p.backend, [...here, 'backend']) : []));
      });
    }
    return out;
  });
}

function tlsProblems(tls: Obj[]): Invalid[] {
  const fn = 'validateIngressTLS';
  return tls.flatMap((t, i) => {
    const at: PathSegment[] = ['spec', 'tls', i];
    const out: Invalid[] = [];
    (list(t?.hosts) as unknown[]).forEach((h, j) => {
      const bad = typeof h === 'string' ? hostProblem(h) : 'must be a string';
      if (bad) out.push({ path: [...at, 'hosts', j], fn, message: `TLS host "${String(h)}": ${bad}` });
    });
    if (typeof t?.secretName === 'string' && t.secretName !== '') {
      const bad = dns1123Subdomain(t.secretName);
      if (bad) out.push({ path: [...at, 'secretName'], fn, message: `secretName "${t.secretName}": ${bad}` });
    }
    return out;
  });
}

/** ValidateIngressCreate: the spec, and the class name the older annotation agrees with. */
export function ingressProblems(o: Obj): Invalid[] {
  const spec = o.spec ?? {};
  const rules = list(spec.rules) as Obj[];
  const out: Invalid[] = [];
  if (rules.length === 0 && !spec.defaultBackend)
    out.push({ path: ['spec'], fn: 'ValidateIngressSpec', message: 'either `defaultBackend` or `rules` must be specified' });
  if (spec.defaultBackend) out.push(...backendProblems(spec.defaultBackend, ['spec', 'defaultBackend']));
  out.push(...ruleProblems(rules), ...tlsProblems(list(spec.tls) as Obj[]));
  if (typeof spec.ingressClassName === 'string') {
    const bad = dns1123Subdomain(spec.ingressClassName);
    if (bad) out.push({ path: ['spec', 'ingressClassName'], fn: 'ValidateIngressSpec', message: `ingressClassName "${spec.ingressClassName}": ${bad}` });
  }
  const annotated = o.metadata?.annotations?.[CLASS_ANNOTATION];
  if (typeof annotated === 'string' && typeof spec.ingressClassName === 'string' && annotated !== spec.ingressClassName)
    out.push({
      path: ['metadata', 'annotations', CLASS_ANNOTATION],
      fn: 'ValidateIngressCreate',
      message: `"${annotated}": must match \`ingressClassName\` when both are specified`,
    });
  return out;
}

/**
 * validateIngressClassParametersReference: the reference's group, kind and name, and its scope (Cluster where none is
 * given, SetDefaults_IngressClass): a Namespace one names a namespace, a Cluster one none.
 */
function parametersProblems(params: Obj): Invalid[] {
  const fn = 'validateIngressClassParametersReference';
  const at: PathSegment[] = ['spec', 'parameters'];
  const out: Invalid[] = [];
  if (typeof params.apiGroup === 'string' && params.apiGroup !== '' && dns1123Subdomain(params.apiGroup))
    out.push({ path: [...at, 'apiGroup'], fn, message: `apiGroup "${params.apiGroup}": ${dns1123Subdomain(params.apiGroup)}` });
  for (const field of ['kind', 'name']) {
    const bad = typeof params[field] === 'string' && params[field] !== '' ? pathSegmentName(params[field]) : undefined;
    if (bad) out.push({ path: [...at, field], fn, message: `${field} "${params[field]}": ${bad}` });
  }
  const scope = params.scope ?? 'Cluster';
  const namespaced = params.namespace !== undefined && params.namespace !== null;
  if (scope !== 'Cluster' && scope !== 'Namespace')
    out.push({ path: [...at, 'scope'], fn, message: `scope: ${notSupported(scope, ['Cluster', 'Namespace'])}` });
  else if (scope === 'Namespace') {
    const bad = namespaced
      ? typeof params.namespace === 'string'
        ? dns1123Label(params.namespace)
        : 'must be a string'
      : "Required value: `parameters.scope` is set to 'Namespace'";
    if (bad) out.push({ path: [...at, 'namespace'], fn, message: `namespace: ${bad}` });
  } else if (namespaced) out.push({ path: [...at, 'namespace'], fn, message: "namespace: Forbidden: `parameters.scope` is set to 'Cluster'" });
  return out;
}

/** validateIngressClassSpec: the controller a domain-prefixed path of at most 250 characters, and its parameters. */
export function ingressClassProblems(o: Obj): Invalid[] {
  // Absent or null, Go decodes the field as "": required (IsDomainPrefixedPath). Another type the decoder refuses.
  const controller = o.spec?.controller ?? '';
  const params = o.spec?.parameters;
  const out: Invalid[] = params && typeof params === 'object' ? parametersProblems(params) : [];
  if (typeof controller !== 'string') return out;
  const bad = controller === '' ? 'Required value' : domainPrefixedPath(controller);
  if (bad) out.push({ path: ['spec', 'controller'], fn: 'validateIngressClassSpec', message: `controller "${controller}": ${bad}` });
  if (controller.length > MAX_CONTROLLER)
    out.push({ path: ['spec', 'controller'], fn: 'validateIngressClassSpec', message: `controller: ${tooLong(MAX_CONTROLLER)}` });
  return out;
}
