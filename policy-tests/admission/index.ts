/**
 * The admission layer's address: what the API server's admission refuses, and how much of it the gate judged.
 * Everything outside `admission/` reaches the layer through this file (policy-tests/test/gate/layout.test.ts
 * fails on an import of its rooms from outside): the admission checks (checks/admission/), the gate's coverage
 * line, the rendered diff's transition rules, and the conformance harness.
 */
import type { Resource } from '../model/core/manifest.ts';
import { policyCoverage } from './cel/admission-policies.ts';
import { ruleCoverage, type RuleCoverage } from './cel/crd-rules.ts';
import { crdSchemas } from './crd-schemas.ts';

// CRD validation rules (CEL): judged on objects, refused at CRD create, and their cost.
export { compileOutcome, ruleAtNode, rulesOf, ruleViolations, type RuleCoverage } from './cel/crd-rules.ts';
export { costMessage, PER_CRD_LIMIT, PER_EXPRESSION_LIMIT, unboundedCardinality } from './cel/cost-estimate.ts';
export type { JsonSchemaNode } from './cel/schema-node.ts';
export { crdSchemas } from './crd-schemas.ts';
// ValidatingAdmissionPolicies.
export { builtinResourceName, policyDecisions, type ParamLookup } from './cel/admission-policies.ts';
// The API server's built-in validation.
export { validateBuiltin } from './validation/kinds.ts';
export { validateObjectMeta } from './validation/metadata.ts';
// Pod Security admission.
export { isLevel, LABEL_PREFIX, LATEST_POLICY_MINOR, levelsFor, MODES, podSecurityViolations, type Level } from './pod-security/pod-security.ts';

/** The CEL rules found and compiled, the CRDs' and the admission policies' together: the summary counts what is not judged. */
export function admissionCoverage(resources: readonly Resource[]): RuleCoverage {
  const crdRules = ruleCoverage([...crdSchemas(resources)].map(([crd, { schema }]) => ({ crd, schema })));
  const policyRules = policyCoverage(resources.filter((r) => r.kind === 'ValidatingAdmissionPolicy').map((r) => r.object));
  return {
    found: crdRules.found + policyRules.found,
    compiled: crdRules.compiled + policyRules.compiled,
    notJudged: [...crdRules.notJudged, ...policyRules.notJudged],
  };
}
