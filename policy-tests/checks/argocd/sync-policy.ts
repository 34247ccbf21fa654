/**
 * argocd-sync-policy: every Application is processed and syncs itself, so main is what runs. The controller must
 * reach it (its namespace, no skip-reconcile), its automated sync must be on with prune and selfHeal and a retry Argo
 * CD reads, and its comparison must be able to run: a jq expression of ignoreDifferences that does not compile stops
 * it before anything is compared.
 */
import { argocdNamespace, filesOfApp, refusesWipeOut, namespaceOrDestination, sourceType, syncOptions, type ArgoApp } from '../../model/argocd/argocd.ts';
import { uncompiledJq, uncompiledJqOverrides } from '../../model/compare/ignore-differences.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { ARGOCD_CM_PATCH, argocdSettings, settingsPlace } from '../../model/controller/resource-filter.ts';
import { overrideProblems } from '../../model/compare/resource-overrides.ts';
import { retryProblems } from '../../model/controller/retry.ts';
import { dig } from '../../model/core/dig.ts';
import {
  clusterSecretWriters,
  clusterSkipsReconcile,
  destinationCluster,
  knownClusters,
  SKIP_RECONCILE,
  TARGET_METADATA,
} from '../../model/argocd/clusters.ts';
import { goParseBool } from '../../model/core/text.ts';
import { matchStringInList } from '../../model/core/glob.ts';
import { cmdParamsList } from '../../model/argocd/refusals.ts';
import { appNamespacePermitted } from '../../model/controller/projects.ts';
import { APP_KINDS, appsOf } from './argocd.ts';

/**
 * With RespectIgnoreDifferences=true, a sync keeps the cluster's value of each field its ignoreDifferences names on an
 * object that exists (controller/sync.go normalizeTargetResources): the repository's value there reaches the cluster
 * only when the object is created, so the gate's verdict on it is not the cluster's.
 */
function respectedDifferences(ctx: CheckContext, app: ArgoApp): void {
  if (!syncOptions(app).includes('RespectIgnoreDifferences=true')) return;
  const entries = dig(app.resource.object, ['spec', 'ignoreDifferences']);
  (Array.isArray(entries) ? entries : []).forEach((entry: Record<string, unknown>, i) => {
    const target = [entry.group, entry.kind, entry.namespace, entry.name].filter((v) => typeof v === 'string' && v !== '').join('/');
    ctx.notJudged(
      { resource: app.resource, path: ['spec', 'ignoreDifferences', i] },
      `Application ${app.name} keeps the cluster's value of what this ignoreDifferences entry names on ${target || 'its objects'} (RespectIgnoreDifferences=true): the repository's value reaches an object only when it is created, and the gate judges the repository's`,
    );
  });
}

/** What mends a jq expression Argo CD cannot compile. */
const JQ_FIX = 'write the expression so that jq compiles del(<expression>)';

/**
 * What stops Argo CD comparing an app. argocd-cm's resource overrides it cannot load (model/compare/resource-overrides.ts)
 * stop every comparison ("Basic comparison settings cannot be loaded"). A jq expression of ignoreDifferences that it
 * cannot compile (gojq, as `del(<expression>)`) fails the Application's comparison (util/argo/diff StateDiffs: a
 * ComparisonError), and one in argocd-cm's overrides every Application's; compiled with jq before the checks run
 * (model/compare/jq.ts). Either way the sync status is Unknown, and no automated sync starts.
 */
function uncomparable(ctx: CheckContext, apps: readonly ArgoApp[]): void {
  const cause = (u: { expression: string; error: string }) =>
    `the ignoreDifferences jq expression ${JSON.stringify(u.expression)} does not compile (${u.error})`;
  for (const app of apps)
    for (const u of uncompiledJq(app.resource.object.spec))
      if ('path' in u.at)
        ctx.fail(
          { resource: app.resource, path: ['spec', ...u.at.path] },
          `Application ${app.name}: ${cause(u)}: Argo CD cannot compare the app (ComparisonError), so it never syncs`,
          JQ_FIX,
        );
  const settings = argocdSettings(ctx.resources, ctx.repo);
  const fail = (key: string, message: string, fix: string) => {
    const place = settingsPlace(settings, ['data', key], 'key');
    if (place) ctx.fail(place, message, fix);
  };
  const broken = overrideProblems(settings?.data ?? {});
  for (const { key, problem } of broken)
    fail(
      key,
      `argocd-cm's ${key} ${problem}: Argo CD cannot load its resource overrides, so it compares no Application ("Basic comparison settings cannot be loaded"): every app's status is Unknown, and none syncs`,
      `write ${key} as Argo CD's settings read it`,
    );
  if (broken.length) return;
  for (const u of uncompiledJqOverrides(settings?.data))
    if ('key' in u.at) fail(u.at.key, `argocd-cm's ${u.at.key}: ${cause(u)}: Argo CD cannot compare any Application (ComparisonError), so none syncs`, JQ_FIX);
}

/**
 * A cluster Secret annotated skip-reconcile: the controller processes no Application whose destination resolves to
 * that cluster (canProcessApp, IsManagedCluster), the root app among them where it is the local cluster. Said once, at
 * the Secret, naming the Applications it stops.
 */
/**
 * An app every source of which renders, and renders nothing but hooks (or every source of which is a `ref` alone, which
 * the repo-server skips: "Skipping manifest generation for ref only source"), whose automated sync prunes without allowEmpty:
 * where it manages anything, Argo CD skips that sync (appcontroller.go autoSync: "auto-sync will wipe out all
 * resources"), so what it runs stays as it was. A warning, since whether it manages anything is the cluster's.
 */
function rendersNothing(ctx: CheckContext, apps: readonly ArgoApp[]): void {
  for (const app of apps) {
    if (!refusesWipeOut(app)) continue;
    const renders = ctx.renders.filter((r) => r.app.name === app.name);
    // The repo-server skips a ref alone only among `sources` (HasMultipleSources).
    const onlyRefs = app.sources.length > 0 && app.sources.every((s) => s.at[1] === 'sources' && sourceType(ctx.repo, s) === 'ref');
    if (!onlyRefs && (renders.length === 0 || renders.some((r) => r.status !== 'rendered') || filesOfApp(ctx.repo, app).length > 0)) continue;
    if (renders.some((r) => r.resources.some((x) => !x.rendered?.hook))) continue;
    ctx.warn(
      { resource: app.resource, path: ['spec', 'syncPolicy', 'automated'] },
      `Application ${app.name} renders nothing: where it manages anything, Argo CD skips its automated sync, which prunes without allowEmpty ("auto-sync will wipe out all resources"), so what it runs stays as it is; to remove it all, delete the Application or set allowEmpty: true`,
      'delete the Application to remove what it runs, or set allowEmpty: true',
    );
  }
}

function skippedClusters(ctx: CheckContext, apps: readonly ArgoApp[]): void {
  // A cluster Secret an ExternalSecret writes in Argo CD's namespace carries its template's annotations; which cluster
  // it declares is the store's.
  for (const r of clusterSecretWriters(ctx.repo, ctx.resources)) {
    const value = dig(r.object, [...TARGET_METADATA, 'annotations', SKIP_RECONCILE]);
    if (goParseBool(value) === true)
      ctx.fail(
        { resource: r, path: [...TARGET_METADATA, 'annotations', SKIP_RECONCILE] },
        `ExternalSecret ${r.name} writes a cluster Secret annotated ${SKIP_RECONCILE}: "${String(value)}": Argo CD's controller processes no Application that syncs to the cluster it declares (which the store holds)`,
        `drop the ${SKIP_RECONCILE} annotation from the ExternalSecret's template`,
      );
  }
  const { clusters } = knownClusters(ctx.repo, ctx.resources);
  for (const cluster of clusters) {
    if (!cluster.secret || !clusterSkipsReconcile(cluster)) continue;
    const stopped = apps.filter((a) => destinationCluster(a, clusters)?.server === cluster.server).map((a) => a.name);
    if (stopped.length === 0) continue;
    const value = String(dig(cluster.secret.object, ['metadata', 'annotations', SKIP_RECONCILE]));
    ctx.fail(
      { resource: cluster.secret, path: ['metadata', 'annotations', SKIP_RECONCILE] },
      `the cluster Secret of ${cluster.server} is annotated ${SKIP_RECONCILE}: "${value}": Argo CD's controller processes no Application that syncs to it, so nothing of ${stopped.length} of them syncs (${stopped.slice(0, 5).join(', ')}${stopped.length > 5 ? ', ...' : ''})`,
      `drop the ${SKIP_RECONCILE} annotation from the cluster Secret`,
    );
  }
}

export const argocdSyncPolicyCheck: PolicyCheck = {
  id: 'argocd-sync-policy',
  description:
    "Every Application is processed and syncs automatically: it lives in the controller's namespace, or in one argocd-cmd-params-cm's application.namespaces names and its project's sourceNamespaces permit (globs or /regexes/, as Argo CD matches them), is not left unreconciled (skip-reconcile, on the Application or on the cluster Secret of its destination), and syncs itself (automated, not switched off by enabled: false) with prune and selfHeal, and a retry strategy that retries a failed sync, and Argo CD can compare it (argocd-cm's resource overrides and compare options read as Argo CD reads them, every jq expression of an ignoreDifferences compiles), so main is what runs; an app that renders nothing under a prune without allowEmpty is a warning, since Argo CD then skips its sync (invariants P1).",
  invariants: ['P1'],
  remediation:
    "set spec.syncPolicy.automated: {prune: true, selfHeal: true}, without enabled: false, and leave retry at its default or give it a limit and durations Argo CD reads; keep the Application in Argo CD's namespace, without skip-reconcile on it or on its cluster's Secret; write each ignoreDifferences jq expression so that jq compiles del(<expression>), and each argocd-cm resource.customizations key as Argo CD's settings read it",
  reads: { kinds: [...APP_KINDS, 'AppProject', 'ConfigMap', 'Secret', 'ExternalSecret'], files: [ARGOCD_CM_PATCH], renders: true },
  exemptible: false,
  run(ctx) {
    uncomparable(ctx, appsOf(ctx));
    skippedClusters(ctx, appsOf(ctx));
    rendersNothing(ctx, appsOf(ctx));
    // The controller's namespace is the root app's: bootstrapped there, it is the one Application Argo CD surely processes.
    const home = argocdNamespace(ctx.repo);
    // ARGOCD_APPLICATION_NAMESPACES, as the controller's Deployment reads it.
    const enabled = cmdParamsList(ctx.repo, 'application.namespaces');
    const projects = ctx.resources.filter((r) => r.kind === 'AppProject' && namespaceOrDestination(ctx.repo, r) === home);
    for (const app of appsOf(ctx)) {
      const skip = dig(app.resource.object, ['metadata', 'annotations', SKIP_RECONCILE]);
      if (goParseBool(skip) === true)
        ctx.fail(
          { resource: app.resource, path: ['metadata', 'annotations', SKIP_RECONCILE] },
          `Application ${app.name} is annotated ${SKIP_RECONCILE}: "${String(skip)}": Argo CD's controller never reconciles it, so nothing of it syncs`,
          `drop the ${SKIP_RECONCILE} annotation`,
        );
      const namespace = namespaceOrDestination(ctx.repo, app.resource);
      if (home !== undefined && namespace !== undefined && namespace !== home) {
        const where = { resource: app.resource, path: ['metadata', 'namespace'] };
        if (!matchStringInList(enabled, namespace))
          ctx.fail(
            where,
            `Application ${app.name} lives in namespace ${namespace}: Argo CD's controller processes the Applications of its own namespace, ${home}, and of those application.namespaces (argocd-cmd-params-cm) names${enabled.length ? ` (${enabled.join(', ')})` : ', none here'}`,
            `move the Application to namespace ${home}, or let the controller watch ${namespace} (argocd-cmd-params-cm application.namespaces)`,
          );
        else if (
          !appNamespacePermitted(
            projects.find((p) => p.name === app.project),
            namespace,
            home,
          )
        )
          ctx.fail(
            { resource: app.resource, path: ['spec', 'project'] },
            `Argo CD never syncs Application ${app.name}: application '${app.name}' in namespace '${namespace}' is not permitted to use project '${app.project}' (its sourceNamespaces do not name ${namespace})`,
            `add ${namespace} to the sourceNamespaces of AppProject ${app.project}, or move the Application to namespace ${home}`,
          );
      }
      if (!app.automated)
        ctx.fail(
          { resource: app.resource, path: ['spec', 'syncPolicy'] },
          `Application ${app.name} has no automated sync`,
          'set spec.syncPolicy.automated: {prune: true, selfHeal: true}',
        );
      else if (!app.automated.enabled)
        ctx.fail(
          { resource: app.resource, path: ['spec', 'syncPolicy', 'automated', 'enabled'] },
          `Application ${app.name} switches its automated sync off (enabled: false): Argo CD syncs it only when a person asks`,
          'drop enabled: false',
        );
      else {
        if (!app.automated.prune)
          ctx.fail({ resource: app.resource, path: ['spec', 'syncPolicy', 'automated', 'prune'] }, `Application ${app.name} does not prune`, 'set prune: true');
        if (!app.automated.selfHeal)
          ctx.fail(
            { resource: app.resource, path: ['spec', 'syncPolicy', 'automated', 'selfHeal'] },
            `Application ${app.name} does not self-heal`,
            'set selfHeal: true',
          );
      }
      for (const { path, problem } of retryProblems(app.resource.object))
        ctx.fail(
          { resource: app.resource, path },
          `Application ${app.name}: ${problem}`,
          'leave retry at its default, or give it a limit and durations Argo CD reads',
        );
      respectedDifferences(ctx, app);
    }
  },
};
