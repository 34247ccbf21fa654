/**
 * The gate's front door: the few operations the rest of the repository needs.
 * `scripts/` and `bench/` import only this file (policy-tests/test/gate/layout.test.ts
 * holds them to it), so the floors behind it can move without touching them.
 */

// Load a tree.
export { loadRepo, REPO_ROOT, MANIFEST_ROOTS, type Repo } from './model/repository/repo.ts';
export { factsKubernetesMinor, factsRepoURL } from './model/repository/cluster-facts.ts';
export { normalizeRepoURL } from './model/argocd/argocd.ts';
export { checkoutPaths } from './model/repository/checkout-paths.ts';
export { clearParseCache } from './model/repository/parse-pool.ts';

// Render it, with the pinned tools, through the pipeline the gate and the diff share.
export { loadTree, renderApplications, type LoadedTree } from './gate/pipeline.ts';
export { cacheRoot, pinnedBinaries, renderTools } from './render/tools.ts';
// Every kind's allowed fields, read from the model packages' declarations once per install (npm run gate:setup).
export { loadFieldTrees } from './schema/field-tree.ts';

// The chart cache (npm run charts:pull).
export {
  cachedChartPath,
  chartCacheDir,
  CHART_LOCK_FILE,
  chartId,
  digestOf,
  formatLock,
  isOciRepo,
  lockEntryFor,
  pendingEntryFor,
  pinnedCharts,
  readLock,
  remoteEntryFor,
  type ChartLock,
  type ChartRef,
  type LockEntry,
} from './render/charts.ts';
export { assertAllowedHost, fetchRemote, pinnedRemotes, remoteDigest, type RemoteEntry } from './render/remote-bases.ts';

// Gate it, with its result.
export { allFindings, registeredChecks, runGate, type GateOptions, type GateResult } from './gate/gate.ts';
export { render as renderReport } from './gate/report/formats/index.ts';
export { runPolicy } from './gate/runner.ts';
export { ADMISSION_CHECK_IDS } from './checks/admission/index.ts';
export { buildGate } from './build.mjs';

// Snapshot what each Application applies (the rendered diff).
export { snapshot, type Snapshot } from './gate/snapshot.ts';
export { ruleViolations } from './admission/cel/crd-rules.ts';
export * as conformance from './admission/upstream/conformance.ts';

// Generated documentation: the check table, the sync waves, docs/invariants.md.
export { checkTable, withBlock, withCheckTable } from './gate/report/check-table.ts';
export { WAVES_END, WAVES_START, wavesTable } from './gate/report/waves-table.ts';
export { INVARIANTS_FILE, invariantsDoc } from './gate/report/invariants-doc.ts';

// What the model knows that the operator's scripts act on.
export { loadTargets, type Target, type EtcdTarget, type PostgresTarget, type SqliteTarget } from './model/apps/backup-targets.ts';
export { CATALOG_DIR, CATALOG_EXEMPTIONS, THIS_REPOSITORY } from './model/monitoring/metrics-catalog.ts';
export { extractAll, isExtractor } from './model/monitoring/metrics-extract.ts';
export { externalPeers } from './model/cluster/network-reach.ts';
export { privilegeLabel, privilegesOf } from './model/cluster/privileges.ts';
export { cniApplication } from './model/cluster/cni-application.ts';
export { byRequiredApis } from './model/argocd/app-declarations.ts';
