/**
 * The API server's admission chain, as checks: its built-in validation, Pod
 * Security admission, and the CRDs' validation rules (CEL), judged on every
 * plain and rendered object as on a create through Argo CD; and what makes
 * Argo CD itself refuse or never apply an object; what the webhooks the
 * repository deploys refuse (cert-manager's, External Secrets', MetalLB's, the prometheus-operator's); and what the kubelet, the
 * node's own admission, refuses of a pod the API server admitted.
 */
import { groupOf, type Resource } from '../../model/core/manifest.ts';
import { type PolicyCheck, type Area, type CheckEnvironment } from '../../model/checks/kit.ts';
import { admissionPolicyCheck } from './admission-policy.ts';
import { argocdWillSyncCheck } from './argocd-will-sync.ts';
import { certManagerWebhookCheck } from './cert-manager-webhook.ts';
import { crdAcceptedCheck } from './crd-accepted.ts';
import { externalSecretsWebhookCheck } from './external-secrets-webhook.ts';
import { kubeletAdmitsCheck } from './kubelet-admits.ts';
import { metallbWebhookCheck } from './metallb-webhook.ts';
import { apiValidationCheck, crdValidationRuleCheck } from './object-validation.ts';
import { namespaceLimitsCheck } from './namespace-limits.ts';
import { podSecurityCheck } from './pod-security.ts';
import { prometheusOperatorWebhookCheck } from './prometheus-operator-webhook.ts';
import { serviceAllocationCheck } from './service-allocation.ts';
import { syncAuthorizationCheck } from './sync-authorization.ts';
import { programApiAuthorizedCheck } from './program-api-authorized.ts';

export { POD_SECURITY_REASON } from './pod-security.ts';

export function admissionChecks({ builtinGroups, isClusterScoped }: CheckEnvironment): PolicyCheck[] {
  const isBuiltin = (r: Resource) => builtinGroups.has(groupOf(r.apiVersion));
  return [
    apiValidationCheck(isBuiltin),
    podSecurityCheck(isBuiltin),
    kubeletAdmitsCheck(isBuiltin),
    crdValidationRuleCheck(isBuiltin),
    crdAcceptedCheck,
    certManagerWebhookCheck,
    externalSecretsWebhookCheck,
    metallbWebhookCheck,
    prometheusOperatorWebhookCheck,
    serviceAllocationCheck,
    namespaceLimitsCheck,
    admissionPolicyCheck(isBuiltin, isClusterScoped),
    argocdWillSyncCheck,
    syncAuthorizationCheck({ isBuiltin, isClusterScoped }),
    programApiAuthorizedCheck,
  ];
}

/** The ids of the admission layer's checks (for the benchmark's share): read from the checks, not repeated. */
export const ADMISSION_CHECK_IDS: readonly string[] = admissionChecks({ isClusterScoped: () => false, builtinGroups: new Set(), builtinKinds: new Map() }).map(
  (c) => c.id,
);

export const admissionArea: Area = { name: 'admission', checks: admissionChecks };
