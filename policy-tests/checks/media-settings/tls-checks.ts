/**
 * The request manager's SSL connections (M15: the 4K server on SSL port 443). Jellyseerr is Node: it dials with
 * certificate verification on and only the public CAs trusted (an internal CA needs NODE_EXTRA_CA_CERTS, a
 * self-signed certificate is refused: "fetch failed"). An Ingress without TLS for the host is answered by the
 * gateway's own self-signed certificate, so a server entry with SSL works only where a certificate from a public
 * CA covers its host: a cert-manager Certificate issued over ACME.
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { Path } from '../../model/core/positions.ts';
import { SETTINGS_READS } from '../../model/apps/media-settings.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { settingsOf } from './settings-checks.ts';

type Server = { name?: string; hostname?: string; port?: number; useSsl?: boolean };

/**
 * The production directories of the public ACME CAs, whose roots Node ships: Let's Encrypt, ZeroSSL, Google Trust
 * Services, Buypass. A staging directory (Let's Encrypt's acme-staging-v02) or a private ACME server (step-ca)
 * issues certificates Node does not trust.
 */
const PUBLIC_ACME = new Set([
  'https://acme-v02.api.letsencrypt.org/directory',
  'https://acme.zerossl.com/v2/DV90',
  'https://dv.acme-v02.api.pki.goog/directory',
  'https://api.buypass.com/acme/directory',
]);

/** Whether a certificate name (`host` or `*.domain`, one label deep) covers `host`. */
const covers = (name: string, host: string) => name === host || (name.startsWith('*.') && host.slice(host.indexOf('.') + 1) === name.slice(2));

/** Why `host` is not served with a certificate a Node client trusts, or undefined when it is. */
function untrusted(ctx: CheckContext, host: string): string | undefined {
  const ingresses = ctx.resources.filter(
    (r) => r.kind === 'Ingress' && ((dig(r.object, ['spec', 'rules']) ?? []) as { host?: string }[]).some((rule) => rule.host === host),
  );
  if (ingresses.length === 0) return `no Ingress serves ${host}`;
  const tls = ingresses.flatMap((ing) =>
    ((dig(ing.object, ['spec', 'tls']) ?? []) as { hosts?: string[]; secretName?: string }[])
      .filter((t) => (t.hosts ?? []).some((h) => covers(h, host)))
      .map((t) => ({ ing, secretName: t.secretName })),
  );
  if (tls.length === 0)
    return `the Ingress serving ${host} has no TLS for it, so the gateway answers with its own self-signed certificate, which Jellyseerr refuses`;
  const problems = tls.map(({ ing, secretName }) => certificateProblem(ctx.resources, ing, host, secretName));
  return problems.includes(undefined) ? undefined : problems[0];
}

/** Why the Secret an Ingress's TLS names is not a public CA's certificate for `host`, or undefined. */
function certificateProblem(resources: readonly Resource[], ing: Resource, host: string, secretName: string | undefined): string | undefined {
  const cert = resources.find((r) => r.kind === 'Certificate' && r.namespace === ing.namespace && dig(r.object, ['spec', 'secretName']) === secretName);
  if (!cert) return `Secret ${ing.namespace}/${secretName} (the TLS of Ingress ${ing.name}) is written by no cert-manager Certificate`;
  if (!((dig(cert.object, ['spec', 'dnsNames']) ?? []) as string[]).some((n) => covers(n, host))) return `Certificate ${cert.name} does not name ${host}`;
  const ref = (dig(cert.object, ['spec', 'issuerRef']) ?? {}) as { kind?: string; name?: string };
  const kind = ref.kind ?? 'Issuer';
  const issuer = resources.find((r) => r.kind === kind && r.name === ref.name && (kind === 'ClusterIssuer' || r.namespace === cert.namespace));
  // An issuer nothing declares is closure-issuer's to report.
  if (!issuer) return undefined;
  const server = dig(issuer.object, ['spec', 'acme', 'server']);
  if (typeof server !== 'string' || !PUBLIC_ACME.has(server))
    return `Certificate ${cert.name} is signed by ${kind} ${ref.name ?? '(none)'}${typeof server === 'string' ? ` (ACME at ${server})` : ''}, not by a public CA's production ACME directory, so Jellyseerr does not trust it`;
  return undefined;
}

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
        (s[kind] ?? []).forEach((server, i) => {
          if (server.useSsl !== true || !server.hostname) return;
          const why = untrusted(ctx, server.hostname);
          const at: Path = [kind, i, 'hostname'];
          if (why)
            ctx.fail({ data: found.file, path: at }, `${server.name ?? kind} is reached at https://${server.hostname}:${server.port ?? 443}, but ${why}`);
        });
    },
  },
];
