/**
 * external-secrets-webhook: what External Secrets' validating webhooks refuse when Argo CD applies an ExternalSecret,
 * a SecretStore or a ClusterSecretStore. The repository deploys External Secrets with its webhook (the chart's
 * default, failurePolicy Fail), whose ValidatingWebhookConfigurations send it every one of those, and it refuses what
 * its validation refuses (admission/webhooks/external-secrets.ts): the sync fails, and the Secret is never written.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { dig } from '../../model/core/dig.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { externalSecretRefusals, storeRefusals } from '../webhooks/external-secrets.ts';
import { reachesWebhooks } from '../webhooks/reached.ts';

const WEBHOOKS: Readonly<Record<string, string>> = {
  ExternalSecret: 'validate.externalsecret.external-secrets.io',
  SecretStore: 'validate.secretstore.external-secrets.io',
  ClusterSecretStore: 'validate.clustersecretstore.external-secrets.io',
};

export const externalSecretsWebhookCheck: PolicyCheck = {
  id: 'external-secrets-webhook',
  description:
    "Every ExternalSecret, SecretStore and ClusterSecretStore is one External Secrets' validating webhook admits, where the repository deploys it with its webhook (v2.9.0's validateExternalSecret and validateStore): data or dataFrom, each dataFrom entry one of extract, find or a generator (a sourceRef naming a store or a generator), a deletionPolicy its creationPolicy allows, no secretKey twice while the Secret is retained, no template for a long-lived service account or bootstrap token, templateFrom targets a Secret holds; a store's namespace regexes Go compiles, a refreshInterval of seconds or a Go duration, not negative, exactly one provider, and for 1Password a token Secret's name and key, one of a vault and an environment, and the namespace the store's scope needs; otherwise the sync fails and the Secret is never written (invariants P1).",
  invariants: ['P1'],
  remediation: 'fix the field the finding names, as External Secrets documents the resource (external-secrets.io/v1)',
  reads: { kinds: ['ExternalSecret', 'SecretStore', 'ClusterSecretStore', 'Application'], charts: ['external-secrets'] },
  exemptible: false,
  run(ctx) {
    // No External Secrets, or its webhook turned off: nothing refuses these (an ExternalSecret is then closure-crd's).
    if (!chartValues(ctx.repo, 'external-secrets').some((c) => dig(c.values, ['webhook', 'create']) !== false)) return;
    const reached = reachesWebhooks(ctx.repo.resources);
    for (const r of ctx.resources) {
      const webhook = WEBHOOKS[r.kind];
      if (!webhook || r.apiVersion !== 'external-secrets.io/v1' || !reached(r)) continue;
      const denied = (message: string) => `${r.kind} ${r.name}: admission webhook "${webhook}" denied the request: ${message}`;
      if (r.kind === 'ExternalSecret') {
        for (const p of externalSecretRefusals(r.object.spec)) ctx.fail({ resource: r, path: p.path }, denied(p.message));
        continue;
      }
      const verdict = storeRefusals({ kind: r.kind, name: r.name, namespace: r.namespace, spec: r.object.spec });
      for (const p of verdict.refusals) ctx.fail({ resource: r, path: p.path }, denied(p.message));
      for (const w of verdict.warnings) ctx.warn({ resource: r, path: ['spec', 'provider'] }, `${r.kind} ${r.name}: Warning: ${w}`);
      if (verdict.unported && verdict.refusals.length === 0)
        ctx.notJudged(
          { resource: r, path: ['spec', 'provider', verdict.unported] },
          `${r.kind} ${r.name}: the ${verdict.unported} provider's own store validation is not ported`,
        );
    }
  },
};
