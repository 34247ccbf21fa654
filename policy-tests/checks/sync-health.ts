/**
 * sync-health: what Argo CD waits for becomes healthy on its own. gitops-engine applies a sync one (phase, wave)
 * step at a time and waits for each step's resources to be Healthy (sync_context.go: Degraded fails, anything else
 * waits), and an Application's health is its worst resource's (controller/health.go), which the root app waits on
 * wave by wave. An object that stays Progressing or Suspended by what the repository writes holds its app's sync,
 * and the root app's later waves, for good.
 */
import { namespaceOrDestination, podRefs, type PodRef } from '../model/cluster/references.ts';
import { ARGOCD_CM_PATCH, argocdSettings, customHealth } from '../model/controller/resource-filter.ts';
import { isHookOrSkipped } from '../model/controller/hooks.ts';
import { isDefaultStorageClass } from '../model/cluster/providers.ts';
import { placeOf, SYNC_PHASES, type SyncPosition } from '../model/controller/waves.ts';
import { chartValues, type ChartValues } from '../model/helm/chart-values.ts';
import type { Area, CheckContext, FailurePlace, PolicyCheck } from '../model/checks/kit.ts';
import { dig } from '../model/core/dig.ts';
import { groupOf, type Resource } from '../model/core/manifest.ts';
import type { Path } from '../model/core/positions.ts';

/** What each check reads beyond its kinds: argocd-cm, for a health check of its own that replaces the built-in one. */
const SETTINGS = { kinds: ['ConfigMap'], files: [ARGOCD_CM_PATCH] };

/**
 * Whether the built-in health check decides for an object: where argocd-cm gives its kind one of its own, what Argo
 * CD waits for is that script's, and the check says so, not judged. argocd-cm is read once per run.
 */
function builtinHealthOf(ctx: CheckContext): (r: Resource, place: FailurePlace) => boolean {
  const settings = argocdSettings(ctx.resources, ctx.repo);
  return (r, place) => {
    if (!customHealth(settings, groupOf(r.apiVersion), r.kind)) return true;
    ctx.notJudged(place, `argocd-cm gives ${r.kind} a health check of its own: whether Argo CD's sync waits on ${r.name} is that script's to say, not read`);
    return false;
  };
}

/**
 * The class a claim is provisioned by: the one it names, or, where it names none (and not ""), the cluster's default,
 * when the repository's defaults agree on one.
 */
function classOf(claim: Resource, classes: readonly Resource[]): Resource | undefined {
  const named = dig(claim.object, ['spec', 'storageClassName']);
  if (named === '') return undefined; // "" binds statically, to a volume with no class
  if (typeof named === 'string') return classes.find((c) => c.name === named);
  const defaults = classes.filter((c) => isDefaultStorageClass(c.object));
  return defaults.length === 1 ? defaults[0] : undefined;
}

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
  reads: {
    kinds: [
      'PersistentVolumeClaim',
      'StorageClass',
      'Pod',
      'Deployment',
      'StatefulSet',
      'DaemonSet',
      'ReplicaSet',
      'Job',
      'CronJob',
      'Application',
      ...SETTINGS.kinds,
    ],
    files: SETTINGS.files,
  },
  exemptible: false,
  run(ctx) {
    const builtinHealth = builtinHealthOf(ctx);
    const { repo } = ctx;
    const classes = ctx.resources.filter((r) => r.kind === 'StorageClass');
    // Read only where a claim waits: most clusters bind at once, and then the pods' mounts need not be read.
    let mounts: PodRef[] | undefined;
    for (const claim of ctx.resources.filter((r) => r.kind === 'PersistentVolumeClaim' && !isHookOrSkipped(r.object))) {
      if (dig(claim.object, ['spec', 'volumeName'])) continue; // bound by name: it waits for no consumer
      const storageClass = classOf(claim, classes);
      const named = dig(claim.object, ['spec', 'storageClassName']);
      if (!storageClass && typeof named === 'string' && named !== '')
        ctx.notJudged(
          { resource: claim, path: ['spec', 'storageClassName'] },
          `StorageClass ${named} is not in the repository: whether it binds PersistentVolumeClaim ${claim.name} at its first consumer, which Argo CD's sync would wait for, is not read`,
        );
      if (dig(storageClass?.object, ['volumeBindingMode']) !== 'WaitForFirstConsumer') continue;
      mounts ??= podRefs(repo, ctx.resources).filter((ref) => ref.kind === 'PersistentVolumeClaim');
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
      const place = { resource: claim, path: dig(claim.object, ['spec', 'storageClassName']) === undefined ? ['spec'] : ['spec', 'storageClassName'] };
      if (!builtinHealth(claim, place)) continue;
      ctx.fail(
        place,
        `PersistentVolumeClaim ${claim.name} waits for its first consumer (StorageClass ${storageClass!.name}: WaitForFirstConsumer), and ${why}: it stays Pending, Argo CD counts it Progressing, and ${at.app ? `${at.app.name}'s sync` : "the root app's sync"} waits for it`,
      );
    }
  },
};

/** What the health checks of gitops-engine (health_deployment.go, health_job.go) call Suspended, by what the object says. */
const SUSPENDED: readonly { kind: string; field: string; says: string }[] = [
  { kind: 'Deployment', field: 'paused', says: 'a paused Deployment is Suspended: its rollout waits for a person to resume it' },
  { kind: 'Job', field: 'suspend', says: 'a suspended Job is Suspended: it starts no pod until a person resumes it' },
];

export const syncSuspendedCheck: PolicyCheck = {
  id: 'sync-suspended',
  description:
    "Nothing the repository writes is Suspended to Argo CD by its own spec (a Deployment's spec.paused, a Job's spec.suspend): Argo CD's sync waits for Healthy, and an app holding one is Suspended, which the root app's waves wait past forever (invariants P1).",
  invariants: ['P1'],
  remediation: 'drop spec.paused or spec.suspend; scale a Deployment to zero, or suspend a CronJob (Argo CD counts that Healthy), to stop it',
  reads: { kinds: [...SUSPENDED.map((s) => s.kind), ...SETTINGS.kinds], files: SETTINGS.files },
  exemptible: false,
  run(ctx) {
    const builtinHealth = builtinHealthOf(ctx);
    for (const r of ctx.resources) {
      const rule = SUSPENDED.find((s) => s.kind === r.kind);
      if (!rule || dig(r.object, ['spec', rule.field]) !== true) continue;
      const place = { resource: r, path: ['spec', rule.field] };
      if (builtinHealth(r, place)) {
        const at = placeOf(ctx.repo, r);
        ctx.fail(
          place,
          `${r.kind} ${r.name}: ${rule.says}; ${at.app ? `${at.app.name}'s sync waits for it, and the app is Suspended` : "the root app's sync waits for it"}, so the root app's later waves never come`,
        );
      }
    }
  },
};

/** The flags by which Traefik writes an address into the status of the Ingresses it serves (ingressEndpoint). */
const PUBLISHES = [
  '--providers.kubernetesingress.ingressendpoint.publishedservice=',
  '--providers.kubernetesingress.ingressendpoint.ip=',
  '--providers.kubernetesingress.ingressendpoint.hostname=',
];
const INGRESS_PROVIDER = '--providers.kubernetesingress';
const CLASS_FLAG = '--providers.kubernetesingress.ingressClass=';

/** The container args of a workload's pod template, each container's in turn. */
function argsOf(r: Resource): { args: string[]; at: Path }[] {
  const containers = dig(r.object, ['spec', 'template', 'spec', 'containers']);
  return (Array.isArray(containers) ? containers : []).map((c: Record<string, unknown>, i) => ({
    args: Array.isArray(c.args) ? c.args.filter((a): a is string => typeof a === 'string') : [],
    at: ['spec', 'template', 'spec', 'containers', i, 'args'],
  }));
}

/** The class an Ingress asks for, by field or by the old annotation. */
const ingressClass = (r: Resource): string | undefined => {
  const named = dig(r.object, ['spec', 'ingressClassName']) ?? dig(r.object, ['metadata', 'annotations', 'kubernetes.io/ingress.class']);
  return typeof named === 'string' ? named : undefined;
};

/**
 * How a Traefik source stands on the status of its Ingresses, and which class it serves: from its rendered
 * Deployment's flags where the chart is rendered, else from its values; `publishes` undefined where the chart's own
 * default decides, unread.
 */
function traefikStatus(ctx: CheckContext, v: ChartValues): { className?: string; publishes?: boolean; place: FailurePlace } {
  const rendered = ctx.resources.filter((r) => r.rendered?.app === v.appName && (r.kind === 'Deployment' || r.kind === 'DaemonSet'));
  for (const workload of rendered)
    for (const { args, at } of argsOf(workload)) {
      if (!args.includes(INGRESS_PROVIDER)) continue;
      const className = args.find((a) => a.startsWith(CLASS_FLAG))?.slice(CLASS_FLAG.length);
      return { className, publishes: args.some((a) => PUBLISHES.some((p) => a.startsWith(p))), place: { resource: workload, path: at } };
    }
  const provider = (dig(v.values, ['providers', 'kubernetesIngress']) ?? {}) as Record<string, unknown>;
  const endpoint = (provider.ingressEndpoint ?? {}) as Record<string, unknown>;
  const off = dig(provider, ['publishedService', 'enabled']) === false && !endpoint.ip && !endpoint.hostname;
  return {
    ...(typeof provider.ingressClass === 'string' ? { className: provider.ingressClass } : {}),
    ...(off ? { publishes: false } : {}),
    place: { data: v.source, path: ['providers', 'kubernetesIngress', 'publishedService', 'enabled'] },
  };
}

export const syncIngressStatusCheck: PolicyCheck = {
  id: 'sync-ingress-status',
  description:
    "Argo CD counts an Ingress Healthy only once its status holds an address (health_ingress.go), which its controller writes: every Traefik that serves Ingresses publishes one (providers.kubernetesIngress.publishedService, the chart's default, or an ingressEndpoint), or each of its Ingresses stays Progressing, and with it its app's sync and the root app's later waves (invariants P1).",
  invariants: ['P1'],
  remediation: 'leave providers.kubernetesIngress.publishedService.enabled at the chart default (true), or set an ingressEndpoint ip or hostname',
  reads: { kinds: ['Ingress', 'Deployment', 'DaemonSet', ...SETTINGS.kinds], charts: ['traefik'], files: SETTINGS.files },
  exemptible: false,
  run(ctx) {
    const builtinHealth = builtinHealthOf(ctx);
    const ingresses = ctx.resources.filter((r) => r.kind === 'Ingress');
    const traefiks = chartValues(ctx.repo, 'traefik').map((v) => ({ app: v.appName, ...traefikStatus(ctx, v) }));
    const serves = (t: { className?: string }, r: Resource) => t.className === undefined || ingressClass(r) === t.className;
    for (const r of ingresses)
      if (!traefiks.some((t) => serves(t, r)))
        ctx.notJudged(
          { resource: r, path: ['spec'] },
          `Ingress ${r.name}${ingressClass(r) ? ` of class ${ingressClass(r)}` : ''} is served by no Traefik of the repository: whether its controller writes the address into its status, which Argo CD's health waits for, is not read`,
        );
    for (const t of traefiks) {
      if (t.publishes !== false) continue;
      const served = ingresses.filter((r) => serves(t, r)).filter((r) => builtinHealth(r, { resource: r, path: ['status'] }));
      if (served.length === 0) continue;
      ctx.fail(
        t.place,
        `Traefik of ${t.app} writes no address into the status of the ${served.length} Ingress(es) it serves${t.className ? ` (class ${t.className})` : ''}: Argo CD counts ${served.length === 1 ? 'it' : 'each'} Progressing for good (${served
          .slice(0, 3)
          .map((r) => r.name)
          .join(', ')}${served.length > 3 ? ', ...' : ''}), and their apps' syncs wait`,
      );
    }
  },
};

export const syncHealthArea: Area = { name: 'sync-health', checks: () => [syncFirstConsumerCheck, syncSuspendedCheck, syncIngressStatusCheck] };
