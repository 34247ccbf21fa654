/**
 * closure-acme-solver: every name a Certificate asks an ACME issuer for has a solver cert-manager picks for it. An
 * Order names each of the Certificate's names; for each, cert-manager picks a solver of a challenge type the CA offers
 * (HTTP-01 or DNS-01, DNS-01 alone for a wildcard) whose selector matches the name and the Certificate's labels
 * (model/certificates/acme-solvers.ts). A name none matches fails the Order ("no configured challenge solvers can be used
 * for this challenge"), and cert-manager retries it with backoff while the old certificate runs out.
 */
import { dig, str } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { certificateIssuer } from '../../model/certificates/tls.ts';
import { offeredChallenges, pickSolver } from '../../model/certificates/acme-solvers.ts';
import { acmeKeyRefusal } from '../../model/certificates/acme-keys.ts';
import type { Resource } from '../../model/core/manifest.ts';

/** Each cert-manager Certificate of the view with the ACME issuer the repository declares for it. */
function* acmeCertificates(resources: readonly Resource[]): Generator<{ cert: Resource; issuer: Resource }> {
  for (const cert of resources) {
    if (cert.kind !== 'Certificate' || cert.apiVersion !== 'cert-manager.io/v1') continue;
    const issuer = certificateIssuer(resources, cert);
    const acme = issuer && dig(issuer.object, ['spec', 'acme']);
    if (issuer && acme && typeof acme === 'object') yield { cert, issuer };
  }
}

export const acmeSolverCheck: PolicyCheck = {
  id: 'closure-acme-solver',
  description:
    "Every name a Certificate asks an ACME Issuer or ClusterIssuer for has a solver cert-manager picks for it (v1.21.1's solver picker): one of a challenge type the CA offers (HTTP-01 or DNS-01; DNS-01 alone for a wildcard) whose selector's labels, dnsNames and dnsZones match the name and the Certificate's labels; otherwise the Order fails and no certificate is issued (invariants P1).",
  invariants: ['P1'],
  remediation:
    "give the issuer a solver for the name: widen a solver's selector (dnsZones with the name's zone, or dnsNames with the name), or add one without a selector; a wildcard needs a DNS-01 solver",
  reads: { kinds: ['Certificate', 'Issuer', 'ClusterIssuer'] },
  exemptible: false,
  run(ctx) {
    for (const { cert, issuer } of acmeCertificates(ctx.resources)) {
      const solvers = dig(issuer.object, ['spec', 'acme', 'solvers']);
      const labels = (dig(cert.object, ['metadata', 'labels']) ?? {}) as Record<string, string>;
      const names: unknown = dig(cert.object, ['spec', 'dnsNames']);
      (Array.isArray(names) ? names : []).forEach((name: unknown, i: number) => {
        if (typeof name !== 'string' || pickSolver(name, offeredChallenges(name), solvers, labels)) return;
        const count = Array.isArray(solvers) ? solvers.length : 0;
        ctx.fail(
          { resource: cert, path: ['spec', 'dnsNames', i] },
          `Certificate ${cert.name}: ${issuer.kind} ${issuer.name} has no solver cert-manager picks for ${name}${
            count === 0
              ? ' (it has no solvers)'
              : name.startsWith('*.')
                ? ' (a wildcard takes only a DNS-01 solver whose selector matches it)'
                : ` (no selector of its ${count} solvers matches it)`
          }: the Order fails and no certificate is issued`,
        );
      });
    }
  },
};

/**
 * closure-acme-key: the key a Certificate asks an ACME issuer for is one its CA signs (model/certificates/acme-keys.ts).
 * cert-manager accepts the Certificate and sends the Order; the CA refuses the request at finalize, and no certificate
 * is issued, nor renewed, while the Secret keeps none or the old one runs out.
 */
export const acmeKeyCheck: PolicyCheck = {
  id: 'closure-acme-key',
  description:
    "Every Certificate an ACME Issuer or ClusterIssuer signs asks for a key its CA signs: none signs Ed25519 (the Baseline Requirements allow RSA and ECDSA keys only), and Let's Encrypt signs only RSA of 2048, 3072 or 4096 bits and ECDSA on P-256 or P-384 (its CPS, as boulder enforces it; cert-manager's defaults are RSA of 2048 bits and P-256), where cert-manager accepts RSA up to 8192 bits and P-521; otherwise the CA refuses the Order's request (badCSR) and no certificate is issued (invariants P1).",
  invariants: ['P1'],
  remediation: 'ask for a key the CA signs: privateKey {algorithm: ECDSA, size: 256} or {algorithm: RSA, size: 2048, 3072 or 4096}',
  reads: { kinds: ['Certificate', 'Issuer', 'ClusterIssuer'] },
  exemptible: false,
  run(ctx) {
    for (const { cert, issuer } of acmeCertificates(ctx.resources)) {
      const refused = acmeKeyRefusal(cert, str(dig(issuer.object, ['spec', 'acme', 'server'])));
      if (refused?.unknown)
        ctx.notJudged(
          { resource: cert, path: refused.path },
          `Certificate ${cert.name} asks ${issuer.kind} ${issuer.name} for ${refused.message}: whether it signs it is not judged`,
        );
      else if (refused)
        ctx.fail(
          { resource: cert, path: refused.path },
          `Certificate ${cert.name} asks ${issuer.kind} ${issuer.name} for ${refused.message}: the CA refuses the Order's request at finalize (badCSR), so no certificate is issued and the Secret ${str(dig(cert.object, ['spec', 'secretName']))} holds none, or the old one runs out`,
        );
    }
  },
};
