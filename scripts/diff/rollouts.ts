/**
 * What restarts, and what does not though it should. Every Deployment, StatefulSet, DaemonSet and ReplicaSet both
 * refs apply whose pod template changes as rendered (a checksum annotation or a chart's version label in it replaces
 * the pods as surely as a new image; the field list leaves both out as noise) is a note saying how its controller
 * replaces the pods, or a risk to review where it replaces none (paused, OnDelete, a partition above its replicas).
 * And a ConfigMap or Secret whose data changes while a workload that reads it keeps its template: one that reads it
 * as environment, or a file mounted by subPath, keeps the old values until its pods restart (a risk to review); one
 * that mounts it as a volume sees the files change in place (a note). An ExternalSecret whose target the operator
 * never writes again keeps its old values whoever reads it: a risk to review of its own.
 */
import { isDeepStrictEqual } from 'node:util';
import { facts, type Snapshot } from '../../policy-tests/index.ts';
import { isRecord, valueAt } from '../lib/values.ts';
import { idParts, objectLabel, sentOf, type Entry } from './refusals.ts';
import { sameObject } from './same-object.ts';

/** A risk of a restart, in the shape of changes.ts's Risk (which reads this module, so it is not imported here). */
export interface RolloutRisk {
  app: string;
  id: string;
  flag: 'rollout' | 'stale';
  level: 'review' | 'note';
  reason: string;
}

/** A changed object's field paths, as changes.ts's compare lists them (noise left out). */
type Changed = { id: string; fields: readonly { path: string }[] };

/** The keys of a map that differ between two sides. */
const changedKeys = (a: unknown, b: unknown): string[] => {
  const [x, y] = [isRecord(a) ? a : {}, isRecord(b) ? b : {}];
  return [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => !isDeepStrictEqual(x[k], y[k])).sort();
};

/** What changes in a pod template, in a few words: its fields as the diff lists them, and every label and annotation. */
function templateChange(a: unknown, b: unknown, fields: readonly { path: string }[]): string {
  const meta = (['labels', 'annotations'] as const).flatMap((k) =>
    changedKeys(valueAt(a, ['metadata', k]), valueAt(b, ['metadata', k])).map((key) => `${k === 'labels' ? 'label' : 'annotation'} ${key}`),
  );
  const spec = fields.filter((f) => f.path.startsWith('spec.template.spec')).map((f) => f.path.slice('spec.template.'.length));
  const all = [...meta, ...spec];
  // Named lists (env, containers, ports) compare by name in the field list; the API server hashes them in order.
  if (!all.length) return 'the order of a list in it';
  return `${all.slice(0, 4).join(', ')}${all.length > 4 ? `, and ${all.length - 4} more` : ''}`;
}

type Pair = { id: string; a: Entry; b: Entry };

/** The base and the head entry of each object both refs apply and the sync updates (a hook or Skip never is), as sent. */
function updated(base: Snapshot, head: Snapshot): Pair[] {
  const out: Pair[] = [];
  for (const [id, headEntry] of head.objects) {
    const a = base.objects.get(id);
    if (!a || sameObject(a.object, headEntry.object)) continue;
    if (facts.syncMethodOf(headEntry.object, a.object, headEntry.syncOptions ?? []).hook) continue;
    out.push({ id, a, b: sentOf(headEntry, a) });
  }
  return out;
}

/** Of the workloads both refs apply, those whose pod template changes: each with how it restarts. */
function restarts(pairs: readonly Pair[], head: Snapshot, changes: readonly Changed[]): Map<string, RolloutRisk> {
  const fields = new Map(changes.map((c) => [c.id, c.fields]));
  const out = new Map<string, RolloutRisk>();
  // A workload an autoscaler scales has the autoscaler's count, not its manifest's.
  const autoscaled = new Set(
    [...head.objects].filter(([, e]) => e.object.kind === 'HorizontalPodAutoscaler').map(([id, e]) => facts.scaleTargetKey(idParts(id).namespace, e.object)),
  );
  for (const { id, a, b } of pairs) {
    const { kind, namespace, name } = idParts(id);
    if (!facts.ROLLING_KINDS.has(kind)) continue;
    const [ta, tb] = [valueAt(a.object, ['spec', 'template']), valueAt(b.object, ['spec', 'template'])];
    if (isDeepStrictEqual(ta, tb)) continue;
    const counted = autoscaled.has(facts.scaledKey(namespace, kind, name))
      ? { ...b.object, spec: { ...(b.object.spec as object), replicas: undefined } }
      : b.object;
    const rollout = facts.rolloutOf(kind, counted);
    if (!rollout) continue;
    const label = objectLabel(kind, namespace, name);
    const what = templateChange(ta, tb, fields.get(id) ?? []);
    out.set(id, {
      app: b.app,
      id,
      flag: 'rollout',
      level: rollout.waits ? 'review' : 'note',
      reason: rollout.waits
        ? `${label}: its pod template changes (${what}), but no pod is replaced: ${rollout.how}`
        : `${label} replaces its pods, as its pod template changes (${what}): ${rollout.how}`,
    });
  }
  return out;
}

/** What a ConfigMap's or Secret's readers see of it: its data, as the kubelet hands it to them. */
const dataOf = (o: unknown) => ['data', 'stringData', 'binaryData'].map((k) => valueAt(o, [k]));

/** What an ExternalSecret writes into its Secret: where each key comes from, the template that shapes it, what it makes. */
const writesOf = (o: unknown) =>
  [
    ['spec', 'data'],
    ['spec', 'dataFrom'],
    ['spec', 'target', 'template'],
    ['spec', 'target', 'manifest'],
  ].map((p) => valueAt(o, p));

/**
 * Why the external-secrets operator never writes an ExternalSecret's target again once it has (v2.9's CRD and its
 * controller's shouldRefresh and shouldReconcile): refreshPolicy CreatedOnce creates it only where it does not exist,
 * an immutable target is not reconciled once synced, and creationPolicy None writes nothing at all.
 */
function neverRewritten(o: unknown): string | undefined {
  if (valueAt(o, ['spec', 'refreshPolicy']) === 'CreatedOnce') return 'its refreshPolicy is CreatedOnce: the operator writes it only where it does not exist';
  if (valueAt(o, ['spec', 'target', 'immutable']) === true) return 'its target is immutable: the operator stops reconciling it once it is synced';
  if (valueAt(o, ['spec', 'target', 'creationPolicy']) === 'None') return 'its creationPolicy is None: the operator writes nothing';
  return undefined;
}

const READ_AS = { env: 'as environment', subPath: 'as a file mounted by subPath', volume: 'as files of a volume' } as const;

type ConfigChange = { kind: 'ConfigMap' | 'Secret'; namespace: string; name: string; what: string };

/**
 * The ConfigMaps and Secrets whose data a change moves: one the repository declares, compared by its data, and what
 * an ExternalSecret writes (a Secret, by default named as it is, or the ConfigMap its target's manifest makes), where
 * what it fetches or how it shapes it changes. Each with its namespace and name, and how to say it. An ExternalSecret
 * whose target the operator never writes again is said apart (`held`): the change reaches no reader.
 */
function changedConfig(pairs: readonly Pair[]): { changed: ConfigChange[]; held: RolloutRisk[] } {
  const changed: ConfigChange[] = [];
  const held: RolloutRisk[] = [];
  for (const { id, a, b } of pairs) {
    const { kind, namespace, name } = idParts(id);
    if ((kind === 'ConfigMap' || kind === 'Secret') && b.object.apiVersion === 'v1' && !isDeepStrictEqual(dataOf(a.object), dataOf(b.object)))
      changed.push({ kind, namespace, name, what: objectLabel(kind, namespace, name) });
    if (kind !== 'ExternalSecret' || isDeepStrictEqual(writesOf(a.object), writesOf(b.object))) continue;
    const target = valueAt(b.object, ['spec', 'target', 'name']);
    const manifest = valueAt(b.object, ['spec', 'target', 'manifest', 'kind']);
    const written = manifest === undefined ? 'Secret' : manifest;
    const targetName = typeof target === 'string' && target ? target : name;
    const label = `${typeof written === 'string' ? written : 'object'} ${namespace}/${targetName}`;
    const why = neverRewritten(b.object);
    if (why)
      held.push({
        app: b.app,
        id,
        flag: 'stale',
        level: 'review',
        reason: `ExternalSecret ${namespace}/${name} changes what it writes, but ${why}: ${label} keeps what it holds (delete it to have it written anew)`,
      });
    else if (written === 'Secret' || written === 'ConfigMap')
      changed.push({ kind: written, namespace, name: targetName, what: `${label} (written by ExternalSecret ${name})` });
  }
  return { changed, held };
}

/** A ConfigMap or Secret whose data changes, with each workload that reads it and keeps its pods. */
function staleReaders(pairs: readonly Pair[], base: Snapshot, head: Snapshot, restarting: ReadonlyMap<string, RolloutRisk>): RolloutRisk[] {
  const { changed, held } = changedConfig(pairs);
  const out: RolloutRisk[] = [...held];
  const workloads = [...head.objects].filter(([id]) => facts.ROLLING_KINDS.has(idParts(id).kind) && base.objects.has(id) && !restarting.has(id));
  for (const { kind, namespace, name, what } of changed) {
    for (const [readerId, reader] of workloads) {
      const r = idParts(readerId);
      if (r.namespace !== namespace || !facts.rolloutOf(r.kind, reader.object)) continue;
      const reads = facts.configReadsOf(valueAt(reader.object, ['spec', 'template', 'spec'])).filter((x) => x.kind === kind && x.name === name);
      if (!reads.length) continue;
      const kept = reads.filter((x) => x.how !== 'volume');
      const shown = (kept.length ? kept : reads).map((x) => `container ${x.container} ${READ_AS[x.how]}`);
      const who = objectLabel(r.kind, r.namespace, r.name);
      out.push({
        app: reader.app,
        id: readerId,
        flag: 'stale',
        level: kept.length ? 'review' : 'note',
        reason: kept.length
          ? `${what} changes, but ${who} reads it (${[...new Set(shown)].join('; ')}) and its pod template does not change: its pods keep the old values until they restart (\`kubectl -n ${r.namespace} rollout restart ${r.kind.toLowerCase()}/${r.name}\`, or a checksum of it in the template)`
          : `${what} changes and ${who} mounts it (${[...new Set(shown)].join('; ')}): the kubelet updates the files in place within about a minute, its pods are not restarted, and the process sees the change only if it reads them again`,
      });
    }
  }
  return out;
}

/** The restarts a change makes, and the readers it leaves with old values. */
export function rolloutRisks(base: Snapshot, head: Snapshot, changes: readonly Changed[]): RolloutRisk[] {
  // Each object both refs apply is compared and its sync method read once, for the restarts and the readers alike.
  const pairs = updated(base, head);
  const restarting = restarts(pairs, head, changes);
  return [...restarting.values(), ...staleReaders(pairs, base, head, restarting)];
}
