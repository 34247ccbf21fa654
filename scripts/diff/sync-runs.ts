/**
 * Whether a change starts a sync at all, and what else that sync runs. Argo CD compares an Application's objects to
 * decide whether it is OutOfSync, and leaves hooks and Skipped objects out (controller/state.go: their state "does
 * not affect overall sync status"), and the fields its ignoreDifferences ignores; an automated sync starts only for an
 * app OutOfSync. So a change to those alone reaches the cluster only at the app's next sync for another reason: a
 * risk to review. And every sync runs the app's hooks of its phases (PreSync, Sync, PostSync; SyncFail on a
 * failure), whatever changed: a note naming them.
 */
import { isDeepStrictEqual } from 'node:util';
import { facts, type Snapshot } from '../../policy-tests/index.ts';
import { idLabel, type Entry } from './refusals.ts';
import { sameObject } from './same-object.ts';

/** A risk of a sync, in the shape of changes.ts's Risk (which reads this module, so it is not imported here). */
export interface SyncRisk {
  app: string;
  id: string;
  flag: 'no-sync' | 'hooks';
  level: 'review' | 'note';
  reason: string;
}

/** What changed, by object id, as changes.ts lists it: the object's Application, and whether it was removed. */
type Changed = { app: string; id: string; change: string };

/** The hooks a sync of each Application runs, in phase order, as labels with their phases. */
function hooksByApp(head: Snapshot): Map<string, string[]> {
  const found = new Map<string, { order: number; label: string }[]>();
  for (const [id, entry] of head.objects) {
    if (!facts.isHookOrSkipped(entry.object)) continue;
    const phases = facts.syncLifecycle(entry.object).phases.filter((p) => p !== 'SyncFail');
    if (phases.length)
      found.set(entry.app, [
        ...(found.get(entry.app) ?? []),
        { order: ['PreSync', 'Sync', 'PostSync'].indexOf(phases[0]!), label: `${phases.join(', ')} ${idLabel(id)}` },
      ]);
  }
  return new Map([...found].map(([app, hooks]) => [app, hooks.sort((a, b) => a.order - b.order || a.label.localeCompare(b.label)).map((h) => h.label)]));
}

const shown = (items: string[]) => `${items.slice(0, 5).join('; ')}${items.length > 5 ? `; and ${items.length - 5} more` : ''}`;

/**
 * The Applications whose compared objects differ as rendered between the refs: added, removed, or changed in any
 * field, a chart's version label too (which the diff's field list leaves out as noise, and Argo CD's comparison does
 * not). Each of them is OutOfSync once the change lands.
 */
function outOfSync(base: Snapshot, head: Snapshot): Set<string> {
  const out = new Set<string>();
  for (const id of new Set([...base.objects.keys(), ...head.objects.keys()])) {
    const [a, b] = [base.objects.get(id), head.objects.get(id)];
    const entry = (b ?? a)!;
    if (out.has(entry.app) || facts.isHookOrSkipped(entry.object)) continue;
    // An object to prune that says IgnoreExtraneous leaves its app Synced.
    if (!b && facts.ignoresExtraneous(a!.object)) continue;
    if (!a || !b || differs(a, b)) out.add(entry.app);
  }
  return out;
}

/**
 * Whether Argo CD's comparison sees the object change: not where only the fields its ignoreDifferences ignores do
 * (JSON pointers, and the fields jq names for a jq expression, worked out on each side's object as the normalizer runs
 * them on the live and the target object; an object with an expression jq could not answer, or a managed-fields
 * manager to ignore, is taken to change).
 */
function differs(a: Entry, b: Entry): boolean {
  if (sameObject(a.object, b.object)) return false;
  const target = b.ignored;
  // The base's object under the head's settings, where the head's snapshot worked it out; else the head's fields.
  const live = b.liveIgnored ?? target;
  if (!target?.pointers.length && !live?.pointers.length) return true;
  if (target?.unread.length || live?.unread.length) return true;
  return !isDeepStrictEqual(facts.withoutPointers(a.object, live?.pointers ?? []), facts.withoutPointers(b.object, target?.pointers ?? []));
}

const partition = <T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] => [items.filter(test), items.filter((i) => !test(i))];

/** The object without its status. */
const withoutStatus = ({ status: _status, ...rest }: Record<string, unknown>) => rest;

/**
 * Whether an object changes only in a status the API server keeps as its own (a chart that ships a CRD with a status
 * stanza, say): Argo CD ignores `/status` by default, and even a sync for another reason writes none of it.
 */
function onlyStatusKept(id: string, base: Snapshot, head: Snapshot, definitions: readonly Record<string, unknown>[]): boolean {
  const [a, b] = [base.objects.get(id), head.objects.get(id)];
  if (!a || !b || isDeepStrictEqual(a.object.status, b.object.status)) return false;
  return sameObject(withoutStatus(a.object), withoutStatus(b.object)) && facts.statusIsSubresource(b.object, definitions);
}

/**
 * Per Application with changes (`changed`: the diff's changes, and the objects its risks name, such as a pod template
 * changed only in a checksum): whether a sync starts, and the hooks it runs.
 */
export function syncRisks(changed: readonly Changed[], base: Snapshot, head: Snapshot): SyncRisk[] {
  const out: SyncRisk[] = [];
  let crds: Record<string, unknown>[] | undefined;
  const definitions = () => (crds ??= [...head.objects.values()].map((e) => e.object).filter((o) => o.kind === 'CustomResourceDefinition'));
  const syncing = outOfSync(base, head);
  const hooksOf = hooksByApp(head);
  for (const app of [...new Set(changed.map((c) => c.app))].sort()) {
    const id = `${app}|argoproj.io/Application|argocd|${app}`;
    if (!syncing.has(app)) {
      // A hook removed leaves the cluster as it was, synced or not.
      const ids = [...new Set(changed.filter((c) => c.app === app && c.change !== 'removed').map((c) => c.id))];
      const [statusOnly, held] = partition(ids, (objectId) => onlyStatusKept(objectId, base, head, definitions()));
      if (held.length)
        out.push({
          app,
          id,
          flag: 'no-sync',
          level: 'review',
          reason: `Application ${app} changes only what Argo CD leaves out of its comparison (hooks, Skipped objects, fields its ignoreDifferences ignores: ${shown(held.map(idLabel))}): the app stays Synced, no automated sync starts, and the change reaches the cluster only at its next sync for another reason, or a manual one`,
        });
      else if (statusOnly.length)
        out.push({
          app,
          id,
          flag: 'no-sync',
          level: 'note',
          reason: `Application ${app} changes only the status of ${shown(statusOnly.map(idLabel))}, which the API server keeps as its own (a subresource): no sync writes it, now or later`,
        });
      continue;
    }
    const hooks = hooksOf.get(app) ?? [];
    if (hooks.length) out.push({ app, id, flag: 'hooks', level: 'note', reason: `the sync of Application ${app} runs its hooks: ${shown(hooks)}` });
  }
  return out;
}
