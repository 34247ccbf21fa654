/**
 * The request manager's SSL connections (M15: the 4K server on SSL port 443). Jellyseerr is Node: it dials with
 * certificate verification on and only the public CAs trusted (an internal CA needs NODE_EXTRA_CA_CERTS, a
 * self-signed certificate is refused: "fetch failed"). An Ingress without TLS for the host is answered by the
 * gateway's own self-signed certificate, so a server entry with SSL works only where a certificate from a public
 * CA covers its host: a cert-manager Certificate issued over ACME.
 */
import type { Path } from '../../model/core/positions.ts';
import { objects } from '../../model/core/dig.ts';
import { SETTINGS_READS } from '../../model/apps/media-settings.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { untrustedHost } from '../../model/certificates/tls.ts';
import { settingsOf } from './settings-checks.ts';

type Server = { name?: string; hostname?: string; port?: number; useSsl?: boolean };

export const mediaTlsChecks: PolicyCheck[] = [
  {
    id: 'media-request-tls',
    description:
      "Every Jellyseerr server it reaches over SSL (the 4K server, on 443) is served by an Ingress whose TLS is a cert-manager Certificate for the host from a public CA's production ACME directory: Jellyseerr refuses the gateway's self-signed certificate (M15).",
    invariants: ['M15'],
    remediation: "give the host's Ingress a tls entry whose secretName a Certificate (dnsNames with the host, issuerRef ClusterIssuer letsencrypt) writes",
    reads: { kinds: ['Ingress', 'Certificate', 'ClusterIssuer', 'Issuer'], files: SETTINGS_READS },
    exemptible: false,
    run(ctx) {
      const found = settingsOf(ctx, 'jellyseerr', 'request manager');
      if (!found) return;
      const s = found.s as { radarr?: Server[]; sonarr?: Server[] };
      for (const kind of ['radarr', 'sonarr'] as const)
        (objects(s[kind]) as Server[]).forEach((server, i) => {
          if (server.useSsl !== true || !server.hostname) return;
          const why = untrustedHost(ctx.resources, server.hostname);
          const at: Path = [kind, i, 'hostname'];
          if (why)
            ctx.fail({ data: found.file, path: at }, `${server.name ?? kind} is reached at https://${server.hostname}:${server.port ?? 443}, but ${why}`);
        });
    },
  },
];
