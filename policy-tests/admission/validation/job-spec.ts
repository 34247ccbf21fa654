/**
 * What k8s.io/kubernetes pkg/apis/batch/validation `validateJobSpec` refuses of a Job's spec, or of a CronJob's job
 * template's, beyond its pod template and selector: the counts, Indexed completion and its limits, a pod failure
 * policy's rules, a success policy's, the replacement policy, `managedBy`; and `ValidateJob`'s hostname of an
 * Indexed Job's last pod. Each field behind a feature gate is judged only where the cluster's minor keeps it: where
 * the gate is off the API server drops the field, and nothing of it is refused.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import type { ValidationFeatures } from './feature-gates.ts';
import type { Invalid } from './metadata.ts';
import { dns1123Label, domainPrefixedPath, notSupported, qualifiedName, tooLong, tooMany } from './syntax.ts';

type Obj = Record<string, any>;

const MAX_PARALLELISM_INDEXED = 100_000;
const MAX_FAILED_INDEXES_INDEXED = 100_000;
const COMPLETIONS_SOFT_LIMIT = 100_000;
const PARALLELISM_HIGH_COMPLETIONS = 10_000;
const MAX_FAILED_INDEXES_HIGH_COMPLETIONS = 10_000;
const MAX_POD_FAILURE_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const MAX_CONDITION_PATTERNS = 20;
const MAX_MANAGED_BY = 63;
const MAX_SUCCEEDED_INDEXES = 64 * 1024;
const MAX_SUCCESS_RULES = 20;

const FN = 'validateJobSpec';
const num = (v: unknown): v is number => typeof v === 'number';

/** parseIndexInterval and validateIndexesFormat: `0,3-5,7`, ascending, each index below `completions`; the count of indexes. */
export function indexesProblem(text: string, completions: number): { total: number } | { error: string } {
  if (text === '') return { total: 0 };
  const atoi = (s: string) => (/^[+-]?\d+$/.test(s) ? Number(s) : undefined);
  let last: number | undefined;
  let total = 0;
  for (const interval of text.split(',')) {
    const limits = interval.split('-');
    if (limits.length > 2)
      return { error: `the fragment ${JSON.stringify(interval)} violates the requirement that an index interval can have at most two parts separated by '-'` };
    const bounds: number[] = [];
    for (const limit of limits) {
      const n = atoi(limit);
      if (n === undefined) return { error: `cannot convert string to integer for index: ${JSON.stringify(limit)}` };
      if (n >= completions) return { error: `too large index: ${JSON.stringify(limit)}` };
      bounds.push(n);
    }
    const [x, y = x] = bounds as [number, number?];
    if (limits.length > 1 && x >= y!) return { error: `non-increasing order, previous: ${x}, current: ${y}` };
    if (last !== undefined && last >= x) return { error: `non-increasing order, previous: ${last}, current: ${x}` };
    total += y! - x + 1;
    last = y;
  }
  return { total };
}

function indexedProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const say = (field: string, message: string) => out.push({ path: [...at, field], fn: FN, message: `${field}: ${message}` });
  if (spec.completionMode !== 'Indexed') {
    if (spec.backoffLimitPerIndex !== undefined && spec.backoffLimitPerIndex !== null) say('backoffLimitPerIndex', 'requires indexed completion mode');
    if (spec.maxFailedIndexes !== undefined && spec.maxFailedIndexes !== null) say('maxFailedIndexes', 'requires indexed completion mode');
    return out;
  }
  const { completions, parallelism, maxFailedIndexes, backoffLimitPerIndex } = spec;
  if (!num(completions)) say('completions', 'Required value: when completion mode is Indexed');
  if (num(parallelism) && parallelism > MAX_PARALLELISM_INDEXED)
    say('parallelism', `must be less than or equal to ${MAX_PARALLELISM_INDEXED} when completion mode is Indexed`);
  if (num(completions) && num(maxFailedIndexes) && maxFailedIndexes > completions) say('maxFailedIndexes', 'must be less than or equal to completions');
  if (num(maxFailedIndexes) && maxFailedIndexes > MAX_FAILED_INDEXES_INDEXED)
    say('maxFailedIndexes', `must be less than or equal to ${MAX_FAILED_INDEXES_INDEXED}`);
  if (num(completions) && completions > COMPLETIONS_SOFT_LIMIT && num(backoffLimitPerIndex)) {
    const high = `when completions are above ${COMPLETIONS_SOFT_LIMIT} and used with backoff limit per index`;
    if (!num(maxFailedIndexes)) say('maxFailedIndexes', `Required value: must be specified when completions is above ${COMPLETIONS_SOFT_LIMIT}`);
    if (num(parallelism) && parallelism > PARALLELISM_HIGH_COMPLETIONS)
      say('parallelism', `must be less than or equal to ${PARALLELISM_HIGH_COMPLETIONS} ${high}`);
    if (num(maxFailedIndexes) && maxFailedIndexes > MAX_FAILED_INDEXES_HIGH_COMPLETIONS)
      say('maxFailedIndexes', `must be less than or equal to ${MAX_FAILED_INDEXES_HIGH_COMPLETIONS} ${high}`);
  }
  return out;
}

function exitCodeProblems(on: Obj, at: PathSegment[], containers: ReadonlySet<string>): Invalid[] {
  const out: Invalid[] = [];
  const say = (path: PathSegment[], message: string) => out.push({ path: [...at, ...path], fn: 'validatePodFailurePolicyRuleOnExitCodes', message });
  if (typeof on.containerName === 'string' && !containers.has(on.containerName))
    say(['containerName'], `containerName "${on.containerName}": must be one of the container or initContainer names in the pod template`);
  const values = list(on.values);
  if (values.length === 0) say(['values'], 'values: at least one value is required');
  else if (values.length > MAX_EXIT_CODE_VALUES) say(['values'], `values: ${tooMany(values.length, MAX_EXIT_CODE_VALUES)}`);
  const seen = new Set<unknown>();
  values.forEach((v, j) => {
    if (on.operator === 'In' && v === 0) say(['values', j], 'values: must not be 0 for the In operator');
    if (seen.has(v)) say(['values', j], `values: Duplicate value: ${String(v)}`);
    seen.add(v);
  });
  if (values.some((v, j) => j > 0 && num(v) && num(values[j - 1]) && (values[j - 1] as number) > v)) say(['values'], 'values: must be ordered');
  return out;
}

function podConditionProblems(patterns: unknown[], at: PathSegment[]): Invalid[] {
  const fn = 'validatePodFailurePolicyRuleOnPodConditions';
  const out: Invalid[] = [];
  if (patterns.length > MAX_CONDITION_PATTERNS) out.push({ path: at, fn, message: `onPodConditions: ${tooMany(patterns.length, MAX_CONDITION_PATTERNS)}` });
  (patterns as Obj[]).forEach((p, j) => {
    const bad = typeof p?.type === 'string' ? qualifiedName(p.type) : 'Required value';
    if (bad) out.push({ path: [...at, j, 'type'], fn, message: `onPodConditions type "${String(p?.type ?? '')}": ${bad}` });
    // A missing status is defaulted to True (SetDefaults_Job); the schema has no enum for it.
    if (p?.status !== undefined && p.status !== null && !['False', 'True', 'Unknown'].includes(p.status))
      out.push({ path: [...at, j, 'status'], fn, message: `status: ${notSupported(p.status, ['False', 'True', 'Unknown'])}` });
  });
  return out;
}

/** validatePodFailurePolicy: at most 20 rules, each an action with exactly one of exit codes and pod conditions. */
function podFailurePolicyProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validatePodFailurePolicyRule';
  const rules = list(spec.podFailurePolicy?.rules) as Obj[];
  const out: Invalid[] = [];
  if (rules.length > MAX_POD_FAILURE_RULES)
    out.push({
      path: [...at, 'rules'],
      fn: 'validatePodFailurePolicy',
      message: `rules: ${tooMany(rules.length, MAX_POD_FAILURE_RULES)}`,
    });
  const podSpec = spec.template?.spec ?? {};
  const containers = new Set([...list(podSpec.containers), ...list(podSpec.initContainers)].map((c) => String((c as Obj)?.name)));
  rules.forEach((rule, i) => {
    const here = [...at, 'rules', i];
    // The schema holds the action to its enum, and the exit codes' operator to theirs.
    if (rule?.action === 'FailIndex' && !num(spec.backoffLimitPerIndex))
      out.push({ path: [...here, 'action'], fn, message: 'action FailIndex: requires the backoffLimitPerIndex to be set' });
    const exitCodes = rule?.onExitCodes;
    const conditions = list(rule?.onPodConditions);
    if (exitCodes) out.push(...exitCodeProblems(exitCodes, [...here, 'onExitCodes'], containers));
    if (conditions.length > 0) out.push(...podConditionProblems(conditions, [...here, 'onPodConditions']));
    if (exitCodes && conditions.length > 0) out.push({ path: here, fn, message: 'specifying both OnExitCodes and OnPodConditions is not supported' });
    if (!exitCodes && conditions.length === 0) out.push({ path: here, fn, message: 'specifying one of OnExitCodes and OnPodConditions is required' });
  });
  // Always (or none, defaulted to it) is refused for every Job; OnFailure only beside a pod failure policy.
  if (spec.template?.spec?.restartPolicy === 'OnFailure')
    out.push({
      path: [...at.slice(0, -1), 'template', 'spec', 'restartPolicy'],
      fn: FN,
      message: 'only "Never" is supported when podFailurePolicy is specified',
    });
  return out;
}

/** validateSuccessPolicy: an Indexed Job's rules, each a count or indexes within its completions. */
function successPolicyProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  if (spec.completionMode !== 'Indexed') return [{ path: at, fn: FN, message: 'successPolicy: requires indexed completion mode' }];
  const fn = 'validateSuccessPolicyRule';
  const rules = list(spec.successPolicy?.rules) as Obj[];
  const out: Invalid[] = [];
  if (rules.length === 0) out.push({ path: [...at, 'rules'], fn, message: 'rules: at least one rules must be specified when the successPolicy is specified' });
  if (rules.length > MAX_SUCCESS_RULES) out.push({ path: [...at, 'rules'], fn, message: `rules: ${tooMany(rules.length, MAX_SUCCESS_RULES)}` });
  const completions = num(spec.completions) ? spec.completions : 0;
  rules.forEach((rule, i) => {
    const here = [...at, 'rules', i];
    if (rule?.succeededCount === undefined && rule?.succeededIndexes === undefined)
      out.push({ path: here, fn, message: 'at least one of succeededCount or succeededIndexes must be specified' });
    let total: number | undefined;
    if (typeof rule?.succeededIndexes === 'string') {
      if (rule.succeededIndexes.length > MAX_SUCCEEDED_INDEXES)
        out.push({ path: [...here, 'succeededIndexes'], fn, message: `succeededIndexes: ${tooLong(MAX_SUCCEEDED_INDEXES)}` });
      const parsed = indexesProblem(rule.succeededIndexes, completions);
      if ('error' in parsed) out.push({ path: [...here, 'succeededIndexes'], fn, message: `error parsing succeededIndexes: ${parsed.error}` });
      total = 'total' in parsed ? parsed.total : 0;
    }
    const count = rule?.succeededCount;
    if (num(count)) {
      const say = (message: string) => out.push({ path: [...here, 'succeededCount'], fn, message: `succeededCount ${count}: ${message}` });
      if (count < 0) say('must be greater than or equal to 0');
      if (count > completions) say(`must be less than or equal to ${completions} (the number of specified completions)`);
      if (total !== undefined && count > total) say(`must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`);
    }
  });
  return out;
}

/** Beside a pod failure policy only Failed; the schema holds the field to its two values elsewhere. */
function replacementPolicyProblems(spec: Obj, at: PathSegment[]): Invalid[] {
  return spec.podFailurePolicy && spec.podReplacementPolicy === 'TerminatingOrFailed'
    ? [{ path: at, fn: 'validatePodReplacementPolicy', message: `podReplacementPolicy: ${notSupported(spec.podReplacementPolicy, ['Failed'])}` }]
    : [];
}

const COUNTS = ['parallelism', 'completions', 'backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished', 'backoffLimitPerIndex', 'maxFailedIndexes'];

/** validateJobSpec beyond the pod template and the selector, in a cluster with these gates on. */
export function jobSpecProblems(spec: Obj, at: PathSegment[], features: ValidationFeatures): Invalid[] {
  const out: Invalid[] = [];
  const perIndex = features.has('JobBackoffLimitPerIndex');
  const kept = (field: string) => perIndex || (field !== 'backoffLimitPerIndex' && field !== 'maxFailedIndexes');
  for (const f of COUNTS.filter(kept))
    if (num(spec[f]) && spec[f] < 0) out.push({ path: [...at, f], fn: FN, message: `${f} must be greater than or equal to 0` });
  const judged = perIndex ? spec : { ...spec, backoffLimitPerIndex: undefined, maxFailedIndexes: undefined };
  if (num(judged.maxFailedIndexes) && !num(judged.backoffLimitPerIndex))
    out.push({ path: [...at, 'backoffLimitPerIndex'], fn: FN, message: 'backoffLimitPerIndex: Required value: when maxFailedIndexes is specified' });
  if (features.has('JobManagedBy') && typeof spec.managedBy === 'string') {
    const bad = domainPrefixedPath(spec.managedBy);
    if (bad) out.push({ path: [...at, 'managedBy'], fn: FN, message: `managedBy "${spec.managedBy}": ${bad}` });
    if (spec.managedBy.length > MAX_MANAGED_BY) out.push({ path: [...at, 'managedBy'], fn: FN, message: `managedBy: ${tooLong(MAX_MANAGED_BY)}` });
  }
  out.push(...indexedProblems(judged, at));
  if (features.has('JobPodFailurePolicy') && spec.podFailurePolicy) out.push(...podFailurePolicyProblems(judged, [...at, 'podFailurePolicy']));
  if (features.has('JobSuccessPolicy') && spec.successPolicy) out.push(...successPolicyProblems(judged, [...at, 'successPolicy']));
  if (features.has('JobPodReplacementPolicy')) out.push(...replacementPolicyProblems(judged, [...at, 'podReplacementPolicy']));
  return out;
}

/** ValidateJob: an Indexed Job's last pod is named `<job>-<completions - 1>`, which must be a DNS label. */
export function indexedHostnameProblems(name: unknown, spec: Obj): Invalid[] {
  if (spec.completionMode !== 'Indexed' || !num(spec.completions) || spec.completions <= 0 || typeof name !== 'string') return [];
  const hostname = `${name}-${spec.completions - 1}`;
  return dns1123Label(hostname)
    ? [{ path: ['metadata', 'name'], fn: 'ValidateJob', message: `will not able to create pod with invalid DNS label: ${hostname}` }]
    : [];
}
