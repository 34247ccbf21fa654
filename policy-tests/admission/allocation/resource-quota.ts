/**
 * ResourceQuota admission (k8s.io/kubernetes v1.36, plugin/pkg/admission/resourcequota and the evaluators of
 * pkg/quota/v1/evaluator/core): in a namespace with a quota, a pod whose containers do not each state a compute
 * resource the quota limits is refused ("must specify"), and so is any object that would take the namespace's use of
 * a limited resource past its hard amount ("exceeded quota"). Pods are counted as many as run at once (replicas, a
 * rolling update's surge, a Job's parallelism), so a quota that holds the replicas but not the surge stalls every
 * rollout.
 */
import { quantityValue } from '../../model/go/quantity.ts';
import { scaledIntOrPercent } from '../../model/core/workloads.ts';
import { daemonNodes, type NodeKind } from '../../model/scheduling/nodes.ts';

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
export const hardOf = (quota: Obj, name: string): number | undefined => quantityValue(quota?.spec?.hard?.[name]);

/** The quotas that count whole objects (helper.IsIntegerResourceName, with every `count/`). */
const COUNTED = [
  'pods',
  'services',
  'replicationcontrollers',
  'resourcequotas',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
];
const INTEGER_QUOTA = new Set(COUNTED);
/** The quota resource names Kubernetes knows without a `/` (helper.IsStandardQuotaResourceName), hugepages apart. */
const STANDARD_QUOTA = new Set([...COUNTED, 'requests.storage', ...COMPUTE]);
/**
 * What each scope may limit (helper.IsResourceQuotaScopeValidForResource): the pod scopes pods and CPU and memory;
 * BestEffort pods alone; VolumeAttributesClass claims and their storage.
 */
const POD_SCOPED = new Set(['pods', 'cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);
const scopeLimits = (scope: string, name: string): boolean =>
  scope === 'BestEffort'
    ? name === 'pods'
    : scope === 'VolumeAttributesClass'
      ? name === 'persistentvolumeclaims' || name === 'requests.storage'
      : POD_SCOPED.has(name);
const SCOPES = new Set(['Terminating', 'NotTerminating', 'BestEffort', 'NotBestEffort', 'PriorityClass', 'CrossNamespacePodAffinity', 'VolumeAttributesClass']);
const CONFLICTS = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
];

/**
 * ValidateResourceQuotaSpec: each hard resource a quota's or a qualified name, its amount a quantity no less than
 * zero (a whole number where it counts objects), and scopes Kubernetes knows, none that conflict, none applied to a
 * resource it cannot limit. The API server refuses a quota that breaks one, and it never limits anything.
 */
export function resourceQuotaProblems(quota: Obj): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const hard = (quota?.spec?.hard ?? {}) as Record<string, unknown>;
  for (const [name, raw] of Object.entries(hard)) {
    const at = ['spec', 'hard', name];
    const shown = JSON.stringify(String(raw));
    const isHuge = /^(requests\.)?hugepages-/.test(name);
    if (!name.includes('/') && !STANDARD_QUOTA.has(name) && !isHuge)
      out.push({ path: at, message: `spec.hard[${name}]: Invalid value: ${JSON.stringify(name)}: must be a standard resource for quota` });
    const amount = quantityValue(raw);
    if (amount === undefined) continue; // a quantity that does not parse is the schema's to refuse
    if (amount < 0) out.push({ path: at, message: `spec.hard[${name}]: Invalid value: ${shown}: must be greater than or equal to 0` });
    else if ((INTEGER_QUOTA.has(name) || name.startsWith('count/')) && !Number.isInteger(amount))
      out.push({ path: at, message: `spec.hard[${name}]: Invalid value: ${shown}: must be an integer` });
  }
  const scopes: unknown[] = Array.isArray(quota?.spec?.scopes) ? quota.spec.scopes : [];
  const shownScopes = JSON.stringify(scopes);
  for (const scope of scopes) {
    if (typeof scope !== 'string' || !SCOPES.has(scope))
      out.push({ path: ['spec', 'scopes'], message: `spec.scopes: Invalid value: ${shownScopes}: unsupported scope` });
    for (const name of Object.keys(hard).sort())
      if (STANDARD_QUOTA.has(name) && SCOPES.has(String(scope)) && !scopeLimits(String(scope), name))
        out.push({ path: ['spec', 'scopes'], message: `spec.scopes: Invalid value: ${shownScopes}: unsupported scope applied to resource` });
  }
  for (const pair of CONFLICTS)
    if (pair.every((s) => scopes.includes(s)))
      out.push({ path: ['spec', 'scopes'], message: `spec.scopes: Invalid value: ${shownScopes}: conflicting scopes` });
  return out;
}

/**
 * The most pods a DaemonSet runs at once: one on every node its controller gives one (model/scheduling/nodes.ts: the
 * nodes its node selection matches, and the control-plane nodes only where it tolerates their taint, if they carry
 * it), and its rolling update's surge on top (maxSurge: none by default, a percentage of those nodes rounded up).
 * Undefined where a label the facts do not hold decides its nodes (an architecture, a host name).
 */
export function daemonSetPods(daemonSet: Obj, nodes: readonly NodeKind[]): number | undefined {
  const count = daemonNodes(daemonSet?.spec?.template?.spec ?? {}, nodes);
  if (count === undefined) return undefined;
  const surge = daemonSet?.spec?.updateStrategy?.type === 'OnDelete' ? 0 : (daemonSet?.spec?.updateStrategy?.rollingUpdate?.maxSurge ?? 0);
  const extra = scaledIntOrPercent(surge, count, true);
  // A whole number of surge pods is capped at the nodes; a percentage of them is never more.
  return extra === undefined ? undefined : count + (Number.isInteger(surge) ? Math.min(extra, count) : extra);
}
