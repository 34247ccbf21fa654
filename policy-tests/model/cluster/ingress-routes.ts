/**
 * An Ingress's routes as Kubernetes defines them (networking.k8s.io/v1): each rule's host, each of its HTTP paths
 * with its path type, and the Service and port it sends to. Read once here for every check that follows a route.
 */
import { dig, list, objects } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Path } from '../core/positions.ts';

/**
 * The two ingress proxies' classes (apps/platform/ingress-public/ and ingress-private/, each declaring its
 * IngressClass): the public one, where the router forwards 80 and 443, and the one that serves the LAN only.
 */
export const PUBLIC_GATEWAY = 'gateway';
export const LAN_GATEWAY = 'private-gateway';

/** A Service backend's port: by name or by number, as the Ingress gives it. */
export interface BackendPort {
  name?: string;
  number?: number;
}

export interface IngressRoute {
  /** The rule's host; undefined for a rule that serves every host. */
  host?: string;
  /** Where the rule's host stands in the Ingress. */
  hostAt: Path;
  /** The request path; `/` where an ImplementationSpecific path gives none. */
  path: string;
  pathType: string;
  /** The Service it sends to; undefined for a resource backend. */
  service?: { name: string; port: BackendPort };
  /** Where the path entry stands in the Ingress. */
  at: Path;
}

/** Every HTTP path of every rule of `ingress`, in order. */
export function ingressRoutes(ingress: Resource): IngressRoute[] {
  return list(dig(ingress.object, ['spec', 'rules'])).flatMap((rule, i) => {
    const host = dig(rule, ['host']);
    return list(dig(rule, ['http', 'paths'])).map((p, j): IngressRoute => {
      const name = dig(p, ['backend', 'service', 'name']);
      const port = (dig(p, ['backend', 'service', 'port']) ?? {}) as BackendPort;
      const path = dig(p, ['path']);
      const pathType = dig(p, ['pathType']);
      return {
        host: typeof host === 'string' ? host : undefined,
        hostAt: ['spec', 'rules', i, 'host'],
        path: typeof path === 'string' ? path : '/',
        pathType: typeof pathType === 'string' ? pathType : 'ImplementationSpecific',
        service: typeof name === 'string' ? { name, port } : undefined,
        at: ['spec', 'rules', i, 'http', 'paths', j],
      };
    });
  });
}

/** The hosts `ingress`'s rules name, each with where it stands (a rule without `http` still names its host). */
export function ingressHosts(ingress: Resource): { host: string; at: Path }[] {
  return list(dig(ingress.object, ['spec', 'rules'])).flatMap((rule, i) => {
    const host = dig(rule, ['host']);
    return typeof host === 'string' ? [{ host, at: ['spec', 'rules', i, 'host'] }] : [];
  });
}

/** The hosts the Ingresses among `resources` route to a backend, lower-cased (a rule without `http` routes nothing). */
export const servedHosts = (resources: readonly Resource[]): Set<string> =>
  new Set(resources.filter((r) => r.kind === 'Ingress').flatMap((r) => ingressRoutes(r).flatMap((route) => (route.host ? [route.host.toLowerCase()] : []))));

/** A domain's last two labels: the zone it is registered under, as far as this reading goes (`example.net`). */
export const zoneOf = (domain: string): string => domain.split('.').slice(-2).join('.');

/**
 * Whether an Ingress path of `pathType` matches `requestPath`: Exact is equality; Prefix matches element by element
 * (`/api` matches `/api` and `/api/health`, not `/apis`); ImplementationSpecific is read as a prefix, as Traefik reads it.
 */
export function ingressPathMatches(path: string, pathType: string | undefined, requestPath: string): boolean {
  if (pathType === 'Exact') return requestPath === path;
  const prefix = path.replace(/\/$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}

/** The port of `service` a backend names, by name or by number; undefined when the Service has none such. */
export function servicePort(service: Resource, port: BackendPort): { name?: string; port?: number; targetPort?: number | string } | undefined {
  const ports = objects(dig(service.object, ['spec', 'ports'])) as { name?: string; port?: number; targetPort?: number | string }[];
  return ports.find((p) => (port.name !== undefined && p.name === port.name) || (port.number !== undefined && p.port === port.number));
}
