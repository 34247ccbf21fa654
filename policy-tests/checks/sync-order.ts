/**
 * sync-order: a provider syncs before its consumers. It reads the same
 * references as the closure checks, and asks of each provider not whether it
 * exists but whether Argo CD applies it first.
 */
import { applications, syncOptions, type ArgoApp } from '../model/argocd/argocd.ts';
import { declaredGroups, requiresLoadBalancer, REQUIRES_CRDS, REQUIRES_LOAD_BALANCER } from '../model/argocd/app-declarations.ts';
import { before, placeOf, skipsDryRunOnMissingResource, SYNC_PHASES, type SyncPosition } from '../model/controller/waves.ts';
import { dig } from '../model/core/dig.ts';
import { groupOf, type Resource } from '../model/core/manifest.ts';
import { type CheckContext, type PolicyCheck, type Area, type CheckEnvironment } from '../model/checks/kit.ts';
import type { ScopeLookup } from '../model/core/manifest.ts';
import { providerOf } from '../model/cluster/providers.ts';
import { ingressRefs, issuerRefs, namespaceOrDestination, namespaceRefs, podRefs, priorityRefs, storageRefs, storeRefs } from '../model/cluster/references.ts';

const describe = (p: SyncPosition) => (p.app ? `${p.app.name} (wave ${p.order.join(', resource wave ')})` : 'the root app');
const appPlace = (a: ArgoApp): SyncPosition => ({
  app: a,
  order: [Number(dig(a.resource.object, ['metadata', 'annotations', 'argocd.argoproj.io/sync-wave']) ?? 0)],
});

/** Each reference's provider, in an earlier wave than the resource that names it. */
function checkReferences(ctx: CheckContext, isClusterScoped: ScopeLookup): void {
  const { repo } = ctx;
  const refs = [
    ...storageRefs(ctx.resources),
    ...ingressRefs(ctx.resources),
    ...storeRefs(ctx.resources),
    ...issuerRefs(ctx.resources),
    ...priorityRefs(ctx.resources),
    ...namespaceRefs(repo, ctx.resources, isClusterScoped),
  ];
  for (const ref of refs) {
    const provider = providerOf(repo, ref);
    if (!provider) continue; // Kubernetes' own, providedOutsideGit, or missing (closure-* says so)
    const [p, c] = [placeOf(repo, provider), placeOf(repo, ref.resource)];
    if (!before(p, c))
      ctx.fail(
        { resource: ref.resource, path: ref.path },
        `${ref.resource.kind} ${ref.resource.name} in ${describe(c)} uses ${ref.kind} ${ref.name}, which ${describe(p)} provides no earlier: it may sync before its provider exists`,
      );
  }
}

/** What apps declare their charts need: the installing app (or the pool's app) in an earlier wave. */
function checkDeclaredNeeds(ctx: CheckContext): void {
  const { repo } = ctx;
  const apps = applications(repo);
  const poolApp = repo.resources
    .filter((r) => r.kind === 'IPAddressPool')
    .map((r) => placeOf(repo, r).app)
    .find(Boolean);
  for (const app of apps) {
    const skips = syncOptions(app).includes('SkipDryRunOnMissingResource=true');
    for (const g of declaredGroups(app, REQUIRES_CRDS)) {
      const from = apps.find((a) => declaredGroups(a).includes(g));
      if (from && from !== app && !skips && !before(appPlace(from), appPlace(app)))
        ctx.fail(
          { resource: app.resource, path: ['metadata', 'annotations', REQUIRES_CRDS] },
          `${app.name} (wave ${appPlace(app).order[0]}) needs the ${g} CRDs app ${from.name} (wave ${appPlace(from).order[0]}) installs, which syncs no earlier`,
        );
    }
    if (poolApp && requiresLoadBalancer(app) && !before(appPlace(poolApp), appPlace(app)))
      ctx.fail(
        { resource: app.resource, path: ['metadata', 'annotations', REQUIRES_LOAD_BALANCER] },
        `${app.name} (wave ${appPlace(app).order[0]}) needs addresses from ${poolApp.name} (wave ${appPlace(poolApp).order[0]}), which syncs no earlier`,
      );
  }
}

/** CRDs: the app that installs a group's CRDs, before every custom resource of that group. */
function checkCrdOrder(ctx: CheckContext): void {
  const { repo } = ctx;
  const apps = applications(repo);
  const installer = new Map<string, ArgoApp>();
  for (const app of apps) for (const g of declaredGroups(app)) installer.set(g, app);
  const reported = new Set<string>();
  for (const r of ctx.resources) {
    const group = groupOf(r.apiVersion);
    const app = installer.get(group);
    // argoproj.io comes with Argo CD itself, installed by hand before the root app exists.
    if (!app || group === 'argoproj.io' || skipsDryRunOnMissingResource(r)) continue;
    const c = placeOf(repo, r);
    if (syncOptions(c.app).includes('SkipDryRunOnMissingResource=true')) continue;
    const p: SyncPosition = {
      app,
      order: [(c.app === app ? c.order[0] : undefined) ?? Number(dig(app.resource.object, ['metadata', 'annotations', 'argocd.argoproj.io/sync-wave']) ?? 0)],
    };
    const same = c.app === app;
    if (!same && before(p, c)) continue;
    const key = `${r.file}#${r.kind}#${group}`;
    if (reported.has(key)) continue;
    reported.add(key);
    ctx.fail(
      { resource: r, path: ['apiVersion'] },
      same
        ? `${r.kind} ${r.name} comes in the same sync as its CRD (app ${app.name}): Argo CD's dry run fails until the CRD exists, unless the resource skips it`
        : `${r.kind} ${r.name} in ${describe(c)} needs the CRDs app ${app.name} installs, which syncs no earlier`,
    );
  }
}

export function syncOrderCheck({ isClusterScoped }: CheckEnvironment): PolicyCheck {
  return {
    id: 'sync-order',
    description:
      'A provider syncs before its consumers: the app that provides a namespace, class, store, issuer or CRD is in an earlier sync wave than every app that uses it (inside one app, an earlier resource wave); a custom resource whose CRD comes in the same sync carries SkipDryRunOnMissingResource=true (invariants P1).',
    invariants: ['P1'],
    remediation:
      'give the providing app (or resource) a lower argocd.argoproj.io/sync-wave than the consumer, or, for a custom resource whose CRD arrives in the same sync, argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true',
    reads: { kinds: ['*'], everyKind: 'every resource has a sync wave, whatever its kind' },
    exemptible: false,
    run(ctx) {
      checkReferences(ctx, isClusterScoped);
      checkDeclaredNeeds(ctx);
      checkCrdOrder(ctx);
    },
  };
}

/** The annotations that mark a storage class the cluster's default (the beta one is still read). */
const DEFAULT_CLASS = ['storageclass.kubernetes.io/is-default-class', 'storageclass.beta.kubernetes.io/is-default-class'];

/**
 * The class a claim is provisioned by: the one it names, or, where it names none (and not ""), the cluster's default,
 * when the repository's defaults agree on one.
 */
function classOf(claim: Resource, classes: readonly Resource[]): Resource | undefined {
  const named = dig(claim.object, ['spec', 'storageClassName']);
  if (named === '') return undefined; // "" binds statically, to a volume with no class
  if (typeof named === 'string') return classes.find((c) => c.name === named);
  const defaults = classes.filter((c) => DEFAULT_CLASS.some((a) => dig(c.object, ['metadata', 'annotations', a]) === 'true'));
  return defaults.length === 1 ? defaults[0] : undefined;
}

const isHook = (r: Resource): boolean => ['argocd.argoproj.io/hook', 'helm.sh/hook'].some((a) => dig(r.object, ['metadata', 'annotations', a]) !== undefined);
/** A workload that runs a pod as soon as it is applied: not a CronJob (its pod comes at its schedule), not one scaled to zero. */
const runsAtOnce = (r: Resource): boolean => r.kind !== 'CronJob' && dig(r.object, ['spec', 'replicas']) !== 0;

/** The (phase, wave) step of a resource inside its app: what gitops-engine waits on between steps. */
const stepIndex = (p: SyncPosition): [number, number] => [SYNC_PHASES.indexOf(p.step?.phase ?? 'Sync'), p.step?.wave ?? 0];
const stepAfter = (a: SyncPosition, b: SyncPosition): boolean => {
  const [x, y] = [stepIndex(a), stepIndex(b)];
  return x[0] !== y[0] ? x[0] > y[0] : x[1] > y[1];
};

/**
 * Whether a consumer mounts the claim no later than Argo CD waits for it: in its own app, in the same (phase, wave)
 * step or an earlier one (gitops-engine applies a step, then waits for its resources' health); in another app, one
 * the root app syncs in the same wave or an earlier one (it waits for each wave's apps to be healthy).
 */
function mountsInTime(claim: SyncPosition, consumer: SyncPosition): boolean {
  if (claim.app !== undefined && claim.app === consumer.app) return !stepAfter(consumer, claim);
  return (consumer.order[0] ?? 0) <= (claim.order[0] ?? 0);
}

export const syncFirstConsumerCheck: PolicyCheck = {
  id: 'sync-first-consumer',
  description:
    "A claim whose storage class waits for its first consumer (volumeBindingMode: WaitForFirstConsumer) stays Pending, which Argo CD counts as Progressing, until a pod that mounts it is scheduled: such a claim has a consumer that runs at once (not a CronJob, not scaled to zero) and is synced no later than Argo CD waits for the claim (its app's same sync wave or an earlier one, or an app of the root app's same wave or an earlier one); else its app's sync, and the root app's later waves, wait for it forever (invariants P1).",
  invariants: ['P1'],
  remediation:
    'give the workload that mounts the claim the same sync wave as the claim (or an earlier one), or a claim of a class that binds at once (volumeBindingMode: Immediate)',
  reads: { kinds: ['PersistentVolumeClaim', 'StorageClass', 'Pod', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Application'] },
  exemptible: false,
  run(ctx) {
    const { repo } = ctx;
    const classes = ctx.resources.filter((r) => r.kind === 'StorageClass');
    const mounts = podRefs(repo, ctx.resources).filter((ref) => ref.kind === 'PersistentVolumeClaim');
    for (const claim of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && !isHook(r))) {
      const storageClass = classOf(claim, classes);
      if (dig(storageClass?.object, ['volumeBindingMode']) !== 'WaitForFirstConsumer' || dig(claim.object, ['spec', 'volumeName'])) continue;
      const namespace = namespaceOrDestination(repo, claim);
      const consumers = mounts.filter((m) => m.name === claim.name && m.namespace === namespace);
      const atOnce = consumers.filter((m) => runsAtOnce(m.resource));
      const at = placeOf(repo, claim);
      if (atOnce.some((m) => mountsInTime(at, placeOf(repo, m.resource)))) continue;
      const why =
        atOnce.length > 0
          ? `every pod that mounts it (${atOnce.map((m) => `${m.resource.kind} ${m.resource.name}`).join(', ')}) syncs after Argo CD waits for the claim`
          : consumers.length > 0
            ? `only ${consumers.map((m) => `${m.resource.kind} ${m.resource.name}`).join(', ')} ${consumers.length === 1 ? 'mounts it, whose pod comes' : 'mount it, whose pods come'} at a schedule or not at all`
            : 'no pod mounts it';
      ctx.fail(
        { resource: claim, path: dig(claim.object, ['spec', 'storageClassName']) === undefined ? ['spec'] : ['spec', 'storageClassName'] },
        `PersistentVolumeClaim ${claim.name} waits for its first consumer (StorageClass ${storageClass!.name}: WaitForFirstConsumer), and ${why}: it stays Pending, Argo CD counts it Progressing, and ${at.app ? `${at.app.name}'s sync` : "the root app's sync"} waits for it`,
      );
    }
  },
};

export const syncOrderArea: Area = { name: 'sync-order', checks: (env) => [syncOrderCheck(env), syncFirstConsumerCheck] };
