/**
 * Whether a host is served with TLS a client trusts: an Ingress for the host whose `tls` names a Secret that a
 * cert-manager Certificate writes for that host, from a public CA's production ACME directory. An Ingress without
 * TLS for its host is answered by the proxy's own self-signed certificate (Traefik's default), which browsers,
 * Node and the blackbox exporter refuse.
 */
import { dig, list, obj, objects, str } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { ingressHosts } from '../cluster/ingress-routes.ts';

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
const covers = (name: unknown, host: string) =>
  typeof name === 'string' && (name === host || (name.startsWith('*.') && host.slice(host.indexOf('.') + 1) === name.slice(2)));

/** Why this Ingress does not serve `host` with a certificate a client trusts (a browser, Node, the blackbox exporter), or undefined. */
export function ingressTlsProblem(resources: readonly Resource[], ing: Resource, host: string): string | undefined {
  const tls = (objects(dig(ing.object, ['spec', 'tls'])) as { hosts?: string[]; secretName?: string }[]).filter((t) =>
    list(t.hosts).some((h) => covers(h, host)),
  );
  if (tls.length === 0) return `the Ingress serving ${host} has no TLS for it, so the proxy answers with its own self-signed certificate, which clients refuse`;
  const problems = tls.map((t) => certificateProblem(resources, ing, host, t.secretName));
  return problems.includes(undefined) ? undefined : problems[0];
}

/** Why no Ingress serves `host` with a certificate a client trusts, or undefined when one does. */
export function untrustedHost(resources: readonly Resource[], host: string): string | undefined {
  const ingresses = resources.filter((r) => r.kind === 'Ingress' && ingressHosts(r).some((h) => h.host === host));
  if (ingresses.length === 0) return `no Ingress serves ${host}`;
  const problems = ingresses.map((ing) => ingressTlsProblem(resources, ing, host));
  return problems.includes(undefined) ? undefined : problems[0];
}

/**
 * The cert-manager issuer a Certificate's issuerRef names, where the repository declares it: an Issuer in the
 * Certificate's namespace (the kind when none is given) or a ClusterIssuer. Undefined for an issuer of another group
 * (an external issuer) or one nothing declares, which closure-issuer reports.
 */
export function certificateIssuer(resources: readonly Resource[], cert: Resource): Resource | undefined {
  const ref = obj(dig(cert.object, ['spec', 'issuerRef']));
  if (str(ref.group) !== '' && ref.group !== 'cert-manager.io') return undefined;
  const kind = str(ref.kind) || 'Issuer';
  return resources.find(
    (r) => r.apiVersion === 'cert-manager.io/v1' && r.kind === kind && r.name === ref.name && (kind === 'ClusterIssuer' || r.namespace === cert.namespace),
  );
}

/** Why the Secret an Ingress's TLS names is not a public CA's certificate for `host`, or undefined. */
function certificateProblem(resources: readonly Resource[], ing: Resource, host: string, secretName: string | undefined): string | undefined {
  const cert = resources.find((r) => r.kind === 'Certificate' && r.namespace === ing.namespace && dig(r.object, ['spec', 'secretName']) === secretName);
  if (!cert) return `Secret ${ing.namespace}/${secretName} (the TLS of Ingress ${ing.name}) is written by no cert-manager Certificate`;
  if (!(list(dig(cert.object, ['spec', 'dnsNames'])) as string[]).some((n) => covers(n, host))) return `Certificate ${cert.name} does not name ${host}`;
  const ref = (dig(cert.object, ['spec', 'issuerRef']) ?? {}) as { kind?: string; name?: string };
  const kind = ref.kind || 'Issuer';
  const issuer = certificateIssuer(resources, cert);
  // An issuer nothing declares is closure-issuer's to report.
  if (!issuer) return undefined;
  const server = dig(issuer.object, ['spec', 'acme', 'server']);
  if (typeof server !== 'string' || !PUBLIC_ACME.has(server))
    return `Certificate ${cert.name} is signed by ${kind} ${ref.name ?? '(none)'}${typeof server === 'string' ? ` (ACME at ${server})` : ''}, not by a public CA's production ACME directory, so clients do not trust it`;
  return undefined;
}
