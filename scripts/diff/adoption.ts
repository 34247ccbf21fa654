/**
 * An Application that moves from an app's own manifests into an ApplicationSet. The app that synced it no longer
 * renders it, so that app's automated sync prunes it: gitops-engine prunes what an app manages and no longer renders,
 * and it manages a live object with no owner reference (GetManagedLiveObjs). The ApplicationSet's controller adopts the
 * Application by setting its owner reference, and only an adopted one is spared. The two race within the same sync.
 * Where the old app's prune comes first, the resources finalizer deletes everything the Application runs, before the
 * controller makes it again.
 */
import { facts, type Snapshot } from '../../policy-tests/index.ts';
import { idParts, objectLabel } from './refusals.ts';

const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';

/** A risk of the `delete` flag, for review, on each Application the base's app would prune as it moves. */
export interface AdoptionRisk {
  app: string;
  id: string;
  flag: 'delete';
  level: 'review';
  reason: string;
}

export function adoptionRisks(base: Snapshot, head: Snapshot): AdoptionRisk[] {
  const made = new Map<string, string>();
  for (const [id, entry] of head.objects) {
    const { kind, namespace, name } = idParts(id);
    if (kind === 'Application' && entry.madeBy) made.set(`${namespace}/${name}`, entry.madeBy);
  }
  const out: AdoptionRisk[] = [];
  for (const [id, was] of base.objects) {
    const { kind, namespace, name } = idParts(id);
    const set = kind === 'Application' && !was.madeBy ? made.get(`${namespace}/${name}`) : undefined;
    if (!set || facts.pruneOutcome(was.object, was.syncOptions ?? [], was.prune) !== 'deleted') continue;
    const metadata = (was.object.metadata ?? {}) as { finalizers?: unknown };
    const cascades = Array.isArray(metadata.finalizers) && metadata.finalizers.includes(RESOURCES_FINALIZER);
    out.push({
      app: was.app,
      id,
      flag: 'delete',
      level: 'review',
      reason: `${objectLabel(kind, namespace, name)} moves from app ${was.app}'s manifests into ApplicationSet ${set}: app ${was.app}'s sync prunes it, as it no longer renders it, unless the ApplicationSet's controller adopts it first (its owner reference), and the two race${
        cascades
          ? `; its resources finalizer then deletes everything it runs, claims and their data included, before the controller makes it anew`
          : `; it is deleted and made anew, what it runs left in place`
      }. First merge a change that gives it argocd.argoproj.io/sync-options: Prune=false (or drops its resources finalizer), then move it`,
    });
  }
  return out;
}
