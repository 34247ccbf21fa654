/**
 * closure-middleware: the Traefik middlewares an Ingress names in `traefik.ingress.kubernetes.io/router.middlewares`.
 * Traefik resolves `<namespace>-<name>@kubernetescrd` through its Kubernetes CRD provider, among the Middleware
 * objects it reads; when the provider is off (`providers.kubernetesCRD.enabled: false` in the proxy's chart values)
 * or the Middleware does not exist, Traefik logs `middleware "..." does not exist` and does not build the router:
 * every request to the route is a 404 (traefik/traefik#11510, #9703).
 */
import { traefikProxiesByClass, traefikServing } from '../../model/traefik/proxies.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { dig, obj } from '../../model/core/dig.ts';
import { traefikField, traefikList } from '../../model/traefik/annotations.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

export const middlewareClosureCheck: PolicyCheck = {
  id: 'closure-middleware',
  description:
    "Every Traefik middleware an Ingress names (router.middlewares, <namespace>-<name>@kubernetescrd) is a Middleware of the repository, read by the proxy that serves the Ingress's class (its Kubernetes CRD provider on); otherwise Traefik builds no router and the route answers 404 (invariants P1).",
  invariants: ['P1'],
  remediation:
    'name a Middleware the repository declares as <namespace>-<name>@kubernetescrd, and keep providers.kubernetesCRD.enabled on the proxy that serves the class',
  reads: { kinds: ['Ingress', 'Middleware'], charts: ['traefik'] },
  exemptible: false,
  run(ctx) {
    const middlewares = new Set(ctx.resources.filter((r) => r.kind === 'Middleware').map((m) => `${namespaceOrDestination(ctx.repo, m) ?? ''}-${m.name}`));
    const proxies = traefikProxiesByClass(ctx.repo);
    for (const ing of ctx.resources.filter((r) => r.kind === 'Ingress')) {
      // The key as Traefik's decoder finds it, its field's name case aside (router.Middlewares is read too).
      const named = traefikField(obj(dig(ing.object, ['metadata', 'annotations'])), 'router', 'middlewares');
      if (!named) continue;
      const at = ['metadata', 'annotations', named.key];
      const cls = dig(ing.object, ['spec', 'ingressClassName']) as string | undefined;
      const proxy = traefikServing(proxies, ing);
      // No Traefik serves the class: the route has no proxy at all, which closure-ingress-class reports.
      if (!proxy) continue;
      for (const ref of traefikList(named.value).filter(Boolean)) {
        const [name, provider] = ref.split('@') as [string, string | undefined];
        if (provider !== 'kubernetescrd') {
          ctx.notJudged({ resource: ing, path: at }, `middleware ${ref} comes from provider ${provider ?? "the Ingress's own"}, which the gate does not read`);
          continue;
        }
        if (!middlewares.has(name))
          ctx.fail(
            { resource: ing, path: at },
            `Ingress ${ing.name} names middleware ${ref}, but no Middleware of the repository is ${name} (<namespace>-<name>): Traefik builds no router, every request is a 404`,
          );
        if (!proxy.crd) {
          const { line, col } = proxy.source.positions.at(['providers', 'kubernetesCRD', 'enabled'], 'key');
          ctx.fail(
            { file: proxy.file, line, col },
            `Ingress ${ing.name} (class ${cls}) names middleware ${ref}, but the proxy serving ${cls} does not read Traefik's CRDs (providers.kubernetesCRD.enabled: false): Traefik builds no router, every request is a 404`,
          );
        }
      }
    }
  },
};
