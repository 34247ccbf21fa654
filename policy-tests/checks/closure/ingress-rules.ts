/**
 * closure-ingress-rules: every rule of an Ingress the lab's proxies serve routes requests, as Traefik reads an Ingress
 * (v3.7, pkg/provider/kubernetes/ingress/kubernetes.go, loadConfigurationFromIngresses): a rule without `http` paths
 * is skipped; `spec.defaultBackend` is taken only from an Ingress with no rules at all; a resource backend is not
 * supported. The API server admits all three (Kubernetes reads a default backend as the fallback of the rules), and
 * the host answers Traefik's 404: the app is unreachable behind a green gate. And Traefik serves an Ingress only through
 * an IngressClass whose controller is its own, `traefik.io/ingress-controller` (client.go, GetIngressClasses, a
 * constant): a proxy class with any other controller is one Traefik never lists, and every Ingress of it goes unserved.
 */
import { TRAEFIK_CONTROLLER } from '../../model/traefik/proxies.ts';
import { dig, isMap, list } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { LAN_GATEWAY, PUBLIC_GATEWAY } from '../../model/cluster/ingress-routes.ts';
import { slippedDomainFindings } from './ingress-domains.ts';

const TRAEFIK_CLASSES = new Set([PUBLIC_GATEWAY, LAN_GATEWAY]);

export const ingressRulesCheck: PolicyCheck = {
  id: 'closure-ingress-rules',
  description: `Every rule of an Ingress the proxies serve (class ${PUBLIC_GATEWAY} or ${LAN_GATEWAY}) routes requests as Traefik 3.7 reads it: each rule has http paths (a rule without is skipped), a default backend only on an Ingress without rules (Traefik reads it nowhere else), and Service backends only (a resource backend is not supported); and the proxies' IngressClasses name Traefik's controller, ${TRAEFIK_CONTROLLER} (Traefik lists no other); otherwise its host answers 404; and no host is the one under a domain one slip from the domain of the other Ingresses' hosts, in its zone (radarr.lan.exmaple.net beside *.lan.example.net), which no client looks the app up under (invariants P1).`,
  invariants: ['P1'],
  remediation: `give each rule its http paths to a Service backend; route a host through a rule, not spec.defaultBackend, on an Ingress that has rules; give the proxies' IngressClasses controller: ${TRAEFIK_CONTROLLER}; name each host under the lab's domain`,
  reads: { kinds: ['Ingress', 'IngressClass'] },
  exemptible: false,
  run(ctx) {
    for (const cls of ctx.resources.filter((r) => r.kind === 'IngressClass' && TRAEFIK_CLASSES.has(r.name))) {
      const controller = dig(cls.object, ['spec', 'controller']);
      // An empty or absent controller the API server refuses (api-validation's finding).
      if (typeof controller === 'string' && controller !== '' && controller !== TRAEFIK_CONTROLLER)
        ctx.fail(
          { resource: cls, path: ['spec', 'controller'] },
          `IngressClass ${cls.name} names controller ${JSON.stringify(scalarText(controller))}, and Traefik lists only the classes whose controller is ${TRAEFIK_CONTROLLER}: no proxy serves an Ingress of class ${cls.name}`,
        );
    }
    const served = ctx.resources.filter((r) => r.kind === 'Ingress' && TRAEFIK_CLASSES.has(String(dig(r.object, ['spec', 'ingressClassName']))));
    slippedDomainFindings(ctx, served);
    for (const ing of served) {
      const rules = list(dig(ing.object, ['spec', 'rules']));
      rules.forEach((rule, i) => {
        const host = isMap(rule) && typeof rule.host === 'string' ? rule.host : 'every host';
        if (!isMap(rule) || rule.http === undefined || rule.http === null)
          ctx.fail({ resource: ing, path: ['spec', 'rules', i] }, `the rule for ${host} has no http paths: Traefik skips it, and ${host} is not served`);
        else
          list(dig(rule, ['http', 'paths'])).forEach((p, j) => {
            if (dig(p, ['backend', 'resource']) !== undefined)
              ctx.fail(
                { resource: ing, path: ['spec', 'rules', i, 'http', 'paths', j, 'backend', 'resource'] },
                `the path ${scalarText(dig(p, ['path']) ?? '/')} of ${host} sends to a resource backend, which Traefik does not support: it is not served`,
              );
          });
      });
      const fallback = dig(ing.object, ['spec', 'defaultBackend']);
      if (fallback !== undefined && fallback !== null && rules.length > 0)
        ctx.fail(
          { resource: ing, path: ['spec', 'defaultBackend'] },
          `Traefik reads spec.defaultBackend only from an Ingress without rules: with ${rules.length} rule(s) here, nothing routes to it`,
        );
      else if (isMap(fallback) && fallback.resource !== undefined)
        ctx.fail(
          { resource: ing, path: ['spec', 'defaultBackend', 'resource'] },
          'the default backend is a resource backend, which Traefik does not support: nothing is served',
        );
    }
  },
};
