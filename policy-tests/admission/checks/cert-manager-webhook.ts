/**
 * cert-manager-webhook: what cert-manager's validating webhook refuses when Argo CD applies a Certificate, an Issuer
 * or a ClusterIssuer. The repository deploys cert-manager, whose ValidatingWebhookConfiguration sends it every
 * cert-manager.io object, and its webhook refuses what its validation refuses (admission/webhooks/cert-manager.ts for a Certificate,
 * cert-manager-issuer.ts for an issuer): the sync fails, and no certificate is issued. What it warns of (a deprecated
 * field) is a warning here, as kubectl and Argo CD show it.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { certificateProblems } from '../webhooks/cert-manager.ts';
import { issuerSpecProblems } from '../webhooks/cert-manager-issuer.ts';
import { reachesWebhooks } from '../webhooks/reached.ts';

const ISSUER_KINDS = new Set(['Issuer', 'ClusterIssuer']);
const denied = (kind: string, name: string, p: { path: (string | number)[]; message: string; fn: string }) =>
  `${kind} ${name}: admission webhook "webhook.cert-manager.io" denied the request: ${p.path.join('.')}: ${p.message} [${p.fn}]`;

export const certManagerWebhookCheck: PolicyCheck = {
  id: 'cert-manager-webhook',
  description:
    "Every Certificate is one cert-manager's validating webhook admits, where the repository deploys cert-manager (v1.21.1's ValidateCertificateSpec): a secretName that is a Secret's name, an issuerRef with a name (an Issuer or ClusterIssuer where the group is cert-manager's), a common name or a SAN, a common name of at most 64 bytes, IP and email addresses Go parses, an RSA key of 2048 to 8192 bits or an ECDSA key of 256, 384 or 521, a signature algorithm of the key's algorithm, a duration of at least an hour, a renewBefore of at least five minutes and below the duration (or a renewBeforePercentage that makes one), known usages, a revisionHistoryLimit of at least one, no cert-manager.io annotation on the Secret's template, one output format of each type, keystore passwords given once, name constraints only on a CA, and a renewal policy of RenewBefore or Disabled whose windows have a duration, a zone Go knows and a schedule robfig parses; and every Issuer and ClusterIssuer one it admits (ValidateIssuerSpec): one issuer type; for ACME a server, an account key Secret's name, a CA bundle holding a certificate (not beside skipTLSVerify), an external account binding with a key ID and a Secret key, and solvers each of one kind (an HTTP-01 ingress or Gateway route, or one DNS-01 provider with the Secret keys and fields it needs); for CA a Secret; for Vault a server, a path without '..' and a way to log in; for Venafi a zone and one platform; otherwise the sync fails and no certificate is issued (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the field the finding names, as cert-manager documents the Certificate, Issuer and ClusterIssuer resources (cert-manager.io/v1)',
  reads: { kinds: ['Certificate', 'Issuer', 'ClusterIssuer', 'Application'], charts: ['cert-manager'] },
  exemptible: false,
  run(ctx) {
    // No cert-manager, no webhook: a Certificate is then closure-crd's.
    if (chartValues(ctx.repo, 'cert-manager').length === 0) return;
    const reached = reachesWebhooks(ctx.repo.resources);
    for (const r of ctx.resources) {
      if (r.apiVersion !== 'cert-manager.io/v1' || !reached(r)) continue;
      if (ISSUER_KINDS.has(r.kind)) {
        const { errors, warnings } = issuerSpecProblems(r.object.spec, ['spec']);
        for (const p of errors) ctx.fail({ resource: r, path: p.path }, denied(r.kind, r.name, p));
        for (const w of warnings)
          ctx.warn({ resource: r, path: ['spec', 'acme', 'externalAccountBinding', 'keyAlgorithm'] }, `${r.kind} ${r.name}: Warning: ${w}`);
        continue;
      }
      if (r.kind !== 'Certificate') continue;
      for (const p of certificateProblems(r.object.spec as Record<string, unknown> | undefined))
        ctx.fail({ resource: r, path: p.path }, denied(r.kind, r.name, p));
      if (r.object.spec && typeof (r.object.spec as Record<string, unknown>).literalSubject === 'string')
        ctx.notJudged(
          { resource: r, path: ['spec', 'literalSubject'] },
          `Certificate ${r.name}: the literal subject's distinguished name is not parsed as cert-manager parses it`,
        );
    }
  },
};
