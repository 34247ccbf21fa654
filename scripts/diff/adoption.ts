/**
 * An Application that moves to another holder: from an app's own manifests into an ApplicationSet, from one app's
 * manifests to another's, or out of an ApplicationSet. What held it removes it as the new holder takes it:
 * - an app's automated sync prunes what it manages and no longer renders, and it manages a live object with no owner
 *   reference that carries its tracking annotation (GetManagedLiveObjs). An ApplicationSet's controller adopting it
 *   (its owner reference), or another app's sync writing it (its tracking annotation), spares it only if it comes
 *   first: the two race within the same sync;
 * - an ApplicationSet's controller deletes an Application it owns and no longer generates, unless its policy keeps
 *   it: its owner reference stays whatever writes the Application next, so nothing spares it.
 * With the resources finalizer, that removal deletes everything the Application runs before it is made anew.
 */
import { facts, type Snapshot } from '../../policy-tests/index.ts';
import { idParts, objectLabel, type Entry } from './refusals.ts';
import { holderRemoves } from './removals.ts';

/** A risk of the `delete` flag, for review, on each Application its old holder would remove as it moves. */
export interface AdoptionRisk {
  app: string;
  id: string;
  flag: 'delete';
  level: 'review';
  reason: string;
}

/** What holds an Application on one side: an app's manifests, or the ApplicationSet that makes it. */
const holderOf = (entry: Entry) => (entry.madeBy ? `ApplicationSet ${entry.madeBy}` : `app ${entry.app}'s manifests`);

export function adoptionRisks(base: Snapshot, head: Snapshot): AdoptionRisk[] {
  const later = new Map<string, Entry>();
  for (const [id, entry] of head.objects) {
    const { kind, namespace, name } = idParts(id);
    if (kind === 'Application') later.set(`${namespace}/${name}`, entry);
  }
  const out: AdoptionRisk[] = [];
  for (const [id, was] of base.objects) {
    const { kind, namespace, name } = idParts(id);
    const now = kind === 'Application' ? later.get(`${namespace}/${name}`) : undefined;
    if (!now || holderOf(now) === holderOf(was) || !holderRemoves(was, base.restrained?.get(name))) continue;
    const cascades = facts.cascadesDeletion({ resource: { object: was.object } });
    const label = objectLabel(kind, namespace, name);
    const into = now.madeBy ? `into ApplicationSet ${now.madeBy}` : `to app ${now.app}'s manifests`;
    const race = now.madeBy
      ? "unless the ApplicationSet's controller adopts it first (its owner reference), and the two race"
      : `unless app ${now.app}'s sync takes it over first (its tracking annotation), and the two race`;
    const removal = was.madeBy
      ? `${label} moves out of ApplicationSet ${was.madeBy} ${into}: its controller deletes it, as it no longer generates it (or Kubernetes' garbage collector, where the ApplicationSet itself goes), and its owner reference stays whatever writes it next`
      : `${label} moves from ${holderOf(was)} ${into}: app ${was.app}'s sync prunes it, as it no longer renders it, ${race}`;
    const way = was.madeBy
      ? 'First merge a change that gives the ApplicationSet syncPolicy.preserveResourcesOnDeletion: true (or drops the resources finalizer from its template), then move it'
      : 'First merge a change that gives it argocd.argoproj.io/sync-options: Prune=false (or drops its resources finalizer), then move it';
    out.push({
      app: was.app,
      id,
      flag: 'delete',
      level: 'review',
      reason: `${removal}${
        cascades
          ? '; its resources finalizer then deletes everything it runs, claims and their data included, before it is made anew'
          : '; it is deleted and made anew, what it runs left in place'
      }. ${way}`,
    });
  }
  return out;
}
