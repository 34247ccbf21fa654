/**
 * Where a pod may be scheduled, as ValidatePodSpec judges it (k8s.io/kubernetes pkg/apis/core/validation
 * `validateAffinity`, `validateTopologySpreadConstraints`, `ValidateTolerations`, and apimachinery's
 * `ValidateLabelSelector`): node selector requirements and their operators, weights, pod affinity terms' topology
 * keys and selectors, each spread constraint's skew, key, action, domains and policies, each toleration's key,
 * operator, value and effect, and the names a pod is placed by (node selector, node, priority class, scheduling
 * and readiness gates). A chart's typo here is refused by the API server at sync, every replica with it.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { validateLabels } from './metadata.ts';
import { labelKeyProblem, labelSelectorProblems } from './label-selector.ts';
import { dns1123Label, dns1123Subdomain, labelValue, notSupported } from './syntax.ts';
import type { ValidationFeatures } from './feature-gates.ts';

type Obj = Record<string, any>;
/** A list of YAML mappings, read loosely as the API's structs (core's `list`, typed for field access). */
const objects = (v: unknown): Obj[] => list(v) as Obj[];

const NODE_OPERATORS = ['DoesNotExist', 'Exists', 'Gt', 'In', 'Lt', 'NotIn'];
const ACTIONS = ['DoNotSchedule', 'ScheduleAnyway'];
const INCLUSION_POLICIES = ['Honor', 'Ignore'];

/** ValidateNodeSelectorRequirement: In and NotIn need values, Exists and DoesNotExist take none, Gt and Lt one. */
function nodeRequirementProblems(r: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'ValidateNodeSelectorRequirement';
  const values = list(r?.values);
  const out: Invalid[] = [];
  const say = (message: string, field = 'values') => out.push({ path: [...at, field], fn, message: `node selector requirement: ${message}` });
  if (r?.operator === 'In' || r?.operator === 'NotIn') {
    if (values.length === 0) say("values must be specified when `operator` is 'In' or 'NotIn'");
  } else if (r?.operator === 'Exists' || r?.operator === 'DoesNotExist') {
    if (values.length > 0) say("values may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
  } else if (r?.operator === 'Gt' || r?.operator === 'Lt') {
    if (values.length !== 1) say("values must be specified single value when `operator` is 'Lt' or 'Gt'");
  } else say(notSupported(r?.operator, NODE_OPERATORS), 'operator');
  return [...out, ...labelKeyProblem(r?.key, [...at, 'key'], fn, 'node selector requirement key')];
}

/** ValidateNodeFieldSelectorRequirement: only metadata.name, with In or NotIn and exactly one value. */
function nodeFieldProblems(r: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'ValidateNodeFieldSelectorRequirement';
  const out: Invalid[] = [];
  if (r?.operator === 'In' || r?.operator === 'NotIn') {
    if (list(r?.values).length !== 1)
      out.push({
        path: [...at, 'values'],
        fn,
        message: "node field selector: values must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
      });
  } else out.push({ path: [...at, 'operator'], fn, message: `node field selector: ${notSupported(r?.operator, ['In', 'NotIn'])}` });
  if (r?.key !== 'metadata.name')
    out.push({ path: [...at, 'key'], fn, message: `node field selector: ${JSON.stringify(r?.key)} is not a valid field selector key` });
  return out;
}

function nodeTermProblems(term: Obj, at: PathSegment[]): Invalid[] {
  return [
    ...objects(term?.matchExpressions).flatMap((r, i) => nodeRequirementProblems(r, [...at, 'matchExpressions', i])),
    ...objects(term?.matchFields).flatMap((r, i) => nodeFieldProblems(r, [...at, 'matchFields', i])),
  ];
}

const weightProblem = (weight: unknown, at: PathSegment[], fn: string): Invalid[] =>
  typeof weight === 'number' && (weight < 1 || weight > 100) ? [{ path: at, fn, message: `weight ${weight}: must be in the range 1-100` }] : [];

function nodeAffinityProblems(affinity: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution as Obj | undefined;
  if (required && typeof required === 'object') {
    const terms = objects(required.nodeSelectorTerms);
    const here = [...at, 'requiredDuringSchedulingIgnoredDuringExecution', 'nodeSelectorTerms'];
    if (terms.length === 0) out.push({ path: here, fn: 'ValidateNodeSelector', message: 'nodeSelectorTerms: must have at least one node selector term' });
    terms.forEach((t, i) => out.push(...nodeTermProblems(t, [...here, i])));
  }
  objects(affinity.preferredDuringSchedulingIgnoredDuringExecution).forEach((p, i) => {
    const here = [...at, 'preferredDuringSchedulingIgnoredDuringExecution', i];
    out.push(...weightProblem(p?.weight, [...here, 'weight'], 'ValidatePreferredSchedulingTerms'), ...nodeTermProblems(p?.preference, [...here, 'preference']));
  });
  return out;
}

/**
 * validateMatchLabelKeysInTopologySpread, where the API server does not merge a spread constraint's keys into its
 * selector (MatchLabelKeysInPodTopologySpreadSelectorMerge off, before 1.34): the keys need a selector, are label
 * names, and none may be a key the selector already names, in matchLabels or matchExpressions.
 */
function unmergedSpreadKeyProblems(c: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateMatchLabelKeysInTopologySpread';
  const keys = list(c?.matchLabelKeys);
  if (keys.length === 0) return [];
  const selector = c?.labelSelector as Obj | undefined | null;
  const out: Invalid[] = [];
  if (!selector || typeof selector !== 'object')
    out.push({ path: [...at, 'matchLabelKeys'], fn, message: 'matchLabelKeys: must not be specified when labelSelector is not set' });
  const named = new Set([...Object.keys(selector?.matchLabels ?? {}), ...objects(selector?.matchExpressions).map((e) => String(e?.key))]);
  keys.forEach((k, i) => {
    out.push(...labelKeyProblem(k, [...at, 'matchLabelKeys', i], fn, 'matchLabelKeys key'));
    if (named.has(String(k)))
      out.push({ path: [...at, 'matchLabelKeys', i], fn, message: `matchLabelKeys "${String(k)}": exists in both matchLabelKeys and labelSelector` });
  });
  return out;
}

/**
 * validateMatchLabelKeysAndMismatchLabelKeys, on the selector the pod is created with: the API server first appends
 * `key In (value)` for each matchLabelKeys key the pod's labels hold, and `key NotIn (value)` for each mismatchLabelKeys
 * key (pkg/registry/core/pod `applyMatchLabelKeysAndMismatchLabelKeys`; for a spread constraint, which has no
 * mismatchLabelKeys, `mutateTopologySpreadConstraints`). Keys need a selector and must be label
 * names; a matchLabelKeys key the selector already names, or one mismatchLabelKeys names too, is refused. A
 * workload's template passes, and every pod it makes is refused.
 */
function mergedLabelKeyProblems(term: Obj, at: PathSegment[], labels: unknown): Invalid[] {
  const fn = 'validateMatchLabelKeysAndMismatchLabelKeys';
  const match = list(term?.matchLabelKeys).map(String);
  const mismatch = list(term?.mismatchLabelKeys).map(String);
  const selector = term?.labelSelector as Obj | undefined | null;
  const out: Invalid[] = [];
  for (const [field, keys] of [
    ['matchLabelKeys', match],
    ['mismatchLabelKeys', mismatch],
  ] as const) {
    if (keys.length === 0) continue;
    if (!selector || typeof selector !== 'object')
      out.push({ path: [...at, field], fn, message: `${field}: must not be specified when labelSelector is not set` });
    else keys.forEach((k, i) => out.push(...labelKeyProblem(k, [...at, field, i], fn, `${field} key`)));
  }
  if (selector && typeof selector === 'object') {
    const own = labels && typeof labels === 'object' ? (labels as Record<string, unknown>) : {};
    const merged = [...objects(selector.matchExpressions).map((e) => String(e?.key)), ...[...match, ...mismatch].filter((k) => k in own)];
    const seen = new Set(Object.keys(selector.matchLabels ?? {}));
    for (const key of merged) {
      if (match.includes(key) && seen.has(key))
        out.push({
          path: [...at, 'matchLabelKeys', match.indexOf(key)],
          fn,
          message: `matchLabelKeys "${key}": exists in both matchLabelKeys and labelSelector (the API server merges the pod's value of it into the selector as it creates the pod, and refuses the pod)`,
        });
      seen.add(key);
    }
  }
  match.forEach((k, i) => {
    if (mismatch.includes(k))
      out.push({ path: [...at, 'matchLabelKeys', i], fn, message: `matchLabelKeys "${k}": exists in both matchLabelKeys and mismatchLabelKeys` });
  });
  return out;
}

/** validatePodAffinityTerm: a topology key, valid selectors, and namespaces that are namespace names. */
function podTermProblems(term: Obj, at: PathSegment[], keys: LabelKeys): Invalid[] {
  const fn = 'validatePodAffinityTerm';
  const out: Invalid[] = keys ? mergedLabelKeyProblems(term, at, keys.labels) : [];
  if (typeof term?.topologyKey !== 'string' || term.topologyKey === '')
    out.push({ path: [...at, 'topologyKey'], fn, message: 'pod affinity term: topologyKey can not be empty' });
  else out.push(...labelKeyProblem(term.topologyKey, [...at, 'topologyKey'], fn, 'pod affinity topologyKey'));
  out.push(
    ...labelSelectorProblems(term?.labelSelector, [...at, 'labelSelector'], 'pod affinity labelSelector'),
    ...labelSelectorProblems(term?.namespaceSelector, [...at, 'namespaceSelector'], 'pod affinity namespaceSelector'),
  );
  list(term?.namespaces).forEach((ns, i) => {
    const bad = typeof ns === 'string' ? dns1123Label(ns) : 'must be a string';
    if (bad) out.push({ path: [...at, 'namespaces', i], fn, message: `pod affinity namespace "${String(ns)}": ${bad}` });
  });
  return out;
}

function podAffinityProblems(affinity: Obj, at: PathSegment[], keys: LabelKeys): Invalid[] {
  return [
    ...objects(affinity.requiredDuringSchedulingIgnoredDuringExecution).flatMap((t, i) =>
      podTermProblems(t, [...at, 'requiredDuringSchedulingIgnoredDuringExecution', i], keys),
    ),
    ...objects(affinity.preferredDuringSchedulingIgnoredDuringExecution).flatMap((w, i) => {
      const here = [...at, 'preferredDuringSchedulingIgnoredDuringExecution', i];
      return [
        ...weightProblem(w?.weight, [...here, 'weight'], 'validateWeightedPodAffinityTerms'),
        ...podTermProblems(w?.podAffinityTerm, [...here, 'podAffinityTerm'], keys),
      ];
    }),
  ];
}

/**
 * Where the cluster reads an affinity term's label keys (MatchLabelKeysInPodAffinity), the pod's labels merged into its
 * selector; undefined where it drops them.
 */
type LabelKeys = { labels: unknown } | undefined;

/** validateAffinity: node affinity, pod affinity and pod anti-affinity. */
export function affinityProblems(affinity: unknown, at: PathSegment[], keys?: LabelKeys): Invalid[] {
  if (!affinity || typeof affinity !== 'object') return [];
  const a = affinity as Obj;
  return [
    ...(a.nodeAffinity ? nodeAffinityProblems(a.nodeAffinity, [...at, 'nodeAffinity']) : []),
    ...(a.podAffinity ? podAffinityProblems(a.podAffinity, [...at, 'podAffinity'], keys) : []),
    ...(a.podAntiAffinity ? podAffinityProblems(a.podAntiAffinity, [...at, 'podAntiAffinity'], keys) : []),
  ];
}

/**
 * A spread constraint's matchLabelKeys in a cluster with these gates: dropped where the field is off, judged on the
 * merged selector from 1.34 as a pod affinity term's keys are, and against the selector as written before that.
 */
function spreadKeyProblems(c: Obj, at: PathSegment[], pod: SpreadContext): Invalid[] {
  if (!pod.features.has('MatchLabelKeysInPodTopologySpread')) return [];
  return pod.features.has('MatchLabelKeysInPodTopologySpreadSelectorMerge') ? mergedLabelKeyProblems(c, at, pod.labels) : unmergedSpreadKeyProblems(c, at);
}

/** What a spread constraint's keys are judged with: the cluster's gates, and the labels each pod is created with. */
export interface SpreadContext {
  features: ValidationFeatures;
  labels: unknown;
}

function constraintProblems(c: Obj, later: readonly Obj[], at: PathSegment[], pod: SpreadContext): Invalid[] {
  const fn = 'validateTopologySpreadConstraints';
  const out: Invalid[] = [];
  const say = (field: PathSegment, message: string) => out.push({ path: [...at, field], fn, message: `topology spread constraint: ${message}` });
  if (typeof c?.maxSkew !== 'number' || c.maxSkew <= 0) say('maxSkew', `maxSkew ${String(c?.maxSkew ?? 0)}: must be greater than zero`);
  if (typeof c?.topologyKey !== 'string' || c.topologyKey === '') say('topologyKey', 'topologyKey can not be empty');
  if (!ACTIONS.includes(c?.whenUnsatisfiable)) say('whenUnsatisfiable', `whenUnsatisfiable: ${notSupported(c?.whenUnsatisfiable ?? '', ACTIONS)}`);
  if (later.some((o) => o?.topologyKey === c?.topologyKey && o?.whenUnsatisfiable === c?.whenUnsatisfiable))
    say('topologyKey', `the pair {topologyKey: ${String(c?.topologyKey)}, whenUnsatisfiable: ${String(c?.whenUnsatisfiable)}} is given twice`);
  if (c?.minDomains !== undefined && c.minDomains !== null) {
    if (typeof c.minDomains !== 'number' || c.minDomains <= 0) say('minDomains', `minDomains ${String(c.minDomains)}: must be greater than zero`);
    if (c.whenUnsatisfiable !== 'DoNotSchedule')
      say('minDomains', `can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ${String(c.whenUnsatisfiable ?? '')}`);
  }
  for (const policy of ['nodeAffinityPolicy', 'nodeTaintsPolicy'])
    if (c?.[policy] !== undefined && c[policy] !== null && !INCLUSION_POLICIES.includes(c[policy]))
      say(policy, `${policy}: ${notSupported(c[policy], INCLUSION_POLICIES)}`);
  return [...out, ...labelSelectorProblems(c?.labelSelector, [...at, 'labelSelector'], 'topology spread labelSelector'), ...spreadKeyProblems(c, at, pod)];
}

/** validateTopologySpreadConstraints: each constraint, and no {topologyKey, whenUnsatisfiable} pair twice. */
export function topologySpreadProblems(constraints: unknown, at: PathSegment[], pod: SpreadContext): Invalid[] {
  const all = objects(constraints);
  return all.flatMap((c, i) => constraintProblems(c, all.slice(i + 1), [...at, i], pod));
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** ValidateTolerations: a key is a label name, an empty key needs Exists, Exists takes no value, Equal a label value. */
function tolerationProblems(t: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'ValidateTolerations';
  const out: Invalid[] = [];
  const say = (field: PathSegment, message: string) => out.push({ path: [...at, field], fn, message: `toleration: ${message}` });
  const key = typeof t?.key === 'string' ? t.key : '';
  if (key !== '') out.push(...labelKeyProblem(key, [...at, 'key'], fn, 'toleration key'));
  if (key === '' && t?.operator !== 'Exists') say('operator', 'operator must be Exists when `key` is empty, which means "match all values and all keys"');
  if (t?.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t?.effect !== 'NoExecute')
    say('effect', "effect must be 'NoExecute' when `tolerationSeconds` is set");
  const value = typeof t?.value === 'string' ? t.value : '';
  if (t?.operator === 'Equal' || t?.operator === undefined || t.operator === '') {
    const bad = labelValue(value);
    if (bad) say('operator', `value "${value}": ${bad}`);
  } else if (t.operator === 'Exists') {
    if (value !== '') say('operator', "value must be empty when `operator` is 'Exists'");
  } else say('operator', notSupported(t.operator, ['Equal', 'Exists']));
  if (typeof t?.effect === 'string' && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect)) say('effect', notSupported(t.effect, TAINT_EFFECTS));
  return out;
}

/** A name the pod is placed by that must be a DNS subdomain (ValidateNodeName, ValidatePriorityClassName). */
function subdomainProblem(value: unknown, at: PathSegment[], fn: string, what: string): Invalid[] {
  if (typeof value !== 'string' || value === '') return [];
  const bad = dns1123Subdomain(value);
  return bad ? [{ path: at, fn, message: `${what} "${value}": ${bad}` }] : [];
}

/** Tolerations, the node selector, the node and priority class named, and the scheduling and readiness gates. */
export function placementProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out = [
    ...objects(spec.tolerations).flatMap((t, i) => tolerationProblems(t, [...at, 'tolerations', i])),
    ...validateLabels(spec.nodeSelector, [...at, 'nodeSelector']),
    ...subdomainProblem(spec.nodeName, [...at, 'nodeName'], 'ValidateNodeName', 'nodeName'),
    ...subdomainProblem(spec.priorityClassName, [...at, 'priorityClassName'], 'ValidatePriorityClassName', 'priorityClassName'),
  ];
  objects(spec.readinessGates).forEach((g, i) =>
    out.push(...labelKeyProblem(g?.conditionType, [...at, 'readinessGates', i, 'conditionType'], 'validateReadinessGates', 'readiness gate conditionType')),
  );
  const seen = new Set<unknown>();
  objects(spec.schedulingGates).forEach((g, i) => {
    out.push(...labelKeyProblem(g?.name, [...at, 'schedulingGates', i], 'validateSchedulingGates', 'scheduling gate'));
    if (seen.has(g?.name))
      out.push({ path: [...at, 'schedulingGates', i], fn: 'validateSchedulingGates', message: `scheduling gate "${String(g?.name)}" is given twice` });
    seen.add(g?.name);
  });
  return out;
}
