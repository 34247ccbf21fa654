/**
 * closure-middleware: the Traefik middlewares an Ingress names in `traefik.ingress.kubernetes.io/router.middlewares`.
 * Traefik resolves `<namespace>-<name>@kubernetescrd` through its Kubernetes CRD provider, among the Middleware
 * objects it reads; when the provider is off (`providers.kubernetesCRD.enabled: false` in the proxy's chart values)
 * or the Middleware does not exist, Traefik logs `middleware "..." does not exist` and does not build the router:
 * every request to the route is a 404 (traefik/traefik#11510, #9703). A Service an Ingress sends to names its own
 * (`service.middlewares`), which Traefik builds into the service the same way: one that does not exist fails it.
 * A Middleware is one type (its spec's one key: headers, stripPrefix, ...): with none, or two, Traefik's builder
 * (pkg/server/middleware/middlewares.go buildConstructor) refuses it ("invalid middleware type", "multi-types
 * middleware not supported"), and every router or service that names it fails the same way. A chain Middleware
 * names others (`spec.chain.middlewares`, each `name` in its `namespace`, the chain's own where none is given): the
 * provider drops a chain that names another namespace unless `allowCrossNamespace` is on (createChainMiddleware,
 * resolveReference), and the builder fails the chain where one it names does not exist, or names the chain again.
 */
import { traefikProxiesByClass, traefikServing, type TraefikProxy } from '../../model/traefik/proxies.ts';
import { ingressRoutes } from '../../model/cluster/ingress-routes.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { middlewareName, namedMiddlewares } from '../../model/traefik/annotations.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';

interface Named {
  owner: Resource;
  target: 'router' | 'service';
  effect: string;
  proxy: TraefikProxy;
  cls: string | undefined;
}

/** Why Traefik cannot build a Middleware: no type in its spec, or more than one; undefined where it has one. */
function unbuildable(middleware: Resource): string | undefined {
  const spec = dig(middleware.object, ['spec']);
  const types = Object.entries(spec !== null && typeof spec === 'object' ? spec : {}).flatMap(([k, v]) => (v === null || v === undefined ? [] : [k]));
  if (types.length === 1) return undefined;
  return types.length === 0
    ? 'sets no middleware type (Traefik: "invalid middleware type or middleware does not exist")'
    : `sets ${types.length} middleware types, ${types.join(' and ')} (Traefik: "multi-types middleware not supported", one type per Middleware)`;
}

/** A Middleware, and the namespace it lives in (a chain's own names resolve there). */
interface Declared {
  resource: Resource;
  namespace: string;
}

/** The middlewares a chain names, each followed as Traefik's provider resolves and its builder builds them; `path` the chains already entered. */
function judgeChain(ctx: CheckContext, named: Named & { middlewares: ReadonlyMap<string, Declared> }, chain: Declared, path: readonly Resource[] = []): void {
  const { owner, effect, proxy, middlewares } = named;
  const refs = dig(chain.resource.object, ['spec', 'chain', 'middlewares']);
  (Array.isArray(refs) ? refs : []).forEach((ref: unknown, i: number) => {
    const at = { resource: chain.resource, path: ['spec', 'chain', 'middlewares', i] };
    const name = scalarText(dig(ref, ['name']) ?? '');
    const namespace = scalarText(dig(ref, ['namespace']) ?? '') || chain.namespace;
    const by = `${owner.kind} ${owner.name} names chain Middleware ${chain.resource.name}`;
    if (name.includes('@')) return ctx.notJudged(at, `chain Middleware ${chain.resource.name} names ${name} of another provider, which the gate does not read`);
    if (namespace !== chain.namespace && !proxy.crossNamespace)
      return ctx.fail(
        at,
        `${by}, which names ${name} of namespace ${namespace}, but the proxy's CRD provider does not allow another namespace (providers.kubernetesCRD.allowCrossNamespace off) and drops the chain: ${effect}`,
      );
    const next = middlewares.get(middlewareName(namespace, name));
    if (!next) return ctx.fail(at, `${by}, which names ${name}, but no Middleware of the repository is ${name} in namespace ${namespace}: ${effect}`);
    if (next.resource === chain.resource || path.includes(next.resource))
      return ctx.fail(at, `${by}, which names ${next.resource.name} inside itself (Traefik: "recursion detected"): ${effect}`);
    const why = unbuildable(next.resource);
    if (why) return ctx.fail({ resource: next.resource, path: ['spec'] }, `Middleware ${next.resource.name} ${why}, and ${by}, which names it: ${effect}`);
    if (dig(next.resource.object, ['spec', 'chain']) !== undefined) judgeChain(ctx, named, next, [...path, chain.resource]);
  });
}

/** The middlewares `owner` names for its router or service, each a Middleware its proxy reads. */
function judgeNamed(ctx: CheckContext, by: Named, middlewares: ReadonlyMap<string, Declared>): void {
  const { owner, target, effect, proxy, cls } = by;
  // The key as Traefik's decoder finds it, its field's name case aside (router.Middlewares is read too).
  const named = namedMiddlewares(owner, target);
  if (!named) return;
  const at = ['metadata', 'annotations', named.key];
  for (const { ref, name, provider } of named.refs) {
    if (provider !== 'kubernetescrd') {
      ctx.notJudged(
        { resource: owner, path: at },
        `middleware ${ref} comes from provider ${provider ?? `the ${owner.kind}'s own`}, which the gate does not read`,
      );
      continue;
    }
    const declared = middlewares.get(name);
    const middleware = declared?.resource;
    if (!middleware)
      ctx.fail(
        { resource: owner, path: at },
        `${owner.kind} ${owner.name} names middleware ${ref}, but no Middleware of the repository is ${name} (<namespace>-<name>): ${effect}`,
      );
    const why = middleware && unbuildable(middleware);
    if (why) ctx.fail({ resource: middleware, path: ['spec'] }, `Middleware ${middleware.name} ${why}, and ${owner.kind} ${owner.name} names it: ${effect}`);
    else if (declared && dig(declared.resource.object, ['spec', 'chain']) !== undefined) judgeChain(ctx, { ...by, middlewares }, declared);
    if (!proxy.crd) {
      const { line, col } = proxy.source.positions.at(['providers', 'kubernetesCRD', 'enabled'], 'key');
      ctx.fail(
        { file: proxy.file, line, col },
        `${owner.kind} ${owner.name} (class ${cls}) names middleware ${ref}, but the proxy serving ${cls} does not read Traefik's CRDs (providers.kubernetesCRD.enabled: false): ${effect}`,
      );
    }
  }
}

export const middlewareClosureCheck: PolicyCheck = {
  id: 'closure-middleware',
  description:
    "Every Traefik middleware an Ingress names (router.middlewares, <namespace>-<name>@kubernetescrd), or a Service it sends to (service.middlewares), is a Middleware of the repository of one middleware type (its spec's one key), each a chain names too (in its own namespace unless the proxy allows another, and never itself), read by the proxy that serves the Ingress's class (its Kubernetes CRD provider on); otherwise Traefik builds no router and the route answers 404 (invariants P1).",
  invariants: ['P1'],
  remediation:
    'name a Middleware the repository declares as <namespace>-<name>@kubernetescrd, and keep providers.kubernetesCRD.enabled on the proxy that serves the class',
  reads: { kinds: ['Ingress', 'Middleware', 'Service'], charts: ['traefik'] },
  exemptible: false,
  run(ctx) {
    const middlewares = new Map(
      ctx.resources
        .filter((r) => r.kind === 'Middleware')
        .map((resource) => {
          const namespace = namespaceOrDestination(ctx.repo, resource) ?? '';
          return [middlewareName(namespace, resource.name), { resource, namespace }];
        }),
    );
    const proxies = traefikProxiesByClass(ctx.repo);
    const services = new Map(ctx.resources.filter((r) => r.kind === 'Service').map((s) => [`${namespaceOrDestination(ctx.repo, s) ?? ''}/${s.name}`, s]));
    const seen = new Set<Resource>();
    for (const ing of ctx.resources.filter((r) => r.kind === 'Ingress')) {
      const proxy = traefikServing(proxies, ing);
      // No Traefik serves the class: the route has no proxy at all, which closure-ingress-class reports.
      if (!proxy) continue;
      const judge = (owner: Resource, target: 'router' | 'service', effect: string) =>
        judgeNamed(ctx, { owner, target, effect, proxy, cls: dig(ing.object, ['spec', 'ingressClassName']) as string | undefined }, middlewares);
      judge(ing, 'router', 'Traefik builds no router, every request is a 404');
      // The Services it sends to: their own middlewares (service.middlewares), built with the service.
      const namespace = namespaceOrDestination(ctx.repo, ing) ?? '';
      for (const route of ingressRoutes(ing)) {
        const svc = route.service && services.get(`${namespace}/${route.service.name}`);
        if (!svc || seen.has(svc)) continue;
        seen.add(svc);
        judge(svc, 'service', 'Traefik builds no service for it, and every request routed to it is a 404');
      }
    }
  },
};
