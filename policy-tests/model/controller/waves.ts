/**
 * Argo CD's order. The root app applies the Application objects (and the
 * namespaces, projects and facts in clusters/home) wave by wave, and with the
 * Application health customization each wave waits until its apps are
 * Healthy. Inside one app's sync, Argo CD orders every resource by phase
 * (PreSync, Sync, PostSync, SyncFail), then wave, then kind, then name, and
 * applies one kind at a time: the resources of one kind go out together, the
 * next kind only once they are applied. Before that, a Namespace moves ahead
 * of the first resource in it, and a CRD ahead of the first resource of its
 * kind, taking that resource's phase and wave.
 *
 * Source: Argo CD's gitops-engine, pkg/sync/sync_tasks.go (syncPhaseOrder,
 * kindOrder, Less, Sort and adjustDeps), sync_context.go (runTasks: "only
 * wait if the type of the next task is different"), syncwaves/waves.go (a
 * wave is the sync-wave annotation, else the helm.sh/hook-weight) and
 * hook/helm/type.go (Helm's pre-* hooks are PreSync, post-* are PostSync).
 */
import {
  annotationCsv,
  annotationSyncOptions,
  applications,
  namespaceOrDestination,
  owningApplication,
  rootApplication,
  type ArgoApp,
} from '../argocd/argocd.ts';
import { groupOf, type Resource, type ScopeLookup } from '../core/manifest.ts';
import { perRepo } from '../repository/per-repo.ts';
import { madeBy } from '../appset/outcomes.ts';
import type { Repo } from '../repository/repo.ts';

export const WAVE_ANNOTATION = 'argocd.argoproj.io/sync-wave';
export const HOOK_ANNOTATION = 'argocd.argoproj.io/hook';
export const HELM_HOOK_ANNOTATION = 'helm.sh/hook';
export const HELM_HOOK_WEIGHT_ANNOTATION = 'helm.sh/hook-weight';

/** gitops-engine's kindOrder (itself Helm's install order); a kind not listed sorts after all of them. */
export const ARGOCD_KIND_ORDER: readonly string[] = [
  'Namespace',
  'NetworkPolicy',
  'ResourceQuota',
  'LimitRange',
  'PodSecurityPolicy',
  'PodDisruptionBudget',
  'ServiceAccount',
  'Secret',
  'SecretList',
  'ConfigMap',
  'StorageClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleList',
  'ClusterRoleBinding',
  'ClusterRoleBindingList',
  'Role',
  'RoleList',
  'RoleBinding',
  'RoleBindingList',
  'Service',
  'DaemonSet',
  'Pod',
  'ReplicationController',
  'ReplicaSet',
  'Deployment',
  'HorizontalPodAutoscaler',
  'StatefulSet',
  'Job',
  'CronJob',
  'IngressClass',
  'Ingress',
  'APIService',
];

/** gitops-engine's syncPhaseOrder. */
export const SYNC_PHASES = ['PreSync', 'Sync', 'PostSync', 'SyncFail'] as const;
export type SyncPhase = (typeof SYNC_PHASES)[number];

export const HELM_HOOK_PHASES: Readonly<Record<string, SyncPhase>> = {
  'pre-install': 'PreSync',
  'pre-upgrade': 'PreSync',
  'post-install': 'PostSync',
  'post-upgrade': 'PostSync',
};

const annotations = (r: Resource) => (r.object.metadata as { annotations?: Record<string, unknown> } | undefined)?.annotations ?? {};
/** Go's strconv.Atoi on a 64-bit build: an optional sign and decimal digits, nothing else, within int64 (`-0` is 0). */
const atoi = (raw: unknown): number | undefined => {
  if (typeof raw !== 'string' || !/^[+-]?\d+$/.test(raw)) return undefined;
  const value = BigInt(raw);
  return value >= -(2n ** 63n) && value < 2n ** 63n ? Number(value) : undefined;
};

/**
 * A sync-wave annotation Argo CD cannot read (syncwaves.Wave: strconv.Atoi fails, on `1.5`, ` 2`, `first`, `0x10`):
 * it then takes the Helm hook weight, else 0, and says nothing. Undefined where there is none or it reads.
 */
export function unreadableWave(r: Resource): string | undefined {
  const raw = annotations(r)[WAVE_ANNOTATION];
  return raw === undefined || atoi(raw) !== undefined ? undefined : typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/** A resource's own sync wave: the sync-wave annotation, else Helm's hook weight, else 0 (as Argo CD reads them). */
export function waveOf(r: Resource): number {
  const a = annotations(r);
  return atoi(a[WAVE_ANNOTATION]) ?? atoi(a[HELM_HOOK_WEIGHT_ANNOTATION]) ?? 0;
}

/** The earliest phase a resource runs in: an Argo CD hook's own, else a Helm hook's, else Sync. */
export function phaseOf(r: Resource): SyncPhase {
  const argo = annotationCsv(r.object, HOOK_ANNOTATION).filter((p): p is SyncPhase => (SYNC_PHASES as readonly string[]).includes(p));
  const helm = annotationCsv(r.object, HELM_HOOK_ANNOTATION).flatMap((h) => (HELM_HOOK_PHASES[h] ? [HELM_HOOK_PHASES[h]] : []));
  const phases = argo.length > 0 ? argo : helm;
  return phases.length === 0 ? 'Sync' : phases.reduce((a, b) => (SYNC_PHASES.indexOf(a) <= SYNC_PHASES.indexOf(b) ? a : b));
}

/** A kind's place in Argo CD's order: listed kinds from -35 up, every other kind 0 (last), as gitops-engine numbers them. */
export function kindRank(kind: string): number {
  const i = ARGOCD_KIND_ORDER.indexOf(kind);
  return i < 0 ? 0 : i - ARGOCD_KIND_ORDER.length;
}

/** Whether a resource asks Argo CD to skip its dry run while its CRD does not exist yet. */
export function skipsDryRunOnMissingResource(r: Resource): boolean {
  return annotationSyncOptions(r.object).includes('SkipDryRunOnMissingResource=true');
}

/** Where one resource sits in its app's sync. */
export interface SyncStep {
  phase: SyncPhase;
  wave: number;
  kind: string;
  /** Its name: the last of what gitops-engine sorts by. */
  name?: string;
  /** A Namespace or CRD gitops-engine moved ahead of its first user: it stands where that user's kind stands. */
  rankAs?: string;
  /** The namespace Argo CD applies it in (its own, else the destination's). */
  namespace?: string;
  /** A core Namespace's name, or a CRD's group/kind (with a `/`): what Argo CD moves ahead of its first user. */
  provides?: string;
  /** The namespace, and the group/kind, it needs first. */
  needs: string[];
}

export interface SyncPosition {
  /** The Application that applies the resource; the root app for clusters/home. */
  app: ArgoApp | undefined;
  /** [wave of the app in the root app, wave inside the app]; a root-app resource has [its wave]. */
  order: number[];
  /** Its place inside its app's sync; absent for an Application as a whole. */
  step?: SyncStep;
  /** An Application an ApplicationSet made, which nothing of the sync that applies the ApplicationSet waits for. */
  unwaited?: boolean;
}

/**
 * A resource's step as its app applies it. Given the cluster's scopes, a cluster-scoped object has no namespace, as
 * Argo CD clears it before the sync; without them, every object is taken to be in its namespace or the destination's.
 */
function stepOf(repo: Repo, r: Resource, scope?: ScopeLookup): SyncStep {
  const clusterScoped = scope !== undefined && (r.kind === 'CustomResourceDefinition' || scope(r.apiVersion, r.kind));
  return syncStep(r, clusterScoped ? undefined : namespaceOrDestination(repo, r));
}

/**
 * Where an object sits in its app's sync, given the namespace Argo CD applies it in: its phase and wave, its kind, and
 * what gitops-engine's adjustDeps moves ahead of it (its namespace, its CRD) or it ahead of others (a Namespace, a CRD).
 * Pure, so gitops-engine's own sort cases judge it (`npm run conformance -- --argocd`).
 */
export function syncStep(r: Resource, namespace: string | undefined): SyncStep {
  const spec = (r.object.spec ?? {}) as { group?: unknown; names?: { kind?: unknown } };
  const provides =
    r.kind === 'Namespace' && groupOf(r.apiVersion) === ''
      ? r.name
      : r.kind === 'CustomResourceDefinition' && typeof spec.group === 'string' && typeof spec.names?.kind === 'string'
        ? `${spec.group}/${spec.names.kind}`
        : undefined;
  return {
    phase: phaseOf(r),
    wave: waveOf(r),
    kind: r.kind,
    name: r.name,
    namespace,
    provides,
    needs: [...(namespace ? [namespace] : []), `${groupOf(r.apiVersion)}/${r.kind}`],
  };
}

/**
 * Each Application's wave in the root app's sync: its own, or for one an ApplicationSet made, the ApplicationSet's
 * (it is created when that is applied), or that of the app applying the ApplicationSet, where another app does.
 */
export const appWaves = perRepo((repo: Repo): Map<string, number> => {
  const root = rootApplication(repo);
  const waves = new Map<string, number>();
  const waveOfApp = (app: ArgoApp, depth = 0): number => {
    const made = madeBy(app.resource);
    if (!made || depth > 8) return waveOf(app.resource);
    const owner = owningApplication(repo, made.set);
    return !owner || owner === root ? waveOf(made.set) : waveOfApp(owner, depth + 1);
  };
  for (const a of applications(repo)) waves.set(a.name, waveOfApp(a));
  return waves;
});

/**
 * Where a resource sits in the sync. Given the cluster's scopes, inside its app as gitops-engine places it among all
 * the app's objects the repository holds (a Namespace or CRD moved ahead of its first user, with its phase and wave);
 * without them, each object's own step, which a check that reads some kinds only is shown.
 */
export function placeOf(repo: Repo, r: Resource, scope?: ScopeLookup): SyncPosition {
  // An Application an ApplicationSet made is created where the ApplicationSet is applied.
  const made = madeBy(r);
  if (made) {
    const at = placeOf(repo, made.set);
    return { app: at.app, order: at.order, ...(at.step ? { step: { ...stepOf(repo, r), wave: at.step.wave } } : {}), unwaited: !made.waited };
  }
  const app = owningApplication(repo, r);
  const root = rootApplication(repo);
  const step = (scope && plannedSteps(repo, scope).get(r)) ?? stepOf(repo, r, scope);
  if (!app || app === root) return { app: root, order: [step.wave], step };
  return { app, order: [appWaves(repo).get(app.name) ?? 0, step.wave], step };
}

/** Strictly before inside one app's sync, in the order gitops-engine sorts and applies its tasks. */
export function stepBefore(a: SyncStep, b: SyncStep): boolean {
  // adjustDeps: a Namespace or a CRD goes ahead of the first resource that needs it, whatever its own phase and wave;
  // so nothing that needs it comes before it.
  if (a.provides !== undefined && b.needs.includes(a.provides)) return true;
  if (b.provides !== undefined && a.needs.includes(b.provides)) return false;
  const phase = SYNC_PHASES.indexOf(a.phase) - SYNC_PHASES.indexOf(b.phase);
  if (phase !== 0) return phase < 0;
  if (a.wave !== b.wave) return a.wave < b.wave;
  // One kind at a time: a kind ranked earlier is applied before; two kinds of the same rank (two kinds
  // Argo CD does not list, or the same kind) may go out together. A moved Namespace or CRD stands at its user's kind.
  const [ka, kb] = [a.rankAs ?? a.kind, b.rankAs ?? b.kind];
  return ka !== kb && kindRank(ka) < kindRank(kb);
}

/** gitops-engine's Less: phase, wave, kind, name. */
function sortsBefore(a: SyncStep, b: SyncStep): number {
  return (
    SYNC_PHASES.indexOf(a.phase) - SYNC_PHASES.indexOf(b.phase) ||
    a.wave - b.wave ||
    kindRank(a.kind) - kindRank(b.kind) ||
    ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : 0)
  );
}

/**
 * One app's steps as gitops-engine's syncTasks.Sort leaves them: sorted, then each Namespace, and after them each CRD,
 * moved to just before the first task that needs it where that task came first, taking its phase and wave (adjustDeps).
 * Returned in the order given, each with its place's phase, wave and kind. Pure, so upstream's own sort cases judge it.
 */
export function adjustedSteps(steps: readonly SyncStep[]): SyncStep[] {
  const order = steps.map((step, at) => ({ step, at })).sort((x, y) => sortsBefore(x.step, y.step));
  const isCrd = (p: string | undefined) => p?.includes('/') === true;
  const passes = [
    { dep: (s: SyncStep) => (s.provides !== undefined && !isCrd(s.provides) ? s.provides : undefined), refs: (s: SyncStep) => s.namespace || undefined },
    { dep: (s: SyncStep) => (isCrd(s.provides) ? s.provides : undefined), refs: (s: SyncStep) => s.needs.at(-1) },
  ];
  for (const { dep, refs } of passes) {
    const first = new Map<string, number>();
    for (let i = 0; i < order.length; i++) {
      const task = order[i]!;
      const key = dep(task.step);
      if (key === undefined) {
        const ref = refs(task.step);
        if (ref !== undefined && !first.has(ref)) first.set(ref, i);
        continue;
      }
      const index = first.get(key);
      if (index === undefined) continue;
      const user = order[index]!.step;
      task.step = { ...task.step, phase: user.phase, wave: user.wave, rankAs: user.rankAs ?? user.kind };
      order.splice(i, 1);
      order.splice(index, 0, task);
      for (const [k, at] of first) if (at >= index) first.set(k, at + 1);
    }
  }
  const out: SyncStep[] = new Array<SyncStep>(steps.length);
  for (const { step, at } of order) out[at] = step;
  return out;
}

/** Each resource's step among its app's, as gitops-engine places it, by the cluster's scopes a run judges with. */
const plans = perRepo((_repo: Repo) => new WeakMap<ScopeLookup, Map<Resource, SyncStep>>());

function plannedSteps(repo: Repo, scope: ScopeLookup): Map<Resource, SyncStep> {
  const known = plans(repo).get(scope);
  if (known) return known;
  const byApp = new Map<ArgoApp | undefined, Resource[]>();
  const root = rootApplication(repo);
  for (const r of repo.resources) {
    if (madeBy(r)) continue; // created where its ApplicationSet is applied, placed there
    const app = owningApplication(repo, r) ?? root;
    const resources = byApp.get(app);
    if (resources) resources.push(r);
    else byApp.set(app, [r]);
  }
  const plan = new Map<Resource, SyncStep>();
  for (const resources of byApp.values()) {
    const adjusted = adjustedSteps(resources.map((r) => stepOf(repo, r, scope)));
    resources.forEach((r, i) => plan.set(r, adjusted[i]!));
  }
  plans(repo).set(scope, plan);
  return plan;
}

/** Strictly before in the sync: inside one app, Argo CD's own order; across apps, the app waves of the root app. */
export function before(a: SyncPosition, b: SyncPosition): boolean {
  if (a.unwaited) return false;
  if (a.app !== undefined && a.app === b.app) {
    if (a.step && b.step) return stepBefore(a.step, b.step);
    return (a.order.at(-1) ?? 0) < (b.order.at(-1) ?? 0);
  }
  // Nothing in the root app's sync waits for an Application an ApplicationSet made (but under a RollingSync): it is before nothing of another app.
  const made = a.app && madeBy(a.app.resource);
  if (made && !made.waited) return false;
  return (a.order[0] ?? 0) < (b.order[0] ?? 0);
}
