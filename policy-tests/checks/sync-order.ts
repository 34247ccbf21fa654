/**
 * sync-order: a provider syncs before its consumers. It reads the same
 * references as the closure checks, and asks of each provider not whether it
 * exists but whether Argo CD applies it first.
 */
import { applications, ROOT_APP_FILE, syncOptions, type ArgoApp } from '../model/argocd/argocd.ts';
import { declaredGroups, requiresLoadBalancer, REQUIRES_CRDS, REQUIRES_LOAD_BALANCER } from '../model/argocd/app-declarations.ts';
import { before, placeOf, skipsDryRunOnMissingResource, unreadableWave, WAVE_ANNOTATION, waveOf, type SyncPosition } from '../model/controller/waves.ts';
import { groupOf } from '../model/core/manifest.ts';
import { type CheckContext, type PolicyCheck, type Area, type CheckEnvironment } from '../model/checks/kit.ts';
import type { ScopeLookup } from '../model/core/manifest.ts';
import { providerOf } from '../model/cluster/providers.ts';
import { ingressRefs, issuerRefs, namespaceRefs, priorityRefs, storageRefs, storeRefs } from '../model/cluster/references.ts';

const describe = (p: SyncPosition) => (p.app ? `${p.app.name} (wave ${p.order.join(', resource wave ')})` : 'the root app');
const appPlace = (a: ArgoApp): SyncPosition => ({
  app: a,
  order: [waveOf(a.resource)],
});

/** A wave Argo CD cannot read: the resource syncs in another wave than written, without a word. */
function checkReadableWaves(ctx: CheckContext): void {
  for (const r of ctx.resources) {
    const raw = unreadableWave(r);
    if (raw !== undefined)
      ctx.fail(
        { resource: r, path: ['metadata', 'annotations', WAVE_ANNOTATION] },
        `${r.kind} ${r.name}'s sync wave "${raw}" is no whole number Argo CD reads (strconv.Atoi): it syncs in wave ${waveOf(r)} instead, without a word`,
      );
  }
}

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
    const [p, c] = [placeOf(repo, provider, isClusterScoped), placeOf(repo, ref.resource, isClusterScoped)];
    if (!before(p, c))
      ctx.fail(
        { resource: ref.resource, path: ref.path },
        `${ref.resource.kind} ${ref.resource.name} in ${describe(c)} uses ${ref.kind} ${ref.name}, which ${describe(p)} provides no earlier: it may sync before its provider exists`,
      );
  }
}

/** What apps declare their charts need: the installing app (or the pool's app) in an earlier wave. */
function checkDeclaredNeeds(ctx: CheckContext, isClusterScoped: ScopeLookup): void {
  const { repo } = ctx;
  const apps = applications(repo);
  const poolApp = repo.resources
    .filter((r) => r.kind === 'IPAddressPool')
    .map((r) => placeOf(repo, r, isClusterScoped).app)
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

/**
 * Projects: Argo CD reconciles no Application whose AppProject does not exist (refreshAppConditions), and the root
 * app waits for each wave's apps to be healthy, so a project the root app applies in a later wave than an app of it
 * never comes. In the same wave it may come a moment after the app, which the controller then picks up.
 */
function checkProjects(ctx: CheckContext, isClusterScoped: ScopeLookup): void {
  const { repo } = ctx;
  for (const app of applications(repo)) {
    if (app.resource.file === ROOT_APP_FILE) continue; // applied by hand after its project (scripts/bootstrap.ts)
    const project = providerOf(repo, { resource: app.resource, path: ['spec', 'project'], kind: 'AppProject', name: app.project });
    if (!project) continue; // argocd-project says so
    const [p, c] = [placeOf(repo, project, isClusterScoped), placeOf(repo, app.resource, isClusterScoped)];
    if ((p.order[0] ?? 0) > (c.order[0] ?? 0))
      ctx.fail(
        { resource: app.resource, path: ['spec', 'project'] },
        `Application ${app.name} (wave ${c.order[0] ?? 0}) is in project ${app.project}, which the root app applies in wave ${p.order[0] ?? 0}: Argo CD reconciles no Application whose project does not exist, and the root app waits for this one before it applies the project`,
      );
  }
}

/** CRDs: the app that installs a group's CRDs, before every custom resource of that group. */
function checkCrdOrder(ctx: CheckContext, isClusterScoped: ScopeLookup): void {
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
    const c = placeOf(repo, r, isClusterScoped);
    if (syncOptions(c.app).includes('SkipDryRunOnMissingResource=true')) continue;
    const p: SyncPosition = {
      app,
      order: [(c.app === app ? c.order[0] : undefined) ?? waveOf(app.resource)],
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
      'Every sync wave is a whole number Argo CD reads, and a provider syncs before its consumers: the app that provides a namespace, class, store, issuer or CRD is in an earlier sync wave than every app that uses it (inside one app, an earlier resource wave); a custom resource whose CRD comes in the same sync carries SkipDryRunOnMissingResource=true; an AppProject comes in no later wave of the root app than its Applications (invariants P1).',
    invariants: ['P1'],
    remediation:
      'give the providing app (or resource) a lower argocd.argoproj.io/sync-wave than the consumer, or, for a custom resource whose CRD arrives in the same sync, argocd.argoproj.io/sync-options: SkipDryRunOnMissingResource=true',
    reads: { kinds: ['*'], everyKind: 'every resource has a sync wave, whatever its kind' },
    exemptible: false,
    run(ctx) {
      checkReadableWaves(ctx);
      checkReferences(ctx, isClusterScoped);
      checkDeclaredNeeds(ctx, isClusterScoped);
      checkCrdOrder(ctx, isClusterScoped);
      checkProjects(ctx, isClusterScoped);
    },
  };
}

export const syncOrderArea: Area = { name: 'sync-order', checks: (env) => [syncOrderCheck(env)] };
