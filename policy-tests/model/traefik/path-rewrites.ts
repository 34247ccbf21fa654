/**
 * Whether Traefik hands an Ingress's backends the request's path as it came: no middleware the Ingress names for its
 * router rewrites it. Traefik's middlewares that hand the backend another path are stripPrefix, stripPrefixRegex,
 * replacePath, replacePathRegex and addPrefix, and a chain may hold one; a middleware of another provider, or one the
 * repository does not declare, may be any of them.
 */
import { dig, obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { middlewareName, namedMiddlewares } from './annotations.ts';

const PATH_MIDDLEWARES = ['stripPrefix', 'stripPrefixRegex', 'replacePath', 'replacePathRegex', 'addPrefix', 'chain'];

/** Whether the request reaches the Ingress's backends with its path as sent: no middleware it names rewrites it, or may. */
export function ingressKeepsPath(repo: Repo, ingress: Resource, resources: readonly Resource[]): boolean {
  return (namedMiddlewares(ingress, 'router')?.refs ?? []).every(({ name, provider }) => {
    const middleware = resources.find((r) => r.kind === 'Middleware' && middlewareName(namespaceOrDestination(repo, r) ?? '', r.name) === name);
    return provider === 'kubernetescrd' && middleware !== undefined && !PATH_MIDDLEWARES.some((key) => key in obj(dig(middleware.object, ['spec'])));
  });
}
