/**
 * The admission stage and the policy stage: the admission layer (admission/index.ts), after the schema layer, then
 * every other area's checks, the exemption step over both, and root causes marked across them.
 */
import { policyChecks, stagedChecks } from '../../checks/registry.ts';
import { exemptionStep, runChecks } from '../../model/checks/runner.ts';
import { exemptionCheck } from '../../model/checks/exemptions.ts';
import type { CheckEnvironment, PolicyCheck } from '../../model/checks/kit.ts';
import type { Finding } from '../../model/core/findings.ts';
import { groupOf } from '../../model/core/manifest.ts';
import { admissionLayer, type AdmissionJudgement, type PodSecurityCoverage, type RuleCoverage } from '../../admission/index.ts';
import { markRootCauses } from '../root-causes.ts';
import { schemaLayer } from '../pipeline.ts';
import type { GateOptions } from '../options.ts';
import type { Tree } from './render.ts';

/** What every check is given: scope knowledge from the schema layer. */
async function checkEnvironment(): Promise<CheckEnvironment> {
  const layer = await schemaLayer();
  // `v1/ConfigMap` is the core group, `apps/v1/Deployment` the group apps.
  const versions = layer.builtinApiVersions();
  const builtinGroups = new Set(versions.map((v) => (/^v\d/.test(v) ? '' : v.split('/')[0]!)));
  // The list holds each apiVersion and each apiVersion/Kind: a kind's key has one more part than its apiVersion's.
  const builtinKinds = new Map<string, boolean>();
  const listed = new Set(versions);
  for (const key of versions) {
    const apiVersion = key.slice(0, key.lastIndexOf('/'));
    if (!listed.has(apiVersion)) continue;
    const kind = key.slice(apiVersion.length + 1);
    builtinKinds.set(`${groupOf(apiVersion)}/${kind}`, layer.isClusterScoped(apiVersion, kind));
  }
  return { isClusterScoped: (apiVersion, kind) => layer.isClusterScoped(apiVersion, kind), builtinGroups, builtinKinds };
}

/** Every check the gate runs, in report order, and the exemption step's declaration: the CLI's list, the check table. */
export async function registeredChecks(): Promise<PolicyCheck[]> {
  return [...policyChecks(await checkEnvironment()), exemptionCheck];
}

/** What the admission and policy stages found, and what they counted apart. */
export interface Checked {
  findings: Finding[];
  warnings: Finding[];
  notJudged: Finding[];
  celRules?: RuleCoverage;
  podSecurity?: PodSecurityCoverage;
}

/** The checks of each stage (checks/registry.ts stagedChecks). */
type Staged = ReturnType<typeof stagedChecks>;

/** The admission stage's checks and the policy stage's, each given the check environment. */
export async function checksByStage(): Promise<Staged> {
  return stagedChecks(await checkEnvironment());
}

/** The admission stage, after the schema layer: the admission layer (admission/index.ts). Not run on the files alone (--no-render). */
export function admissionStage(tree: Tree, checks: readonly PolicyCheck[], options: GateOptions): AdmissionJudgement | undefined {
  if (!tree.checked) return undefined;
  const total = tree.repo.resources.length;
  options.onProgress?.('admission', 0, total);
  const judged = admissionLayer(tree.repo, tree.renders, checks);
  options.onProgress?.('admission', total, total);
  return judged;
}

/**
 * The policy stage: every other area's checks, then the exemption step over both stages (an exemption is stale when
 * neither used it), root causes marked across them and the render's findings.
 */
export function policyStage(tree: Tree, staged: Staged, admitted: AdmissionJudgement | undefined, options: GateOptions): Checked {
  if (!admitted) return { findings: tree.renderFindings, warnings: [], notJudged: [] };
  const total = tree.repo.resources.length;
  options.onProgress?.('policy', 0, total);
  const run = runChecks(tree.repo, staged.policy, tree.renders);
  const exemptions = exemptionStep(tree.repo, [...staged.admission, ...staged.policy, exemptionCheck], [admitted.run, run]);
  options.onProgress?.('policy', total, total);
  const found = [...admitted.run.findings, ...run.findings, ...exemptions];
  const findings = [...tree.renderFindings, ...found.filter((f) => f.severity === undefined)];
  markRootCauses(
    findings,
    tree.repo.parsed.flatMap((p) => p.findings),
    new Map([...staged.admission, ...staged.policy].map((c) => [c.id, c.reads.files ?? []])),
  );
  return {
    findings,
    warnings: found.filter((f) => f.severity === 'warning'),
    notJudged: found.filter((f) => f.severity === 'not-judged'),
    celRules: admitted.celRules,
    ...(admitted.podSecurity ? { podSecurity: admitted.podSecurity } : {}),
  };
}
