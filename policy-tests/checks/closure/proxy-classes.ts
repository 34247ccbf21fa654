/**
 * closure-ingress-proxy-class: each Traefik the repository runs serves the Ingress class meant for it. Traefik's
 * Kubernetes Ingress provider lists the IngressClasses of its controller (`GetIngressClasses`) and, given
 * `providers.kubernetesIngress.ingressClass`, keeps the one of that name (`filterIngressClassByName`); given none,
 * it keeps them all (v3.7, pkg/provider/kubernetes/ingress/kubernetes.go). The lab runs two: the public proxy, where
 * the router forwards 80 and 443, and the LAN one. A proxy that names no class serves every Traefik class's
 * Ingresses, so the public one serves the LAN-only apps to the internet; one that names a class no IngressClass declares
 * and no Ingress names serves none; two that name one class serve its routes on both addresses.
 */
import { dig } from '../../model/core/dig.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { INGRESS_CLASS_PATH, TRAEFIK_CONTROLLER, traefikProxies } from '../../model/traefik/proxies.ts';

export const proxyClassCheck: PolicyCheck = {
  id: 'closure-ingress-proxy-class',
  description: `Each Traefik the repository runs with its Kubernetes Ingress provider on names the one Ingress class it serves (providers.kubernetesIngress.ingressClass) where the repository declares more than one IngressClass of Traefik's controller (${TRAEFIK_CONTROLLER}), a class an IngressClass declares or an Ingress names, and no two name the same one; otherwise a proxy serves every Traefik class's Ingresses (the public proxy serves the LAN-only apps to the internet), none, or the same routes as another (invariants P1).`,
  invariants: ['P1'],
  remediation:
    'name the class the proxy serves in its values (providers.kubernetesIngress.ingressClass: gateway for the public proxy, private-gateway for the LAN one)',
  reads: { kinds: ['IngressClass', 'Ingress', 'Application'], charts: ['traefik'] },
  exemptible: false,
  run(ctx) {
    const classes = ctx.resources.filter((r) => r.kind === 'IngressClass' && dig(r.object, ['spec', 'controller']) === TRAEFIK_CONTROLLER).map((r) => r.name);
    const declared = new Set(ctx.resources.filter((r) => r.kind === 'IngressClass').map((r) => r.name));
    const namedByIngresses = new Set(ctx.resources.filter((r) => r.kind === 'Ingress').map((r) => dig(r.object, ['spec', 'ingressClassName'])));
    const serving = traefikProxies(ctx.repo).filter((proxy) => proxy.servesIngresses);
    if (serving.length < 2 && classes.length < 2) return;
    for (const proxy of serving) {
      const named = proxy.ingressClass;
      const place = { data: proxy.source, path: INGRESS_CLASS_PATH };
      if (typeof named !== 'string' || named === '') {
        if (classes.length > 1)
          ctx.fail(
            place,
            `${proxy.appName} names no Ingress class (providers.kubernetesIngress.ingressClass): Traefik serves the Ingresses of every class of its controller (${classes.join(', ')}), and the LAN-only apps are served wherever this proxy is reached`,
          );
        continue;
      }
      // A class no IngressClass and no Ingress names is the proxy's own slip; one the Ingresses name that has no
      // IngressClass, or one of another controller, is closure-ingress-class's, closure-ingress-rules' or the API server's.
      if (!declared.has(named) && !namedByIngresses.has(named))
        ctx.fail(
          place,
          `${proxy.appName} serves Ingress class ${JSON.stringify(named)}, which no IngressClass declares and no Ingress names${didYouMean(named, classes)}: Traefik lists no class of that name, and this proxy serves no Ingress`,
        );
      // Said once, on the later of the two.
      const other = serving.slice(0, serving.indexOf(proxy)).find((v) => v.ingressClass === named);
      if (other) ctx.fail(place, `${proxy.appName} and ${other.appName} both serve Ingress class ${named}: its routes are served on both proxies' addresses`);
    }
  },
};
