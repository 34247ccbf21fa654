/**
 * A HorizontalPodAutoscaler as pkg/apis/autoscaling/validation judges it: its replica bounds, the object it scales,
 * each metric (`validateMetricSpec`: the one source its type names, a target of a known type with positive values,
 * the value each source needs) and its scaling behaviour (`validateScalingRules`, `validateScalingPolicy`).
 * HPAScaleToZero is alpha and off, so minReplicas starts at 1.
 */
import { list } from '../../model/core/dig.ts';
import type { PathSegment } from '../../model/core/positions.ts';
import { quantityValue } from '../../model/go/quantity.ts';
import type { Invalid } from './metadata.ts';
import { dns1123Label, notSupported, pathSegmentName } from './syntax.ts';

type Obj = Record<string, any>;

const MAX_PERIOD_SECONDS = 1800;
const MAX_STABILIZATION_SECONDS = 3600;
const SOURCES: Record<string, string> = { Object: 'object', Pods: 'pods', Resource: 'resource', ContainerResource: 'containerResource', External: 'external' };
const FN = 'validateMetricSpec';

/** ValidateCrossVersionObjectReference and validateMetricIdentifier: names that may stand in a URL path. */
function segmentProblems(value: unknown, at: PathSegment[], what: string): Invalid[] {
  if (typeof value !== 'string' || value === '') return [];
  const bad = pathSegmentName(value);
  const fn = what === 'metric name' ? 'validateMetricIdentifier' : 'ValidateCrossVersionObjectReference';
  return bad ? [{ path: at, fn, message: `${what} "${value}": ${bad}` }] : [];
}

function targetProblems(t: Obj, at: PathSegment[]): Invalid[] {
  const fn = 'validateMetricTarget';
  const out: Invalid[] = [];
  if (t.type !== undefined && !['Utilization', 'Value', 'AverageValue'].includes(t.type))
    out.push({ path: [...at, 'type'], fn, message: `type "${String(t.type)}": must be either Utilization, Value, or AverageValue` });
  for (const field of ['value', 'averageValue']) {
    const q = t[field] === undefined ? undefined : quantityValue(t[field]);
    if (t[field] !== undefined && (q === undefined || q <= 0))
      out.push({ path: [...at, field], fn, message: `${field} ${JSON.stringify(t[field])}: must be positive` });
  }
  if (typeof t.averageUtilization === 'number' && t.averageUtilization < 1)
    out.push({ path: [...at, 'averageUtilization'], fn, message: `averageUtilization ${t.averageUtilization}: must be greater than 0` });
  return out;
}

/** What each source asks of its target beside the target's own rules. */
function sourceProblems(kind: string, src: Obj, at: PathSegment[]): Invalid[] {
  const t = (src.target ?? {}) as Obj;
  const here = [...at, 'target'];
  const has = (f: string) => t[f] !== undefined && t[f] !== null;
  const out = [...targetProblems(t, here), ...segmentProblems(src.metric?.name, [...at, 'metric', 'name'], 'metric name')];
  const say = (field: string, message: string) => out.push({ path: [...here, field], fn: `validate${kind}Source`, message });
  if (kind === 'Object' && !has('value') && !has('averageValue')) say('averageValue', 'must set either a target value or averageValue');
  if (kind === 'External') {
    if (!has('value') && !has('averageValue')) say('averageValue', 'must set either a target value for metric or a per-pod target');
    if (has('value') && has('averageValue')) say('value', 'may not set both a target value for metric and a per-pod target');
  }
  if (kind === 'Pods' && !has('averageValue')) say('averageValue', 'must specify a positive target averageValue');
  if (kind === 'Resource' || kind === 'ContainerResource') {
    if (!has('averageUtilization') && !has('averageValue')) say('averageUtilization', 'must set either a target raw value or a target utilization');
    if (has('averageUtilization') && has('averageValue')) say('averageValue', 'may not set both a target raw value and a target utilization');
  }
  if (kind === 'Object') out.push(...segmentProblems(src.describedObject?.name, [...at, 'describedObject', 'name'], 'describedObject name'));
  if (kind === 'ContainerResource' && typeof src.container === 'string') {
    const bad = dns1123Label(src.container);
    if (bad) out.push({ path: [...at, 'container'], fn: 'validateContainerResourceSource', message: `container "${src.container}": ${bad}` });
  }
  return out;
}

function metricProblems(m: Obj, at: PathSegment[]): Invalid[] {
  const expected = SOURCES[m.type];
  if (m.type !== undefined && !expected)
    return [
      {
        path: [...at, 'type'],
        fn: FN,
        message: `type: ${notSupported(m.type, Object.keys(SOURCES))}`,
      },
    ];
  if (!expected) return [];
  const present = Object.entries(SOURCES).filter(([, field]) => m[field] !== undefined && m[field] !== null);
  const out: Invalid[] = [];
  if (m[expected] === undefined || m[expected] === null)
    out.push({ path: [...at, expected], fn: FN, message: `${expected}: must populate information for the given metric source` });
  else out.push(...sourceProblems(m.type, m[expected], [...at, expected]));
  for (const [, field] of present)
    if (field !== expected) out.push({ path: [...at, field], fn: FN, message: `${field}: must populate the given metric source only` });
  return out;
}

function behaviourProblems(rules: Obj, at: PathSegment[]): Invalid[] {
  const out: Invalid[] = [];
  const window = rules.stabilizationWindowSeconds;
  if (typeof window === 'number' && (window < 0 || window > MAX_STABILIZATION_SECONDS))
    out.push({
      path: [...at, 'stabilizationWindowSeconds'],
      fn: 'validateScalingRules',
      message: `stabilizationWindowSeconds ${window}: must be ${window < 0 ? 'greater than or equal to zero' : `less than or equal to ${MAX_STABILIZATION_SECONDS}`}`,
    });
  if (rules.selectPolicy !== undefined && rules.selectPolicy !== null && !['Max', 'Min', 'Disabled'].includes(rules.selectPolicy))
    out.push({
      path: [...at, 'selectPolicy'],
      fn: 'validateScalingRules',
      message: `selectPolicy: ${notSupported(rules.selectPolicy, ['Disabled', 'Max', 'Min'])}`,
    });
  (list(rules.policies) as Obj[]).forEach((p, i) => {
    const here = [...at, 'policies', i];
    const say = (field: string, message: string) => out.push({ path: [...here, field], fn: 'validateScalingPolicy', message });
    if (p?.type !== undefined && p.type !== 'Pods' && p.type !== 'Percent') say('type', `type: ${notSupported(p.type, ['Percent', 'Pods'])}`);
    if (typeof p?.value === 'number' && p.value <= 0) say('value', `value ${p.value}: must be greater than zero`);
    if (typeof p?.periodSeconds === 'number' && (p.periodSeconds <= 0 || p.periodSeconds > MAX_PERIOD_SECONDS))
      say(
        'periodSeconds',
        `periodSeconds ${p.periodSeconds}: must be ${p.periodSeconds <= 0 ? 'greater than zero' : `less than or equal to ${MAX_PERIOD_SECONDS}`}`,
      );
  });
  return out;
}

/** validateHorizontalPodAutoscalerSpec, on autoscaling/v2's fields. */
export function autoscalerProblems(o: Obj): Invalid[] {
  const s = o.spec ?? {};
  const fn = 'ValidateHorizontalPodAutoscalerSpec';
  const out: Invalid[] = [];
  if (typeof s.minReplicas === 'number' && s.minReplicas < 1)
    out.push({ path: ['spec', 'minReplicas'], fn, message: 'minReplicas must be greater than or equal to 1' });
  if (typeof s.maxReplicas === 'number' && s.maxReplicas < Math.max(1, s.minReplicas ?? 1))
    out.push({ path: ['spec', 'maxReplicas'], fn, message: 'maxReplicas must be greater than or equal to minReplicas (and at least 1)' });
  out.push(
    ...segmentProblems(s.scaleTargetRef?.kind, ['spec', 'scaleTargetRef', 'kind'], 'scaleTargetRef kind'),
    ...segmentProblems(s.scaleTargetRef?.name, ['spec', 'scaleTargetRef', 'name'], 'scaleTargetRef name'),
  );
  (list(s.metrics) as Obj[]).forEach((m, i) => out.push(...metricProblems(m ?? {}, ['spec', 'metrics', i])));
  for (const side of ['scaleUp', 'scaleDown']) if (s.behavior?.[side]) out.push(...behaviourProblems(s.behavior[side], ['spec', 'behavior', side]));
  return out;
}
