/** The front door's `facts`: what the model knows that the operator's scripts act on (backups, the metrics catalog, the diff, bootstrap, fork). */
export { checkoutFacts, CLUSTER_FACTS_NAME, factsKubernetesMinor, factsRepoURL, upgradeOrder, versionMoves } from '../model/repository/cluster-facts.ts';
export { minorStep } from '../model/repository/talos-facts.ts';
export { normalizeRepoURL } from '../model/argocd/argocd.ts';
export { checkoutPaths } from '../model/repository/checkout-paths.ts';
export { loadTargets, type Target, type EtcdTarget, type PostgresTarget, type SqliteTarget } from '../model/apps/backup-targets.ts';
export { CATALOG_DIR, CATALOG_EXEMPTIONS, THIS_REPOSITORY } from '../model/monitoring/metrics-catalog.ts';
export { extractAll, isExtractor } from '../model/monitoring/metrics-extract.ts';
export { LOKI_CHART, LOKI_REFERENCE } from '../model/loki/config.ts';
export { TEMPO_CHART, TEMPO_REFERENCE } from '../model/tempo/config.ts';
export { GLUETUN_REFERENCE } from '../model/apps/gluetun.ts';
export { ALLOY_REFERENCE } from '../model/alloy/components.ts';
export { UNPOLLER_REFERENCE } from '../model/unpoller/reference.ts';
export { TRAEFIK_OPTIONS } from '../model/traefik/options.ts';
export { externalPeers } from '../model/cluster/network-reach.ts';
export { privilegeLabel, privilegesOf } from '../model/cluster/privileges.ts';
export { podSecurityLabelsOf } from '../model/cluster/namespaces.ts';
export { goParseBool } from '../model/core/text.ts';
export { cniApplication } from '../model/cluster/cni-application.ts';
export { isDefaultStorageClass } from '../model/cluster/providers.ts';
// How Argo CD's sync writes an object the cluster holds, and what a refused update then does (the diff's refusals).
export { cascadesDeletion, onApplicationDeletion, onRefusedUpdate, pruneOutcome, syncCommand, syncMethodOf } from '../model/controller/sync-method.ts';
// What a pod template change restarts, and what a running pod sees of a changed ConfigMap or Secret (the diff's rollouts).
export { configReadsOf, ROLLING_KINDS, rolloutOf } from '../model/controller/rollout.ts';
// Which objects a sync compares, and the hooks it runs (the diff's sync runs).
export { deletePolicies, isHookOrSkipped, syncLifecycle } from '../model/controller/hooks.ts';
export { ignoresExtraneous } from '../model/controller/sync-options.ts';
export { statusIsSubresource } from '../model/controller/status-subresource.ts';
export { withLiveValues, withoutPointers } from '../model/compare/ignore-differences.ts';
// What an ApplicationSet's controller may do to the Applications it made (the diff's held-back and move risks).
export { policyAllows, withPreservedMetadata } from '../model/appset/outcomes.ts';
export { byRequiredApis, oneMinorAtATime, upgradesOneMinor } from '../model/argocd/app-declarations.ts';
// An image reference as the registry resolves it (the diff's image risks).
export { imageParts, scaledKey, scaleTargetKey } from '../model/core/workloads.ts';
export { imageKey, repoImageNeeds } from '../model/repository/image-facts.ts';
