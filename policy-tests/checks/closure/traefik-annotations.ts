/**
 * closure-traefik-annotations: the `traefik.ingress.kubernetes.io/` annotations of an Ingress a Traefik of the
 * repository serves, and of the Services it sends to, are ones Traefik decodes. Traefik reads them with paerser's
 * label decoder into its Go structs (model/traefik/annotations.ts): a name no field has, or a value its type does not
 * parse, drops the whole Ingress (or every route to the Service) with a line in the proxy's log, and every request is
 * a 404; a key outside `router.` (`service.` on a Service) is ignored, so a misspelt `router.middlewares` serves the
 * route without its middlewares (the public API without its security headers). Traefik reads these keys on no other
 * kind. Two values are held beyond their type: the entry points a router names (`entryPoint "x" doesn't exist`, and
 * none valid builds no router) and its path matcher (one Traefik does not have skips the ImplementationSpecific paths).
 */
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';
import { dig, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { ingressRoutes } from '../../model/cluster/ingress-routes.ts';
import {
  annotationsOf,
  readTraefikAnnotations,
  TRAEFIK_ANNOTATION_PREFIX,
  traefikAnnotationKeys,
  traefikField,
  traefikList,
  type TraefikTarget,
} from '../../model/traefik/annotations.ts';
import { entryPointsOf, traefikProxiesByClass, traefikServing, type TraefikProxy } from '../../model/traefik/proxies.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

const EFFECT = {
  router: { drops: 'Traefik drops the whole Ingress: every request to its routes is a 404', ignored: 'Traefik ignores it' },
  service: { drops: 'Traefik builds no route to the Service: every request to it is a 404', ignored: 'Traefik ignores it' },
} as const;

/** Each annotation of `r` Traefik does not read as written, said at its key; whether Traefik drops `r` for one. */
function judge(ctx: CheckContext, r: Resource, target: TraefikTarget): boolean {
  const readings = readTraefikAnnotations(annotationsOf(r), target);
  for (const reading of readings) {
    const meant = reading.misnamed ? nearestName(reading.key.slice(TRAEFIK_ANNOTATION_PREFIX.length), traefikAnnotationKeys(target)) : undefined;
    const effect = reading.effect === 'off' ? 'Traefik switches it off' : EFFECT[target][reading.effect];
    ctx.fail(
      { resource: r, path: ['metadata', 'annotations', reading.key] },
      `${r.kind} ${r.name}: annotation ${JSON.stringify(reading.key)}: ${reading.why}${suggesting(meant === undefined ? undefined : TRAEFIK_ANNOTATION_PREFIX + meant)}; ${effect}`,
    );
  }
  return readings.some((reading) => reading.effect === 'drops');
}

const PATH_MATCHERS = ['Path', 'PathPrefix', 'PathRegexp'];

/** The schemes Traefik's proxy sends to a server in: h2c over plain HTTP/2, https over TLS, http; url.Parse lowers it. */
const SERVERS_SCHEMES = ['http', 'https', 'h2c'];

/**
 * The scheme a Service's servers are reached in (`getProtocol`: service.serversscheme, as written, before the port's
 * guess): Traefik builds each server's URL with it, and its proxy's transport answers any other with "unsupported
 * protocol scheme", every request through the Service a 500.
 */
function judgeServersScheme(ctx: CheckContext, service: Resource): void {
  const named = traefikField(annotationsOf(service), 'service', 'serversscheme');
  if (!named || named.value === '' || SERVERS_SCHEMES.includes(named.value.toLowerCase())) return;
  ctx.fail(
    { resource: service, path: ['metadata', 'annotations', named.key] },
    `Service ${service.name}: servers scheme ${JSON.stringify(named.value)} is none Traefik's proxy speaks (${SERVERS_SCHEMES.join(', ')})${suggesting(nearestName(named.value, SERVERS_SCHEMES))}: every request it sends the Service fails with "unsupported protocol scheme"`,
  );
}

/**
 * The path matcher an Ingress's router names, which Traefik uses for its ImplementationSpecific paths (`loadRouter`):
 * one it does not have skips each of them (`invalid router path matcher`).
 */
function judgePathMatcher(ctx: CheckContext, ingress: Resource): void {
  const named = traefikField(annotationsOf(ingress), 'router', 'pathMatcher');
  if (!named || named.value === '' || PATH_MATCHERS.includes(named.value)) return;
  const skipped = ingressRoutes(ingress).filter(
    (route) => (route.pathType === 'ImplementationSpecific' || route.pathType === '') && str(dig(ingress.object, [...route.at, 'path'])) !== '',
  );
  if (skipped.length === 0) return;
  ctx.fail(
    { resource: ingress, path: ['metadata', 'annotations', named.key] },
    `Ingress ${ingress.name}: invalid router path matcher ${JSON.stringify(named.value)}: must be one of ${PATH_MATCHERS.join(', ')}${suggesting(nearestName(named.value, PATH_MATCHERS))}; Traefik skips its ImplementationSpecific path(s) ${skipped.map((r) => r.path).join(', ')}, and every request to them is a 404`,
  );
}

/**
 * The entry points an Ingress's router names, each one its proxy listens on: Traefik serves a router on none other
 * (`entryPoint "x" doesn't exist`), and builds none where it names no entry point it has.
 */
function judgeEntryPoints(ctx: CheckContext, ingress: Resource, proxy: TraefikProxy): void {
  const named = traefikField(annotationsOf(ingress), 'router', 'entryPoints');
  if (!named) return;
  const place = { resource: ingress, path: ['metadata', 'annotations', named.key] };
  const known = entryPointsOf(proxy, ctx.resources);
  if (!known) {
    ctx.notJudged(place, `the entry points of ${proxy.appName} are not known: its chart is not rendered`);
    return;
  }
  const names = traefikList(named.value);
  const missing = names.filter((name) => !known.has(name));
  if (missing.length === 0) return;
  const effect =
    missing.length === names.length
      ? 'Traefik builds no router (no valid entryPoint for this router): every request to its routes is a 404'
      : `Traefik serves its routes on ${names.filter((n) => known.has(n)).join(', ')} alone`;
  ctx.fail(
    place,
    `Ingress ${ingress.name} names entry point(s) ${missing.map((n) => JSON.stringify(n)).join(', ')}${suggesting(missing.length === 1 ? nearestName(missing[0]!, known) : undefined)}, which ${proxy.appName} does not listen on (it has ${[...known].join(', ')}): ${effect}`,
    `name entry points ${proxy.appName} listens on (a port of its chart values, ${proxy.file}), or add the port there`,
  );
}

export const traefikAnnotationsCheck: PolicyCheck = {
  id: 'closure-traefik-annotations',
  description:
    "Every traefik.ingress.kubernetes.io/ annotation is one Traefik v3.7 decodes where it stands: on an Ingress a Traefik of the repository serves, a router.* field (middlewares, entryPoints, priority, tls, ...) with a value of its type; on a Service such an Ingress sends to, a service.* field; on no other kind. A name no field has, or a value that does not parse, drops the Ingress (or every route to the Service) and every request is a 404; a key outside router.* or service.* is ignored, so a misspelt router.middlewares serves the route without them. The entry points a router names are ones its proxy listens on (its rendered workload's flags), its path matcher one Traefik has where it has ImplementationSpecific paths, and a Service's servers scheme one its proxy speaks (http, https, h2c), or no request reaches them (invariants P1).",
  invariants: ['P1'],
  remediation:
    'spell the key as Traefik does (traefik.ingress.kubernetes.io/router.middlewares, router.entrypoints, router.tls, service.serversscheme, ...), with a value of its type, on the Ingress or the Service it configures',
  reads: { kinds: ['*'], charts: ['traefik'], everyKind: 'a Traefik annotation on a kind Traefik does not read it on is said too' },
  exemptible: false,
  run(ctx) {
    const proxies = traefikProxiesByClass(ctx.repo);
    // Each Ingress a Traefik of the repository serves, and the proxy that serves it.
    const served = new Map(
      ctx.resources.flatMap((r) => {
        const proxy = r.kind === 'Ingress' ? traefikServing(proxies, r) : undefined;
        return proxy ? [[r, proxy] as const] : [];
      }),
    );
    const backends = new Set(
      [...served.keys()].flatMap((ing) =>
        ingressRoutes(ing).flatMap((route) => (route.service ? [`${namespaceOrDestination(ctx.repo, ing) ?? ''}/${route.service.name}`] : [])),
      ),
    );
    for (const r of ctx.resources) {
      const keys = Object.keys(annotationsOf(r)).filter((k) => k.startsWith(TRAEFIK_ANNOTATION_PREFIX));
      if (keys.length === 0) continue;
      const proxy = served.get(r);
      if (proxy) {
        if (!judge(ctx, r, 'router')) {
          judgePathMatcher(ctx, r);
          judgeEntryPoints(ctx, r, proxy);
        }
      } else if (r.kind === 'Service' && backends.has(`${namespaceOrDestination(ctx.repo, r) ?? ''}/${r.name}`)) {
        if (!judge(ctx, r, 'service')) judgeServersScheme(ctx, r);
      } else if (r.kind !== 'Ingress' && r.kind !== 'Service')
        for (const key of keys)
          ctx.fail(
            { resource: r, path: ['metadata', 'annotations', key] },
            `${r.kind} ${r.name}: annotation ${JSON.stringify(key)}: Traefik reads its annotations only on an Ingress and the Services it sends to; it ignores it`,
          );
    }
  },
};
