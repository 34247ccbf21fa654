/**
 * cert-manager-webhook: what cert-manager's validating webhook refuses when Argo CD applies a Certificate. The
 * repository deploys cert-manager, whose ValidatingWebhookConfiguration sends it every cert-manager.io object, and
 * its webhook refuses what its validation refuses (admission/webhooks/cert-manager.ts): the sync fails, and no
 * certificate is issued.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { certificateProblems } from '../webhooks/cert-manager.ts';

export const certManagerWebhookCheck: PolicyCheck = {
  id: 'cert-manager-webhook',
  description:
    "Every Certificate is one cert-manager's validating webhook admits, where the repository deploys cert-manager (v1.21.1's ValidateCertificateSpec): a secretName that is a Secret's name, an issuerRef with a name (an Issuer or ClusterIssuer where the group is cert-manager's), a common name or a SAN, a common name of at most 64 bytes, IP and email addresses Go parses, an RSA key of 2048 to 8192 bits or an ECDSA key of 256, 384 or 521, a signature algorithm of the key's algorithm, a duration of at least an hour, a renewBefore of at least five minutes and below the duration (or a renewBeforePercentage that makes one), known usages, a revisionHistoryLimit of at least one, no cert-manager.io annotation on the Secret's template, one output format of each type, keystore passwords given once, name constraints only on a CA, and a renewal policy of RenewBefore or Disabled whose windows have a duration, a zone Go knows and a schedule robfig parses; otherwise the sync fails and no certificate is issued (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the field the finding names, as cert-manager documents the Certificate resource (cert-manager.io/v1)',
  reads: { kinds: ['Certificate', 'Application'], charts: ['cert-manager'] },
  exemptible: false,
  run(ctx) {
    // No cert-manager, no webhook: a Certificate is then closure-crd's.
    if (chartValues(ctx.repo, 'cert-manager').length === 0) return;
    for (const r of ctx.resources) {
      if (r.kind !== 'Certificate' || r.apiVersion !== 'cert-manager.io/v1') continue;
      for (const p of certificateProblems(r.object.spec as Record<string, unknown> | undefined))
        ctx.fail(
          { resource: r, path: p.path },
          `Certificate ${r.name}: admission webhook "webhook.cert-manager.io" denied the request: ${p.path.join('.')}: ${p.message} [${p.fn}]`,
        );
      if (r.object.spec && typeof (r.object.spec as Record<string, unknown>).literalSubject === 'string')
        ctx.notJudged(
          { resource: r, path: ['spec', 'literalSubject'] },
          `Certificate ${r.name}: the literal subject's distinguished name is not parsed as cert-manager parses it`,
        );
    }
  },
};
