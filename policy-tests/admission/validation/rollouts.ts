/**
 * How each workload rolls out, as pkg/apis/apps/validation judges it after the apps/v1 defaults: a Deployment's
 * strategy (`ValidateDeploymentStrategy`, `ValidateRollingUpdateDeployment`) and progress deadline, a StatefulSet's
 * update strategy (`validateRollingUpdateStatefulSet`), ordinals and claim retention, a DaemonSet's update strategy
 * (`ValidateRollingUpdateDaemonSet`), and the deadline a controller's pods may not carry. The strategy types are
 * the schema's enums.
 */
import type { PathSegment } from '../../model/core/positions.ts';
import type { Invalid } from './metadata.ts';
import { intOrPercent, notSupported } from './syntax.ts';
import type { ValidationFeatures } from './feature-gates.ts';

type Obj = Record<string, any>;

const percent = (v: unknown): number | undefined => (typeof v === 'string' && /^[0-9]+%$/.test(v) ? Number(v.slice(0, -1)) : undefined);
/** getIntOrPercentValue: a percentage's number, or the integer. */
const amount = (v: unknown): number => percent(v) ?? (typeof v === 'number' ? v : 0);

/** ValidatePositiveIntOrPercent on a rolling update's field, and IsNotMoreThan100Percent where the kind caps it. */
function intOrPercentProblems(ru: Obj, field: string, where: { at: PathSegment[]; fn: string; capped: boolean }): Invalid[] {
  const { at, fn } = where;
  const out: Invalid[] = [];
  const bad = intOrPercent(ru[field]);
  if (bad) out.push({ path: [...at, field], fn, message: `${field} ${bad}` });
  if (where.capped && (percent(ru[field]) ?? 0) > 100) out.push({ path: [...at, field], fn, message: `${field} must not be greater than 100%` });
  return out;
}

/** A Deployment's strategy, its rolling update defaulted to 25 % on either side it leaves out. */
export function deploymentStrategyProblems(o: Obj): Invalid[] {
  const s = o.spec?.strategy;
  const at: PathSegment[] = ['spec', 'strategy', 'rollingUpdate'];
  if (s?.type === 'Recreate')
    return s.rollingUpdate
      ? [{ path: at, fn: 'ValidateDeploymentStrategy', message: "rollingUpdate may not be specified when strategy `type` is 'Recreate'" }]
      : [];
  const ru = { maxUnavailable: '25%', maxSurge: '25%', ...(s?.rollingUpdate ?? {}) };
  const fn = 'ValidateRollingUpdateDeployment';
  // A surge may pass 100 %; only the pods taken away are capped.
  const out = [...intOrPercentProblems(ru, 'maxUnavailable', { at, fn, capped: true }), ...intOrPercentProblems(ru, 'maxSurge', { at, fn, capped: false })];
  if (amount(ru.maxUnavailable) === 0 && amount(ru.maxSurge) === 0)
    out.push({ path: [...at, 'maxUnavailable'], fn, message: 'maxUnavailable may not be 0 when `maxSurge` is 0' });
  const deadline = o.spec?.progressDeadlineSeconds;
  if (typeof deadline === 'number' && deadline <= (o.spec?.minReadySeconds ?? 0))
    out.push({
      path: ['spec', 'progressDeadlineSeconds'],
      fn: 'ValidateDeploymentSpec',
      message: 'progressDeadlineSeconds must be greater than minReadySeconds',
    });
  return out;
}

const RETENTION = ['Retain', 'Delete'];

/** A StatefulSet's update strategy (its maxUnavailable where MaxUnavailableStatefulSet keeps it), ordinals and claim retention. */
export function statefulSetRolloutProblems(o: Obj, features: ValidationFeatures): Invalid[] {
  const spec = o.spec ?? {};
  const fn = 'ValidateStatefulSetSpec';
  const out: Invalid[] = [];
  const strategy = spec.updateStrategy ?? {};
  const at: PathSegment[] = ['spec', 'updateStrategy', 'rollingUpdate'];
  if (strategy.type === 'OnDelete' && strategy.rollingUpdate)
    out.push({ path: at, fn, message: "rollingUpdate: only allowed for updateStrategy 'RollingUpdate'" });
  const partition = strategy.rollingUpdate?.partition;
  if (strategy.type !== 'OnDelete' && typeof partition === 'number' && partition < 0)
    out.push({ path: [...at, 'partition'], fn: 'validateRollingUpdateStatefulSet', message: 'partition must be greater than or equal to 0' });
  const most = strategy.rollingUpdate?.maxUnavailable;
  if (strategy.type !== 'OnDelete' && features.has('MaxUnavailableStatefulSet') && most !== undefined && most !== null) {
    const where = { at, fn: 'validateRollingUpdateStatefulSet', capped: true };
    out.push(...intOrPercentProblems(strategy.rollingUpdate, 'maxUnavailable', where));
    if (amount(most) === 0) out.push({ path: [...at, 'maxUnavailable'], fn: where.fn, message: 'maxUnavailable cannot be 0' });
  }
  const start = spec.ordinals?.start;
  if (typeof start === 'number' && start < 0)
    out.push({ path: ['spec', 'ordinals', 'start'], fn, message: 'ordinals.start must be greater than or equal to 0' });
  for (const when of ['whenDeleted', 'whenScaled']) {
    const value = spec.persistentVolumeClaimRetentionPolicy?.[when];
    if (value !== undefined && value !== null && !RETENTION.includes(value))
      out.push({
        path: ['spec', 'persistentVolumeClaimRetentionPolicy', when],
        fn: 'ValidatePersistentVolumeClaimRetentionPolicyType',
        message: `${when}: ${notSupported(value, RETENTION)}`,
      });
  }
  return out;
}

/** A DaemonSet's rolling update, defaulted to one pod unavailable and none surged: exactly one of them not zero. */
export function daemonSetRolloutProblems(o: Obj): Invalid[] {
  const strategy = o.spec?.updateStrategy;
  if (strategy?.type === 'OnDelete') return [];
  const ru = { maxUnavailable: 1, maxSurge: 0, ...(strategy?.rollingUpdate ?? {}) };
  const at: PathSegment[] = ['spec', 'updateStrategy', 'rollingUpdate'];
  const fn = 'ValidateRollingUpdateDaemonSet';
  const out = [...intOrPercentProblems(ru, 'maxUnavailable', { at, fn, capped: true }), ...intOrPercentProblems(ru, 'maxSurge', { at, fn, capped: true })];
  const unavailable = amount(ru.maxUnavailable) !== 0;
  const surge = amount(ru.maxSurge) !== 0;
  if (unavailable && surge)
    out.push({
      path: [...at, 'maxSurge'],
      fn,
      message: `maxSurge may not be set when maxUnavailable is non-zero${strategy?.rollingUpdate?.maxUnavailable === undefined ? ' (it defaults to 1: set maxUnavailable: 0)' : ''}`,
    });
  if (!unavailable && !surge) out.push({ path: [...at, 'maxUnavailable'], fn, message: 'maxUnavailable cannot be 0 when maxSurge is 0' });
  return out;
}

/** A controller's pods run until they are replaced: none carries activeDeadlineSeconds. */
export function templateDeadlineProblems(o: Obj, kind: string): Invalid[] {
  return o.spec?.template?.spec?.activeDeadlineSeconds !== undefined && o.spec.template.spec.activeDeadlineSeconds !== null
    ? [
        {
          path: ['spec', 'template', 'spec', 'activeDeadlineSeconds'],
          fn: `Validate${kind}Spec`,
          message: `activeDeadlineSeconds in ${kind === 'Deployment' ? 'ReplicaSet' : kind} is not Supported`,
        },
      ]
    : [];
}
