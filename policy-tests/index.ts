/**
 * The gate's front door: the few operations the rest of the repository needs, the common ones by name and the
 * rest in four namespaces (charts, render, docs, facts) and the conformance harness. `scripts/` and `bench/`
 * import only this file (policy-tests/test/gate/layout.test.ts holds them to it, and this file to 25 names), so
 * the floors behind it can move without touching them.
 */

// Load a tree, gate it, report it.
export { loadRepo, REPO_ROOT, MANIFEST_ROOTS } from './model/repository/repo.ts';
export { clearParseCache } from './model/repository/parse-pool.ts';
export { allFindings, registeredChecks, runGate, SETTLED_MS, type GateOptions, type GateResult } from './gate/gate.ts';
export { render as renderReport } from './gate/report/formats/index.ts';
export { printable } from './gate/report/formats/common.ts';
// The one "did you mean" of every finding, for the scripts' reports too.
export { nearestName } from './model/core/did-you-mean.ts';
export { runPolicy } from './model/checks/runner.ts';
export { ADMISSION_CHECK_IDS } from './admission/index.ts';

// Snapshot what each Application applies (the rendered diff).
export { snapshot, type Snapshot } from './gate/snapshot.ts';
export { ruleViolations, updateViolations } from './admission/index.ts';

export * as charts from './front/charts.ts';
export * as render from './front/render.ts';
export * as docs from './front/docs.ts';
export * as facts from './front/facts.ts';
export * as conformance from './admission/upstream/conformance.ts';
