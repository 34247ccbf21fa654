/**
 * Where a web app serves its pages (`urlBase`, model/programs/url-base.ts), against the Ingress routes to it and its
 * probes. A page the app answers links its scripts, styles and API calls under its URL base: a route that forwards
 * only a path beside or below it (Sonarr routed at `/sonarr` with no URL base set) sends the page, and nothing it
 * loads, and the UI is blank. An app that answers 404 outside its base (Cleanuparr with BASE_PATH) fails every probe
 * that asks a path outside it. And an image whose facts list the only paths it serves (`servedPaths`) answers a route
 * that forwards none of them with 404 alone. The API server and Traefik take all of it. A route whose middleware
 * rewrites the path, a base set from a value the gate does not read, and a route below the root to an app whose facts
 * say neither, are said not judged.
 */
import { ingressPathMatches, servicePort, type IngressRoute } from '../../model/cluster/ingress-routes.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { ingressKeepsPath } from '../../model/traefik/path-rewrites.ts';
import { isUnderBase, urlBaseOf } from '../../model/programs/url-base.ts';
import { secretShown } from '../../model/cluster/environment.ts';
import { routesToServices, servicesOfPod } from './listens.ts';
import { containerPort } from '../../model/core/workloads.ts';
import { httpProbes, textOf, valuePath, type Held } from './variables.ts';

type RouteTo = { ingress: Resource; route: IngressRoute; host: string };

/** The Ingress routes whose Service sends to a port of this container, each with its host (`every host` for none). */
function routesToContainer(held: Held): RouteTo[] {
  return routesToServices(held, servicesOfPod(held)).flatMap(({ ingress, route, service }) => {
    const entry = servicePort(service, route.service!.port);
    return entry && containerPort(held.c, entry.targetPort ?? entry.port) !== undefined ? [{ ingress, route, host: route.host ?? 'every host' }] : [];
  });
}

/** Whether a route forwards every path under `base`, as Traefik matches an Ingress path. */
const forwardsAll = ({ route }: RouteTo, base: string): boolean =>
  ingressPathMatches(route.path, route.pathType, base) && ingressPathMatches(route.path, route.pathType, `${base.replace(/\/$/, '')}/page`);

const shownRoute = ({ route, host }: RouteTo): string => `${host}${route.path} (${route.pathType})`;

/** The app's URL base and how it is set; undefined (said not judged) where the variable's value is not read. */
function baseOf(held: Held): { base: string; said: string; env?: string } | undefined {
  const { ctx, resource, c, need, env } = held;
  const fact = need.urlBase!;
  if (typeof fact === 'string') return { base: urlBaseOf(fact, undefined), said: 'the only one it has' };
  const setting = held.variable(fact.env);
  const text = textOf(setting);
  if (setting === undefined) return { base: '/', said: `${fact.env} unset`, env: fact.env };
  if (text === undefined) {
    ctx.notJudged(
      { resource, path: valuePath(env.get(fact.env) ?? c.at) },
      `container ${c.name} sets ${fact.env} from a source whose value is not read: where ${held.image} serves its pages is not judged`,
    );
    return undefined;
  }
  return { base: urlBaseOf(fact, text), said: `${fact.env} ${secretShown(setting, JSON.stringify(text))}`, env: fact.env };
}

/** The routes to an app with a URL base: on each host, one forwards all of it; and each probe asks inside it where the app answers 404 outside. */
function judgeBase(held: Held, routes: readonly RouteTo[]): void {
  const { ctx, resource, c, image, need } = held;
  // Nothing to hold the base to: no route to the container, and no probe the base could turn away.
  const probed = typeof need.urlBase === 'object' && need.urlBase.outside === 'notFound' && [...httpProbes(c)].length > 0;
  if (routes.length === 0 && !probed) return;
  const found = baseOf(held);
  if (!found) return;
  const { base, said, env } = found;
  for (const [host, onHost] of Map.groupBy(routes, (r) => r.host)) {
    const kept = onHost.filter((r) => ingressKeepsPath(ctx.repo, r.ingress, ctx.resources));
    if (kept.some((r) => forwardsAll(r, base))) continue;
    const rewritten = onHost.find((r) => !kept.includes(r));
    if (rewritten) {
      ctx.notJudged(
        { resource: rewritten.ingress, path: [...rewritten.route.at, 'path'] },
        `Ingress ${rewritten.ingress.name} routes ${shownRoute(rewritten)} to container ${c.name} through a middleware that may rewrite the path: whether ${image} serves its pages there (under ${base}) is not judged`,
      );
      continue;
    }
    const first = kept[0]!;
    ctx.fail(
      { resource: first.ingress, path: [...first.route.at, 'path'] },
      `Ingress ${first.ingress.name} routes ${kept.map(shownRoute).join(', ')} to container ${c.name} of ${resource.kind} ${resource.name}, and ${image} serves its pages under ${base} (${said}): a page it answers loads its scripts, styles and API calls from under ${base}, which no route of ${host} forwards to it, so the UI is blank (its urlBase in ${need.file})`,
      env
        ? `route ${base} (Prefix) of ${host} to it, or set ${env} to the path the route forwards`
        : `route / (Prefix) of ${host} to it: ${image} serves under no other path`,
    );
  }
  if (typeof need.urlBase !== 'object' || need.urlBase.outside !== 'notFound' || base === '/') return;
  for (const { probe, asked, at } of httpProbes(c))
    if (!isUnderBase(asked, base))
      ctx.fail(
        { resource, path: at },
        `container ${c.name}'s ${probe} asks ${image} for ${asked}, outside its URL base ${base} (${said}), where it answers every request with 404 (its urlBase in ${need.file}): the probe always fails${probe === 'readinessProbe' ? ', and the pod never joins its Service' : ', and the kubelet kills the container over and over'}`,
        `probe ${base}${asked === '/' ? '' : asked}`,
      );
}

export function urlBaseNeed(held: Held): void {
  const { ctx, c, image, need } = held;
  const routes = routesToContainer(held);
  if (need.urlBase) return judgeBase(held, routes);
  for (const r of routes) {
    const at = { resource: r.ingress, path: [...r.route.at, 'path'] };
    const kept = ingressKeepsPath(ctx.repo, r.ingress, ctx.resources);
    if (need.servedPaths) {
      if (!kept)
        ctx.notJudged(
          at,
          `Ingress ${r.ingress.name} routes ${shownRoute(r)} to container ${c.name} through a middleware that may rewrite the path: whether ${image} serves what it forwards is not judged`,
        );
      else if (!need.servedPaths.some((p) => ingressPathMatches(r.route.path, r.route.pathType, p)))
        ctx.fail(
          at,
          `Ingress ${r.ingress.name} routes ${shownRoute(r)} to container ${c.name}, and ${image} serves none of the paths it forwards (its servedPaths in ${need.file}: ${need.servedPaths.join(', ')}): every request the route forwards is a 404`,
          `route a path that holds ${need.servedPaths.join(' or ')}`,
        );
    } else if (!forwardsAll(r, '/'))
      ctx.notJudged(
        at,
        `Ingress ${r.ingress.name} routes ${shownRoute(r)} to container ${c.name}, and the facts of ${image} say not where it serves its pages: whether it serves them there is not judged`,
      );
  }
}
