/**
 * LimitRanger, the admission plugin that defaults and bounds what a pod and a claim ask for in a namespace with
 * LimitRanges (k8s.io/kubernetes v1.36, plugin/pkg/admission/limitranger/admission.go; the LimitRange's own defaults
 * from pkg/apis/core/v1/defaults.go, SetDefaults_LimitRangeItem). A controller's pods are admitted as it creates them:
 * a template LimitRanger refuses leaves its workload with no pod, and Argo CD's sync waits on it for good.
 */
import { containersOf, runsAlongside, type PodSpecRef } from '../../model/core/workloads.ts';
import { quantityValue } from '../../model/go/quantity.ts';

type Obj = Record<string, any>;
/** A resource list as written: names to quantities (text or number). */
export type ResourceList = Record<string, unknown>;
export interface Requirements {
  requests: ResourceList;
  limits: ResourceList;
}

const list = (v: unknown): ResourceList => (v && typeof v === 'object' && !Array.isArray(v) ? { ...(v as ResourceList) } : {});
const shown = (v: unknown) => String(v);

/** A LimitRange's items, as the API server stores them (with their defaults) or as written. */
const itemsOf = (range: Obj, stored = true): Obj[] => {
  const items: Obj[] = Array.isArray(range?.spec?.limits) ? range.spec.limits : [];
  return stored ? items.map(storedItem) : items;
};

/** SetDefaults_LimitRangeItem: a Container item's default limit is its max, its default request its default or min. */
export function storedItem(item: Obj): Obj {
  if (item?.type !== 'Container') return item;
  const limits = { ...list(item.max), ...list(item.default) };
  const requests = { ...list(item.min), ...limits, ...list(item.defaultRequest) };
  return { ...item, default: limits, defaultRequest: requests };
}

/**
 * A container's requirements as admitted: requests filled from its limits (the API's decoding defaults, before
 * admission), then what each LimitRange's Container item defaults (mergeContainerResources: only what is missing).
 */
export function admittedRequirements(container: Obj, ranges: readonly Obj[], defaults = true): Requirements {
  const limits = list(container?.resources?.limits);
  const requests = { ...(defaults ? limits : {}), ...list(container?.resources?.requests) };
  for (const range of ranges)
    for (const item of itemsOf(range, defaults)) {
      if (item?.type !== 'Container') continue;
      for (const [k, v] of Object.entries(list(item.default))) if (!(k in limits)) limits[k] = v;
      for (const [k, v] of Object.entries(list(item.defaultRequest))) if (!(k in requests)) requests[k] = v;
    }
  return { requests, limits };
}

const amount = (v: unknown) => quantityValue(v) ?? 0;

/** minConstraint, maxConstraint, limitRequestRatioConstraint and maxRequestConstraint, in the plugin's words. */
function constraintErrors(type: string, item: Obj, have: Requirements, limitsRead = true): string[] {
  const out: string[] = [];
  for (const [name, min] of Object.entries(list(item.min))) {
    if (!(name in have.requests)) out.push(`minimum ${name} usage per ${type} is ${shown(min)}.  No request is specified`);
    else if (amount(have.requests[name]) < amount(min))
      out.push(`minimum ${name} usage per ${type} is ${shown(min)}, but request is ${shown(have.requests[name])}`);
    else if (limitsRead && name in have.limits && amount(have.limits[name]) < amount(min))
      out.push(`minimum ${name} usage per ${type} is ${shown(min)}, but limit is ${shown(have.limits[name])}`);
  }
  for (const [name, max] of Object.entries(list(item.max))) {
    if (!limitsRead) {
      // maxRequestConstraint: a claim's limits are not user input; its request is bounded.
      if (!(name in have.requests)) out.push(`maximum ${name} usage per ${type} is ${shown(max)}.  No request is specified`);
      else if (amount(have.requests[name]) > amount(max))
        out.push(`maximum ${name} usage per ${type} is ${shown(max)}, but request is ${shown(have.requests[name])}`);
    } else if (!(name in have.limits)) out.push(`maximum ${name} usage per ${type} is ${shown(max)}.  No limit is specified`);
    else if (amount(have.limits[name]) > amount(max)) out.push(`maximum ${name} usage per ${type} is ${shown(max)}, but limit is ${shown(have.limits[name])}`);
    else if (name in have.requests && amount(have.requests[name]) > amount(max))
      out.push(`maximum ${name} usage per ${type} is ${shown(max)}, but request is ${shown(have.requests[name])}`);
  }
  if (limitsRead)
    for (const [name, ratio] of Object.entries(list(item.maxLimitRequestRatio))) {
      const [request, limit] = [amount(have.requests[name]), amount(have.limits[name])];
      if (!request) out.push(`${name} max limit to request ratio per ${type} is ${shown(ratio)}, but no request is specified or request is 0`);
      else if (!limit) out.push(`${name} max limit to request ratio per ${type} is ${shown(ratio)}, but no limit is specified or limit is 0`);
      else if (limit / request > amount(ratio))
        out.push(`${name} max limit to request ratio per ${type} is ${shown(ratio)}, but provided ratio is ${(limit / request).toFixed(6)}`);
    }
  return out;
}

/**
 * A pod's requests or limits as the scheduler and LimitRanger count them (podRequests, podLimits): its containers
 * and sidecars together, or a one-shot init container with the sidecars started before it, whichever is more.
 */
export function podTotals(pod: PodSpecRef, ranges: readonly Obj[], field: keyof Requirements, defaults = true): Record<string, number> {
  const together: Record<string, number> = {};
  const peak: Record<string, number> = {};
  const sidecars: Record<string, number> = {};
  for (const c of containersOf(pod)) {
    const have = admittedRequirements(c.container, ranges, defaults)[field];
    if (!c.init) for (const [k, v] of Object.entries(have)) together[k] = (together[k] ?? 0) + amount(v);
    else if (runsAlongside(c))
      for (const [k, v] of Object.entries(have)) {
        sidecars[k] = (sidecars[k] ?? 0) + amount(v);
        together[k] = (together[k] ?? 0) + amount(v);
      }
    else for (const [k, v] of Object.entries(have)) peak[k] = Math.max(peak[k] ?? 0, amount(v) + (sidecars[k] ?? 0));
  }
  for (const [k, v] of Object.entries(peak)) together[k] = Math.max(together[k] ?? 0, v);
  return together;
}

/**
 * What one LimitRange refuses of a pod (PodValidateLimitFunc): each container's and the pod's, with where. With
 * `defaults` false, neither the API server's decoding nor the LimitRange's stored defaults are applied first, as
 * Kubernetes' own unit tests call it (the conformance measure).
 */
export function podLimitRefusals(pod: PodSpecRef, ranges: readonly Obj[], range: Obj, defaults = true): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  for (const item of itemsOf(range, defaults)) {
    if (item?.type === 'Container')
      for (const c of containersOf(pod))
        for (const message of constraintErrors('Container', item, admittedRequirements(c.container, ranges, defaults)))
          out.push({ path: [...c.at, 'resources'], message });
    if (item?.type === 'Pod') {
      const have = { requests: podTotals(pod, ranges, 'requests', defaults), limits: podTotals(pod, ranges, 'limits', defaults) };
      for (const message of constraintErrors('Pod', item, have)) out.push({ path: pod.at, message });
    }
  }
  return out;
}

/** What one LimitRange refuses of a claim (PersistentVolumeClaimValidateLimitFunc): its storage request, bounded. */
export function claimLimitRefusals(claimSpec: Obj, range: Obj): string[] {
  const have = { requests: list(claimSpec?.resources?.requests), limits: {} };
  return (Array.isArray(range?.spec?.limits) ? range.spec.limits : [])
    .filter((item: Obj) => item?.type === 'PersistentVolumeClaim')
    .flatMap((item: Obj) => constraintErrors('PersistentVolumeClaim', item, have, false));
}

/** Resources that may not be overcommitted (helper.IsOvercommitAllowed): hugepages and extended resources. */
const noOvercommit = (name: string) => name.startsWith('hugepages-') || (name.includes('/') && !name.startsWith('kubernetes.io/'));

/**
 * ValidateLimitRange on the item as stored (its defaults filled in first): one item per type; a Pod item with no
 * defaults; a claim item with a storage bound; min, defaults and max in order; a ratio of at least 1 and no more than
 * max/min; a resource that cannot be overcommitted defaulted to one amount.
 */
export function limitRangeProblems(range: Obj): { path: (string | number)[]; message: string }[] {
  const out: { path: (string | number)[]; message: string }[] = [];
  const seen = new Set<unknown>();
  (Array.isArray(range?.spec?.limits) ? range.spec.limits : []).forEach((written: Obj, i: number) => {
    const at = ['spec', 'limits', i];
    const item = storedItem(written);
    if (seen.has(item?.type)) out.push({ path: [...at, 'type'], message: `spec.limits[${i}].type: Duplicate value: ${JSON.stringify(item?.type)}` });
    seen.add(item?.type);
    if (item?.type === 'Pod')
      for (const field of ['default', 'defaultRequest'])
        if (Object.keys(list(item[field])).length)
          out.push({ path: [...at, field], message: `spec.limits[${i}].${field}: Forbidden: may not be specified when \`type\` is 'Pod'` });
    if (item?.type === 'PersistentVolumeClaim' && !('storage' in list(item.min)) && !('storage' in list(item.max)))
      out.push({
        path: at,
        message: `spec.limits[${i}].limits: Required value: either minimum or maximum storage value is required, but neither was provided`,
      });
    const [min, max, def, defReq, ratio] = ['min', 'max', 'default', 'defaultRequest', 'maxLimitRequestRatio'].map((f) =>
      item?.type === 'Pod' && f.startsWith('default') ? {} : list(item?.[f]),
    );
    const keys = new Set([...Object.keys(min!), ...Object.keys(max!), ...Object.keys(def!), ...Object.keys(defReq!), ...Object.keys(ratio!)]);
    for (const k of keys) {
      // field.Invalid(path, value, detail), each with the value upstream passes.
      const bad = (field: string, value: unknown, text: string) =>
        out.push({ path: [...at, field, k], message: `spec.limits[${i}].${field}[${k}]: Invalid value: "${shown(value)}": ${text}` });
      const [lo, hi, d, dr, r] = [min![k], max![k], def![k], defReq![k], ratio![k]];
      if (lo !== undefined && hi !== undefined && amount(lo) > amount(hi)) bad('min', lo, `min value ${shown(lo)} is greater than max value ${shown(hi)}`);
      if (dr !== undefined && lo !== undefined && amount(lo) > amount(dr))
        bad('defaultRequest', dr, `min value ${shown(lo)} is greater than default request value ${shown(dr)}`);
      if (dr !== undefined && hi !== undefined && amount(dr) > amount(hi))
        bad('defaultRequest', dr, `default request value ${shown(dr)} is greater than max value ${shown(hi)}`);
      if (dr !== undefined && d !== undefined && amount(dr) > amount(d))
        bad('defaultRequest', dr, `default request value ${shown(dr)} is greater than default limit value ${shown(d)}`);
      if (d !== undefined && lo !== undefined && amount(lo) > amount(d)) bad('default', lo, `min value ${shown(lo)} is greater than default value ${shown(d)}`);
      if (d !== undefined && hi !== undefined && amount(d) > amount(hi)) bad('default', hi, `default value ${shown(d)} is greater than max value ${shown(hi)}`);
      if (r !== undefined && amount(r) < 1) bad('maxLimitRequestRatio', r, `ratio ${shown(r)} is less than 1`);
      if (r !== undefined && lo !== undefined && hi !== undefined && amount(lo) > 0 && amount(r) > amount(hi) / amount(lo))
        bad('maxLimitRequestRatio', r, `ratio ${shown(r)} is greater than max/min = ${(amount(hi) / amount(lo)).toFixed(6)}`);
      if (noOvercommit(k) && d !== undefined && dr !== undefined && amount(d) !== amount(dr))
        bad('defaultRequest', dr, `default value ${shown(d)} must equal to defaultRequest value ${shown(dr)} in ${k}`);
    }
  });
  return out;
}
