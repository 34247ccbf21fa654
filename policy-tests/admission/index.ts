/**
 * The admission layer's address: what the API server's admission refuses, and how much of it the gate judged.
 * Everything outside `admission/` reaches the layer through this file (policy-tests/test/gate/layout.test.ts
 * fails on an import of its rooms from outside): the gate's admission stage (`admissionLayer`), the registry's
 * admission area, the rendered diff's transition rules, and the conformance harness (through its own door,
 * upstream/conformance.ts).
 */
import type { Resource } from '../model/core/manifest.ts';
import type { PolicyCheck } from '../model/checks/kit.ts';
import { runChecks, type StageRun } from '../model/checks/runner.ts';
import type { SourceRender } from '../model/argocd/rendered.ts';
import type { Repo } from '../model/repository/repo.ts';
import { policyCoverage } from './cel/admission-policies.ts';
import { ruleCoverage, type RuleCoverage } from './cel/crd-rules.ts';
import { crdSchemas } from './crd-schemas.ts';
import { podSecurityCoverage, type PodSecurityCoverage } from './pod-security/coverage.ts';

// The admission area: its checks (checks/), declared where they are written.
export { ADMISSION_CHECK_IDS, admissionArea, POD_SECURITY_REASON } from './checks/index.ts';
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
// What an operator copies from its custom resource into a pod it creates, judged as the API server judges that pod.
export { securityContextPodProblems } from './validation/pod.ts';
export { containerResourceProblems } from './validation/resource-requirements.ts';
export { UPDATE_JUDGED_KINDS, updateViolations, type UpdateCluster } from './validation/updates.ts';
// Pod Security admission.
export type { PodSecurityCoverage } from './pod-security/coverage.ts';
export { isLevel, LABEL_PREFIX, LATEST_POLICY_MINOR, levelsFor, MODES, podSecurityViolations, type Level } from './pod-security/pod-security.ts';

/** The CEL rules found and compiled, the CRDs' and the admission policies' together: the summary counts what is not judged. */
export function admissionCoverage(resources: readonly Resource[]): RuleCoverage {
  // Rules are found in the schema as written: converting megabytes of the charts' CRDs only to count them was the walk's cost.
  const crdRules = ruleCoverage([...crdSchemas(resources)].map(([crd, { raw }]) => ({ crd, schema: raw })));
  const policyRules = policyCoverage(resources.filter((r) => r.kind === 'ValidatingAdmissionPolicy').map((r) => r.object));
  return {
    found: crdRules.found + policyRules.found,
    compiled: crdRules.compiled + policyRules.compiled,
    notJudged: [...crdRules.notJudged, ...policyRules.notJudged],
  };
}

/** What the admission layer made of one repository: its checks' findings (with the exemptions they used), its CEL coverage, and the levels Pod Security judged at. */
export interface AdmissionJudgement {
  run: StageRun;
  celRules: RuleCoverage;
  podSecurity: PodSecurityCoverage | undefined;
}

/**
 * The admission layer, the gate's stage after the schema layer: every plain and rendered object judged as the API
 * server's admission judges it on apply (built-in validation, Pod Security, CRD rules, admission policies) and as
 * Argo CD applies it, with `checks` the admission area's checks as the gate's environment built them.
 */
export function admissionLayer(repo: Repo, renders: readonly SourceRender[], checks: readonly PolicyCheck[]): AdmissionJudgement {
  return { run: runChecks(repo, checks, renders), celRules: admissionCoverage(repo.resources), podSecurity: podSecurityCoverage(repo) };
}
