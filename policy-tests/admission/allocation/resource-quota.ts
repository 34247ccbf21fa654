/**
 * ResourceQuota admission (k8s.io/kubernetes v1.36, plugin/pkg/admission/resourcequota and the evaluators of
 * pkg/quota/v1/evaluator/core): in a namespace with a quota, a pod whose containers do not each state a compute
 * resource the quota limits is refused ("must specify"), and so is any object that would take the namespace's use of
 * a limited resource past its hard amount ("exceeded quota"). Pods are counted as many as run at once (replicas, a
 * rolling update's surge, a Job's parallelism), so a quota that holds the replicas but not the surge stalls every
 * rollout.
 */
import { parseQuantity } from '../../model/core/text.ts';

type Obj = Record<string, any>;

/** The compute resources the pod evaluator makes every container state (podComputeUsageHelper's names). */
export const COMPUTE = [
  'cpu',
  'memory',
  'requests.cpu',
  'requests.memory',
  'limits.cpu',
  'limits.memory',
  'ephemeral-storage',
  'requests.ephemeral-storage',
  'limits.ephemeral-storage',
] as const;

/** What a container's admitted requests and limits give the quota, by quota resource name (podComputeUsageHelper). */
export function computeNames(requests: Obj, limits: Obj): Set<string> {
  const out = new Set<string>();
  for (const base of ['cpu', 'memory', 'ephemeral-storage']) {
    if (base in requests) out.add(base).add(`requests.${base}`);
    if (base in limits) out.add(`limits.${base}`);
  }
  return out;
}

/** Whether a quota applies to every pod: no scopes and no scope selector (a scoped one is not judged). */
export const unscoped = (quota: Obj): boolean => !(quota?.spec?.scopes?.length > 0) && !quota?.spec?.scopeSelector;

/** The resources a quota limits that a container must state, sorted as the plugin lists them. */
export function requiredCompute(quota: Obj): string[] {
  const hard = Object.keys(quota?.spec?.hard ?? {});
  return (COMPUTE as readonly string[]).filter((r) => hard.includes(r)).sort();
}

/** A resource's amount per pod, read from its requests and limits totals (`cpu` is a request). */
export function perPodAmount(name: string, requests: Record<string, number>, limits: Record<string, number>): number | undefined {
  if (name === 'pods') return 1;
  const [field, base] = name.startsWith('limits.') ? ['limits', name.slice(7)] : ['requests', name.replace(/^requests\./, '')];
  return (field === 'limits' ? limits : requests)[base] ?? 0;
}

/** The text of an amount the way a message shows it: a whole number, or milli units under one. */
export function amountText(name: string, value: number): string {
  if (/cpu/.test(name)) return Number.isInteger(value) ? String(value) : `${Math.round(value * 1000)}m`;
  // Bytes as the quantity's canonical form writes them: the largest binary unit that divides them.
  for (const [unit, size] of [
    ['Ti', 2 ** 40],
    ['Gi', 2 ** 30],
    ['Mi', 2 ** 20],
    ['Ki', 2 ** 10],
  ] as const)
    if (name !== 'pods' && !/^(services|persistentvolumeclaims|configmaps|secrets)/.test(name) && value >= size && value % size === 0)
      return `${value / size}${unit}`;
  return String(Math.round(value));
}

/** The hard amount of a resource, or undefined where the quota does not limit it or writes no quantity. */
export const hardOf = (quota: Obj, name: string): number | undefined => parseQuantity(quota?.spec?.hard?.[name]);
