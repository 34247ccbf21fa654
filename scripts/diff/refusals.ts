/**
 * Updates the cluster refuses. Every object both refs apply is judged as the API server judges its update (the
 * base's render is what the cluster holds, the head's what the sync sends): the built-in kinds' update validation
 * and the PersistentVolumeClaimResize plugin (updateViolations), and a CRD's transition rules on oldSelf
 * (ruleViolations). Then as Argo CD's sync writes the object (facts.syncMethodOf): a refused update fails the sync
 * at that object, and the app stays out of sync until someone deletes it by hand; where the sync deletes and creates
 * it instead (Force=true), it is replaced, which a person reviews. Objects are compared as rendered, labels a chart
 * release bumps included: the diff leaves those out as noise, the API server does not.
 */
import { facts, ruleViolations, updateViolations, type Snapshot } from '../../policy-tests/index.ts';
import { sameObject } from './same-object.ts';

/** One object of a snapshot: the object as Argo CD would apply it, and what its app's settings say of it. */
export type Entry = Snapshot['objects'] extends Map<string, infer E> ? E : never;
type Obj = Record<string, unknown>;

/** A risk of an update, in the shape of changes.ts's Risk (which reads this module, so it is not imported here). */
export interface UpdateRisk {
  app: string;
  id: string;
  flag: 'refused' | 'replaced' | 'immutable';
  level: 'refused' | 'review';
  reason: string;
}

/** A refused change: what the API server says, at which field, by which rule. */
interface Refusal {
  at: string;
  message: string;
  notJudged: boolean;
}

/**
 * The whole snapshot a cut one was made from (changes.ts's `without`, which leaves out the Applications one side
 * could not render): the StorageClasses the cluster holds are read whole, whichever Application applies them.
 */
const cutFrom = new WeakMap<Snapshot, Snapshot>();

/** `cut`, remembered as made from `whole`. */
export function cutOf(cut: Snapshot, whole: Snapshot): Snapshot {
  cutFrom.set(cut, cutFrom.get(whole) ?? whole);
  return cut;
}

/** The StorageClasses of a snapshot by name, and the one marked default (undefined for none, or more than one). */
export function storageClasses(s: Snapshot): { byName: Map<string, Obj>; defaultClass: string | undefined } {
  const byName = new Map<string, Obj>();
  for (const { object } of (cutFrom.get(s) ?? s).objects.values())
    if (object.kind === 'StorageClass') byName.set(String((object.metadata as Obj | undefined)?.name), object);
  const defaults = [...byName].filter(([, o]) => facts.isDefaultStorageClass(o));
  return { byName, defaultClass: defaults.length === 1 ? defaults[0]![0] : undefined };
}

/** What the API server says of the update from `a` to `b`. */
function refusalsOf(a: Entry, b: Entry, head: Snapshot, cluster: Parameters<typeof updateViolations>[2]): Refusal[] {
  const out: Refusal[] = updateViolations(a.object, b.object, cluster).map((v) => ({
    at: v.path.join('.'),
    message: `${v.message} (${v.fn})`,
    notJudged: v.notJudged === true,
  }));
  const crd = head.schemas?.get(`${String(b.object.apiVersion)}/${String(b.object.kind)}`);
  if (crd)
    for (const v of ruleViolations(crd.schema, b.object, a.object, 'transition'))
      out.push({ at: v.path.join('.') || '(root)', message: `${v.message} (rule of ${crd.source})`, notJudged: false });
  return out;
}

/** How a person gets a refused change into the cluster, by kind: what to delete, and what stays. */
const WAY_THROUGH: Readonly<Record<string, string>> = {
  StatefulSet:
    "delete it with `kubectl delete statefulset --cascade=orphan` (its pods and claims stay) and let the sync create it; a claim template's new size reaches no claim it made: grow each claim itself",
  PersistentVolumeClaim: 'a claim keeps its spec: put the old value back, or move the data to a new claim',
  PersistentVolume: 'a volume keeps its source: declare a new PersistentVolume (and claim) for the new one',
  Job: 'delete the Job once it has run and let the sync create it, or make it a hook, which each sync creates anew',
  RoleBinding: 'delete the binding and let the sync create it, or bind under a new name',
  ClusterRoleBinding: 'delete the binding and let the sync create it, or bind under a new name',
  CustomResourceDefinition: 'never delete a CRD by hand (its objects go with it): put the old value back',
};
const wayThrough = (kind: string) => WAY_THROUGH[kind] ?? 'delete it by hand and let the sync create it anew';

/**
 * What the sync sends of the head's entry `b` over the base's `a`: under RespectIgnoreDifferences=true, the target
 * without the fields Argo CD ignores of it, then the cluster's (the base's) values of the fields it ignores of the
 * live object (controller/sync.go normalizeTargetResources: the normalized target, patched with what normalizing the
 * live object took out of it); else `b` itself. For an Application an ApplicationSet made, the annotations and labels
 * its controller preserves, as the base holds them. Where the head's snapshot did not work out the live object's fields,
 * the target's stand for them.
 */
export function sentOf(b: Entry, a: Entry): Entry {
  const kept = keptIgnored(b, a);
  // An Application an ApplicationSet made keeps the annotations and labels it preserves as the cluster holds them.
  return kept.preserved ? { ...kept, object: facts.withPreservedMetadata(kept.object, a.object, kept.preserved) } : kept;
}

/** The head's entry with what its comparison ignores as the cluster holds it, where the sync respects that. */
function keptIgnored(b: Entry, a: Entry): Entry {
  const live = b.liveIgnored ?? b.ignored;
  if (!b.respectIgnored || !(b.ignored?.pointers.length || live?.pointers.length)) return b;
  const normalized = facts.withoutPointers(b.object, b.ignored?.pointers ?? []);
  return { ...b, object: facts.withLiveValues(normalized, a.object, live?.pointers ?? []) };
}

/** An object's parts from its snapshot id (`app|group/kind|namespace|name`, Argo CD's resource key). */
export function idParts(id: string): { app: string; kind: string; namespace: string; name: string } {
  const [app = '', group = '', namespace = '', name = ''] = id.split('|');
  return { app, kind: group.split('/').pop() ?? '', namespace, name };
}

/** How a risk names the object of a snapshot id. */
export const idLabel = (id: string): string => {
  const { kind, namespace, name } = idParts(id);
  return objectLabel(kind, namespace, name);
};

/** How a risk names an object: its kind, then namespace/name (name alone for a cluster-scoped one). */
export const objectLabel = (kind: string, namespace: string, name: string): string => `${kind} ${namespace ? `${namespace}/` : ''}${name}`;

/**
 * The risks of the updates the cluster refuses, or replaces: each object both refs apply, compared as rendered. `was`
 * is the base's StorageClasses, when the caller has read them already.
 */
export function updateRefusals(base: Snapshot, head: Snapshot, was = storageClasses(base)): UpdateRisk[] {
  const out: UpdateRisk[] = [];
  const is = storageClasses(head);
  const cluster = {
    // A class as the sync leaves it: a change to it applies in an earlier step (StorageClass sorts before claims).
    storageClass: (name: string) => is.byName.get(name) ?? was.byName.get(name),
    // The default class a claim that named none was given at its creation: the cluster's, the base's.
    defaultStorageClass: was.defaultClass,
    // The families the cluster gave a Service that named none: its Service range's, as the facts say them.
    ...(base.serviceFamilies ? { serviceFamilies: base.serviceFamilies } : {}),
  };
  for (const [id, b] of head.objects) {
    const a = base.objects.get(id);
    if (!a || sameObject(a.object, b.object)) continue;
    // RespectIgnoreDifferences=true: what Argo CD ignores is sent as the cluster holds it, so never refused.
    const sent = sentOf(b, a);
    if (sent !== b && sameObject(a.object, sent.object)) continue;
    const method = facts.syncMethodOf(b.object, a.object, b.syncOptions ?? []);
    const kind = String(b.object.kind);
    const outcome = facts.onRefusedUpdate(method, kind);
    if (outcome === 'never updated') continue;
    const { namespace, name } = idParts(id);
    const label = objectLabel(kind, namespace, name);
    const command = facts.syncCommand(method);
    const unread =
      b.respectIgnored && b.ignored?.unread.length
        ? ` (the sync keeps the cluster's ${b.ignored.unread.join(', ')}, which the gate does not read: it may be among them)`
        : '';
    for (const r of refusalsOf(a, sent, head, cluster)) {
      const risk = (flag: UpdateRisk['flag'], level: UpdateRisk['level'], reason: string) => out.push({ app: b.app, id, flag, level, reason });
      if (r.notJudged || unread) risk('immutable', 'review', `${label}: not judged at ${r.at}: ${r.message}${unread}`);
      else if (outcome === 'recreates')
        risk(
          'replaced',
          'review',
          `${label} is deleted and created again by the sync (${command}), as the API server refuses its update at ${r.at}: ${r.message}`,
        );
      else risk('refused', 'refused', `${label}: the API server refuses the update (${command}) at ${r.at}: ${r.message}. To apply it: ${wayThrough(kind)}`);
    }
  }
  return out;
}
