/**
 * public-ingress-tls: every host the public proxy serves is served with a certificate clients trust. The proxy
 * answers a host its Ingress gives no TLS for with its own self-signed certificate (Traefik's default), which
 * browsers, the public-sites probe and the external watchdog refuse: the site is down for them, however green.
 */
import { dig } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { ingressTlsProblem } from '../../model/certificates/tls.ts';
import { ingressHosts, PUBLIC_GATEWAY } from '../../model/cluster/ingress-routes.ts';

export const publicTlsCheck: PolicyCheck = {
  id: 'public-ingress-tls',
  description: `Every host a public Ingress (class ${PUBLIC_GATEWAY}) serves has TLS from a cert-manager Certificate for it, from a public CA's production ACME directory; otherwise the proxy answers with its own self-signed certificate, which browsers and the probes refuse (invariants P1).`,
  invariants: ['P1'],
  remediation: 'give the Ingress a tls entry for the host whose secretName a Certificate (dnsNames with the host, issuerRef ClusterIssuer letsencrypt) writes',
  reads: { kinds: ['Ingress', 'Certificate', 'ClusterIssuer', 'Issuer'] },
  exemptible: false,
  run(ctx) {
    for (const ing of ctx.resources.filter((r) => r.kind === 'Ingress' && dig(r.object, ['spec', 'ingressClassName']) === PUBLIC_GATEWAY))
      for (const { host, at } of ingressHosts(ing)) {
        const why = ingressTlsProblem(ctx.resources, ing, host);
        if (why) ctx.fail({ resource: ing, path: at }, `${host} is public, but ${why}`);
      }
  },
};
