/**
 * What a workload's controller does when its pod template changes (Kubernetes v1.36: the Deployment controller's
 * rolling.go and recreate.go with ResolveFenceposts, the StatefulSet controller's updateStatefulSet, the DaemonSet
 * controller's rollingUpdate): whether its pods are replaced, how, or why not; and how a running pod reads a
 * ConfigMap or Secret (the kubelet): environment once, at the container's start; a volume's files refreshed in place
 * after a change, except a file mounted by subPath, which never is.
 */
import { dig, list, objects } from '../core/dig.ts';
import { scalarText } from '../core/text.ts';
import { scaledIntOrPercent, surgePods } from '../core/workloads.ts';

type Obj = Record<string, unknown>;

/** The pod replacement a template change starts: `waits` when nothing is replaced until a person acts. */
export interface Rollout {
  waits: boolean;
  how: string;
}

/** The kinds whose controller owns pods made from a template it keeps (a Job's template cannot change). */
export const ROLLING_KINDS: ReadonlySet<string> = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/** Its declared replicas: a count, undefined where the manifest leaves it out (an autoscaler's, or 1 at creation), NaN where unreadable. */
const replicasOf = (o: unknown): number | undefined => {
  const v = dig(o, ['spec', 'replicas']);
  if (v === undefined) return undefined;
  return Number.isInteger(v) && (v as number) >= 0 ? (v as number) : Number.NaN;
};

/** A Deployment's maxUnavailable in pods: a percentage rounded down; 1 where it and the surge both come to 0. */
function unavailablePods(deployment: Obj, replicas: number, surge: number): number | undefined {
  const n = scaledIntOrPercent(dig(deployment, ['spec', 'strategy', 'rollingUpdate', 'maxUnavailable']) ?? '25%', replicas, false);
  return n === undefined ? undefined : n === 0 && surge === 0 ? 1 : n;
}

const podsText = (replicas: number | undefined) => (replicas === undefined ? 'its pods' : `its ${replicas} pod(s)`);

function deploymentRollout(o: Obj, replicas: number | undefined): Rollout {
  if (dig(o, ['spec', 'paused']) === true) return { waits: true, how: 'it is paused (spec.paused): no pod changes until `kubectl rollout resume`' };
  if (dig(o, ['spec', 'strategy', 'type']) === 'Recreate')
    return { waits: false, how: `Recreate: ${podsText(replicas)} stop before the new ones start, so it is down meanwhile` };
  const rolling = (key: string) => scalarText(dig(o, ['spec', 'strategy', 'rollingUpdate', key]) ?? '25%');
  const surge = replicas === undefined ? undefined : surgePods({ object: o }, replicas);
  const down = replicas === undefined || surge === undefined ? undefined : unavailablePods(o, replicas, surge);
  if (replicas === undefined || surge === undefined || down === undefined)
    return { waits: false, how: `a rolling update of ${podsText(replicas)} (maxSurge ${rolling('maxSurge')}, maxUnavailable ${rolling('maxUnavailable')})` };
  const pace = down === 0 ? 'none goes before its replacement is ready' : `up to ${Math.min(down, replicas)} down at a time`;
  return { waits: false, how: `a rolling update of ${podsText(replicas)}: ${surge ? `up to ${surge} new above them` : 'none added above them'}, ${pace}` };
}

function statefulSetRollout(o: Obj, replicas: number | undefined): Rollout {
  if (dig(o, ['spec', 'updateStrategy', 'type']) === 'OnDelete')
    return { waits: true, how: 'updateStrategy OnDelete: each pod keeps the old template until it is deleted by hand' };
  const raw = dig(o, ['spec', 'updateStrategy', 'rollingUpdate', 'partition']);
  const partition = Number.isInteger(raw) ? (raw as number) : 0;
  if (partition > 0 && partition >= (replicas ?? 1))
    return { waits: true, how: `its partition (${partition}) is at or above its replicas (${replicas ?? 1}): no pod is replaced` };
  const kept = partition > 0 ? `; pods below ordinal ${partition} (its partition) keep the old one` : '';
  return { waits: false, how: `one pod at a time from the highest ordinal, each after the one before is ready${kept}` };
}

/**
 * What the controller of a `kind` does when its pod template changes; undefined where it has no pods to replace (a
 * Deployment or StatefulSet scaled to 0, or a count that is not a number) or is not a kind with a kept template.
 */
export function rolloutOf(kind: string, object: unknown): Rollout | undefined {
  const o = object as Obj;
  if (kind === 'DaemonSet') {
    if (dig(o, ['spec', 'updateStrategy', 'type']) === 'OnDelete')
      return { waits: true, how: 'updateStrategy OnDelete: each pod keeps the old template until it is deleted by hand' };
    const down = dig(o, ['spec', 'updateStrategy', 'rollingUpdate', 'maxUnavailable']) ?? 1;
    return { waits: false, how: `node by node, up to ${scalarText(down)} unavailable at a time` };
  }
  if (!ROLLING_KINDS.has(kind)) return undefined;
  const replicas = replicasOf(o);
  if (replicas === 0 || Number.isNaN(replicas)) return undefined;
  if (kind === 'ReplicaSet') return { waits: true, how: 'a ReplicaSet never replaces the pods it has: only pods it makes later use the new template' };
  return kind === 'Deployment' ? deploymentRollout(o, replicas) : statefulSetRollout(o, replicas);
}

/** How a container reads a ConfigMap or Secret: as environment, as files of a volume, or a file mounted by subPath. */
export type ReadHow = 'env' | 'volume' | 'subPath';

export interface ConfigRead {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  how: ReadHow;
  container: string;
}

/** The volumes of a pod spec that carry ConfigMaps and Secrets (directly, or projected), by volume name. */
function configVolumes(spec: Obj): Map<string, { kind: ConfigRead['kind']; name: string }[]> {
  const out = new Map<string, { kind: ConfigRead['kind']; name: string }[]>();
  for (const v of objects(spec.volumes)) {
    const found: { kind: ConfigRead['kind']; name: string }[] = [];
    const add = (kind: ConfigRead['kind'], name: unknown) => typeof name === 'string' && name && found.push({ kind, name });
    add('ConfigMap', dig(v, ['configMap', 'name']));
    add('Secret', dig(v, ['secret', 'secretName']));
    for (const s of list(dig(v, ['projected', 'sources'])) as Obj[]) {
      add('ConfigMap', dig(s, ['configMap', 'name']));
      add('Secret', dig(s, ['secret', 'name']));
    }
    if (found.length && typeof v?.name === 'string') out.set(v.name, found);
  }
  return out;
}

/** Every ConfigMap and Secret a pod spec's containers read, and how each reads it. */
export function configReadsOf(spec: unknown): ConfigRead[] {
  if (typeof spec !== 'object' || spec === null) return [];
  const s = spec as Obj;
  const volumes = configVolumes(s);
  const out: ConfigRead[] = [];
  for (const c of [s.initContainers, s.containers].flatMap((l) => (Array.isArray(l) ? l : [])) as Obj[]) {
    const container = scalarText(c?.name ?? '');
    const push = (kind: ConfigRead['kind'], name: unknown, how: ReadHow) => typeof name === 'string' && name && out.push({ kind, name, how, container });
    for (const e of (Array.isArray(c?.env) ? c.env : []) as Obj[]) {
      push('ConfigMap', dig(e, ['valueFrom', 'configMapKeyRef', 'name']), 'env');
      push('Secret', dig(e, ['valueFrom', 'secretKeyRef', 'name']), 'env');
    }
    for (const e of (Array.isArray(c?.envFrom) ? c.envFrom : []) as Obj[]) {
      push('ConfigMap', dig(e, ['configMapRef', 'name']), 'env');
      push('Secret', dig(e, ['secretRef', 'name']), 'env');
    }
    for (const m of (Array.isArray(c?.volumeMounts) ? c.volumeMounts : []) as Obj[])
      for (const source of volumes.get(String(m?.name)) ?? []) push(source.kind, source.name, m.subPath || m.subPathExpr ? 'subPath' : 'volume');
  }
  return out;
}
