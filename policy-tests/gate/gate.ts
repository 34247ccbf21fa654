/**
 * The gate: load, render, the schema layer, the admission stage, the policy stage, one result per resource.
 * Each stage is a module of stages/; this file runs them in that order. Used by the CLI (gate/cli.ts), by the tests
 * and by the benchmark.
 */
import { REPO_ROOT } from '../model/repository/repo.ts';
import { parseSource } from '../model/core/source.ts';
import { flushOutcomeStores } from '../model/stores/outcome-store.ts';
import { assemble, type Collected, type GateResult } from './result.ts';
import { collectInputs, type Inputs } from './inputs.ts';
import type { GateOptions } from './options.ts';
import { loadStage } from './stages/load.ts';
import { renderStage, type Tree } from './stages/render.ts';
import { evaluate, resolvedOptions, schemaStage, withFindings } from './stages/schema.ts';
import { admissionStage, checksByStage, policyStage } from './stages/checks.ts';
import { keepVerdict, keptVerdict, type VerdictKey } from './verdict.ts';

export { UsageError } from './usage-error.ts';
export { allFindings, type GateResult, type NotRendered, type ResourceResult, type Summary } from './result.ts';
export type { GateOptions, KubernetesVersion, Progress } from './options.ts';
export { registeredChecks } from './stages/checks.ts';
export { evaluate } from './stages/schema.ts';
export { SETTLED_MS } from './verdict.ts';

/**
 * The gate, a straight line of stages: load the repository, render it, the schema layer, the admission stage, the
 * policy stage, then the files asked about selected and reported. Files outside the repository get the schema layer alone.
 */
export async function runGate(options: GateOptions = {}): Promise<GateResult> {
  const startedAt = Date.now();
  const root = options.root ?? REPO_ROOT;
  const paths = options.paths ?? [];
  const inputs: Inputs = paths.length === 0 ? { outside: [] } : collectInputs(paths, root, options.cwd ?? process.cwd(), options.stdin);
  // Only the files asked about are reported; the whole repository is judged, as Argo CD applies it whole.
  const keep = (file: string): boolean => paths.length === 0 || inputs.repoFiles!.has(file);
  let tree: Tree | undefined;
  let judged: Judged = { results: [], warnings: [], notJudged: [] };
  let verdictKey: VerdictKey | undefined;
  if (paths.length === 0 || (inputs.repoFiles?.size ?? 0) > 0) {
    const loaded = await loadStage(root, options);
    tree = await renderStage(loaded, options);
    // The whole repository judged before on these very inputs: that verdict (gate/verdict.ts), the files asked about selected.
    const key = keptVerdict(tree, options, startedAt);
    if (key?.kept) {
      for (const phase of ['schema', 'admission', 'policy'] as const) options.onProgress?.(phase, 1, 1);
      const { resources, warnings, notJudged, celRules, podSecurity } = key.kept;
      judged = { results: resources.filter((r) => keep(r.filename)), warnings, notJudged, celRules, podSecurity };
    } else {
      judged = await judgedTree(tree, options, keep);
      // Only a verdict on the whole repository is kept: a run on some files judges only their schemas.
      if (paths.length === 0) verdictKey = key;
    }
  }
  const results = [...judged.results];
  if (inputs.outside.length > 0) {
    const parsed = inputs.outside.map((input) => parseSource(input.filename, input.read()));
    results.push(...(await evaluate(parsed, [], resolvedOptions(options), { onProgress: options.onProgress })));
  }
  // What the parser read, the validators judged and the CEL rules found, for the next run to skip (keyed by inputs).
  flushOutcomeStores();
  const result = assemble({
    results,
    warnings: judged.warnings,
    notJudged: judged.notJudged,
    notRendered: tree?.notRendered ?? [],
    scope: tree?.repo,
    files: inputs.repoFiles,
    policy: tree?.checked ?? false,
    tools: tree?.tools,
    celRules: judged.celRules,
    podSecurity: judged.podSecurity,
  });
  if (verdictKey) keepVerdict(verdictKey, result);
  return result;
}

/** What the schema, admission and policy stages made of the tree: the results of the files asked about, and what they counted apart. */
type Judged = Pick<Collected, 'results' | 'warnings' | 'notJudged'> & Partial<Pick<Collected, 'celRules' | 'podSecurity'>>;

/** The schema, admission and policy stages on the tree, their findings on the files asked about attached to those files' results. */
async function judgedTree(tree: Tree, options: GateOptions, keep: (file: string) => boolean): Promise<Judged> {
  const schema = await schemaStage(tree, options, keep);
  const staged = await checksByStage();
  const checked = policyStage(tree, staged, admissionStage(tree, staged.admission, options), options);
  return {
    results: withFindings(
      schema.results,
      schema.parsed,
      checked.findings.filter((f) => keep(f.file)),
    ),
    warnings: [...schema.warnings, ...checked.warnings],
    notJudged: checked.notJudged,
    celRules: checked.celRules,
    podSecurity: checked.podSecurity,
  };
}
