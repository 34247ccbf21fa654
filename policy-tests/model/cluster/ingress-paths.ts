/** How an Ingress path matches a request path, as Kubernetes defines it (networking.k8s.io/v1 HTTPIngressPath). */

/**
 * Whether an Ingress path of `pathType` matches `requestPath`: Exact is equality; Prefix matches element by element
 * (`/api` matches `/api` and `/api/health`, not `/apis`); ImplementationSpecific is read as a prefix, as Traefik reads it.
 */
export function ingressPathMatches(path: string, pathType: string | undefined, requestPath: string): boolean {
  if (pathType === 'Exact') return requestPath === path;
  const prefix = path.replace(/\/$/, '');
  return prefix === '' || requestPath === prefix || requestPath.startsWith(`${prefix}/`);
}
