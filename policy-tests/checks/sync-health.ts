/**
 * sync-health: what Argo CD waits for becomes healthy on its own. gitops-engine applies a sync one (phase, wave)
 * step at a time and waits for each step's resources to be Healthy (sync_context.go: Degraded fails, anything else
 * waits), and an Application's health is its worst resource's (controller/health.go), which the root app waits on
 * wave by wave. An object that stays Progressing or Suspended by what the repository writes holds its app's sync,
 * and the root app's later waves, for good.
 */
import { namespaceOrDestination, podRefs } from '../model/cluster/references.ts';
import { placeOf, SYNC_PHASES, type SyncPosition } from '../model/controller/waves.ts';
import type { Area, PolicyCheck } from '../model/checks/kit.ts';
import { dig } from '../model/core/dig.ts';
import type { Resource } from '../model/core/manifest.ts';

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
  reads: { kinds: SUSPENDED.map((s) => s.kind) },
  exemptible: false,
  run(ctx) {
    for (const r of ctx.resources) {
      const rule = SUSPENDED.find((s) => s.kind === r.kind);
      if (rule && dig(r.object, ['spec', rule.field]) === true) {
        const at = placeOf(ctx.repo, r);
        ctx.fail(
          { resource: r, path: ['spec', rule.field] },
          `${r.kind} ${r.name}: ${rule.says}; ${at.app ? `${at.app.name}'s sync waits for it, and the app is Suspended` : "the root app's sync waits for it"}, so the root app's later waves never come`,
        );
      }
    }
  },
};

export const syncHealthArea: Area = { name: 'sync-health', checks: () => [syncFirstConsumerCheck, syncSuspendedCheck] };
