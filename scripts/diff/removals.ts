/**
 * What the sync does with an object the change removes. Where its Application stays, that app's sync prunes it, or
 * leaves it (facts.pruneOutcome). Where the change deletes the whole Application, the app's own prune setting plays no
 * part. Its parent's sync prunes the Application, or its ApplicationSet's controller deletes it, and then the
 * Application's finalizer decides (facts.onApplicationDeletion). A parent that keeps the Application keeps what it runs.
 */
import { facts, type Snapshot } from '../../policy-tests/index.ts';
import { idParts, type Entry } from './refusals.ts';

export type RemovalOutcome = ReturnType<typeof facts.pruneOutcome> | ReturnType<typeof facts.onApplicationDeletion> | 'application kept' | 'wipe-out refused';

/**
 * The Applications whose automated sync Argo CD skips at the head: one that renders nothing there (hooks aside), yet
 * managed objects at the base, and whose sync prunes without allowEmpty (appcontroller.go autoSync: "auto-sync will
 * wipe out all resources").
 */
function refusingWipeOut(base: Snapshot, head: Snapshot): Set<string> {
  const apps = (s: Snapshot) => new Set([...s.objects.values()].filter((e) => !facts.isHookOrSkipped(e.object)).map((e) => e.app));
  const [managing, rendering] = [apps(base), apps(head)];
  return new Set([...(head.refusesWipeOut ?? [])].filter((app) => managing.has(app) && !rendering.has(app) && !head.unrendered?.has(app)));
}

/** The outcome of each removed object of `base`, by id, worked out with both snapshots. */
export function removalOutcomes(base: Snapshot, head: Snapshot): (id: string, was: Entry) => RemovalOutcome {
  // Each Application of the base as an object of its parent, and the names the head still has.
  const applications = new Map<string, Entry>();
  for (const [id, entry] of base.objects) {
    const { kind, name } = idParts(id);
    if (kind === 'Application') applications.set(name, entry);
  }
  const kept = new Set([...head.objects.keys()].filter((id) => idParts(id).kind === 'Application').map((id) => idParts(id).name));
  const refusing = refusingWipeOut(base, head);
  return (id, was) => {
    const pruned = facts.pruneOutcome(was.object, was.syncOptions ?? [], was.prune);
    const { app, kind, name } = idParts(id);
    if (pruned === 'deleted' && refusing.has(app)) return 'wipe-out refused';
    const own = applications.get(app);
    // The Application stays (or is the root app, which no app applies), or the object is a hook none deletes.
    if (!own || kept.has(app) || pruned === 'never pruned') return pruned;
    if (!holderRemoves(own, base.restrained?.get(app))) return 'application kept';
    return facts.onApplicationDeletion(was.object, { object: own.object, name: app, syncOptions: was.syncOptions ?? [] }, { kind, name });
  };
}

/**
 * Whether what holds an Application removes it from the cluster once it holds it no more: an ApplicationSet's
 * controller deletes one it made unless its policy keeps it; a parent app's sync prunes one it applied as it prunes
 * any object. `own` is the Application as an object of its holder, `policy` its ApplicationSet's policy.
 */
export function holderRemoves(own: Entry, policy: string | undefined): boolean {
  if (own.madeBy) return facts.policyAllows(policy).delete;
  return facts.pruneOutcome(own.object, own.syncOptions ?? [], own.prune) === 'deleted';
}

/** Whether a removed object goes from the cluster: its app prunes it, or its Application's deletion takes it. */
export const isDeletion = (outcome: RemovalOutcome | undefined): boolean => outcome === 'deleted' || outcome === 'deleted with its app';

/** What is left of an Application the change deletes whole, or keeps: no sync of its own says OutOfSync of it then. */
const APP_GONE = new Set<RemovalOutcome>(['orphaned', 'kept on deletion', 'application kept']);

/** Why a removed object stays in the cluster, by what the sync does with it. */
const LEFT_BECAUSE: Partial<Record<RemovalOutcome, (app: string) => string>> = {
  'requires pruning': (app) => `app ${app}'s automated sync does not prune (syncPolicy.automated.prune is not true)`,
  'no prune': (app) => `Prune=false (on the object, or in app ${app}'s syncOptions) keeps every sync from deleting it`,
  orphaned: (app) =>
    `app ${app} is deleted, and without a resources finalizer Argo CD deletes the Application alone: what it ran stays, orphaned, managed by nothing`,
  'kept on deletion': (app) =>
    `app ${app} is deleted and its resources finalizer deletes what it runs, but not this (Delete=false, Helm's resource-policy keep, or a CRD): it stays, managed by nothing`,
  'wipe-out refused': (app) =>
    `app ${app} now renders nothing, and its automated sync refuses to prune every resource it manages ("auto-sync will wipe out all resources"; syncPolicy.automated.allowEmpty is not true): it syncs nothing`,
  'application kept': (app) =>
    `app ${app} leaves the repository, but what applied it does not delete it (no automated prune, Prune=false, or its ApplicationSet's policy): the Application stays, and runs it as before`,
};

/** The `not-pruned` reason for a removed object the change leaves in the cluster; none where it goes. */
export function leftReason(label: string, app: string, outcome: RemovalOutcome | undefined): string | undefined {
  const left = outcome && LEFT_BECAUSE[outcome];
  if (!left) return undefined;
  return APP_GONE.has(outcome)
    ? `${label} is no longer in the repository, but it is left in the cluster as it is: ${left(app)}`
    : `${label} is no longer in the repository, but the sync leaves it in the cluster as it is: ${left(app)}; the app stays OutOfSync until someone deletes it`;
}
