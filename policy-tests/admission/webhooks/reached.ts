/**
 * Whether a custom resource reaches the validating webhooks at all. The API server validates an object against its
 * CRD (the schema, then the rules) before it calls any validating webhook; an object its CRD's rules refuse is
 * refused there (`crd-validation-rule` says so), and no webhook sees it, so a webhook's port must not judge it again.
 */
import type { Resource } from '../../model/core/manifest.ts';
import { withExactIntegers } from '../../model/yaml/exact-integers.ts';
import { ruleViolations } from '../cel/crd-rules.ts';
import { crdSchemas } from '../crd-schemas.ts';

export function reachesWebhooks(resources: readonly Resource[]): (r: Resource) => boolean {
  const schemas = crdSchemas(resources);
  return (r) => {
    const crd = schemas.get(`${r.apiVersion}/${r.kind}`);
    return !crd || !ruleViolations(crd.schema, withExactIntegers(r.object, r.exactIntegers)).some((v) => !v.notJudged);
  };
}
