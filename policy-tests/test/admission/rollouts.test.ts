/**
 * How workloads roll out, as pkg/apis/apps/validation judges it after the apps/v1 defaults: a Deployment's strategy
 * and progress deadline, a StatefulSet's update strategy, ordinals and claim retention, a DaemonSet's rolling update,
 * and the deadline a controller's pods may not carry.
 */
import { describe, expect, it } from 'vitest';
import { validateBuiltin } from '../../admission/validation/kinds.ts';

const workload = (spec: object, podSpec: object = {}) => ({
  metadata: { name: 'web' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'web:1' }], ...podSpec } },
    ...spec,
  },
});
const said = (kind: string, spec: object, podSpec?: object) =>
  validateBuiltin(kind, workload(spec, podSpec), 35).map((p) => `${p.path.join('.')}: ${p.message}`);

describe("a Deployment's rollout", () => {
  it('admits a surge over 100 % and a strategy that names one side, the other defaulted to 25 %', () => {
    expect(said('Deployment', { strategy: { rollingUpdate: { maxSurge: '200%' } } })).toEqual([]);
    expect(said('Deployment', { strategy: { rollingUpdate: { maxUnavailable: 0 } } })).toEqual([]);
  });
  it('refuses an unavailable share over 100 %, both sides 0, and a progress deadline within minReadySeconds', () => {
    expect(said('Deployment', { strategy: { rollingUpdate: { maxUnavailable: '150%', maxSurge: 1 } } })).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: maxUnavailable must not be greater than 100%',
    ]);
    expect(said('Deployment', { strategy: { rollingUpdate: { maxUnavailable: '0%', maxSurge: 0 } } })).toEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: maxUnavailable may not be 0 when `maxSurge` is 0',
    ]);
    expect(said('Deployment', { minReadySeconds: 60, progressDeadlineSeconds: 60 })).toEqual([
      'spec.progressDeadlineSeconds: progressDeadlineSeconds must be greater than minReadySeconds',
    ]);
  });
  it("refuses a deadline on a controller's pods", () => {
    expect(said('Deployment', {}, { activeDeadlineSeconds: 30 })).toEqual([
      'spec.template.spec.activeDeadlineSeconds: activeDeadlineSeconds in ReplicaSet is not Supported',
    ]);
  });
});

describe("a DaemonSet's rollout", () => {
  it('admits the default, and a surge that sets maxUnavailable to 0', () => {
    expect(said('DaemonSet', {})).toEqual([]);
    expect(said('DaemonSet', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } })).toEqual([]);
  });
  it('refuses a surge beside the default maxUnavailable of 1, and both at 0', () => {
    expect(said('DaemonSet', { updateStrategy: { rollingUpdate: { maxSurge: '25%' } } })).toEqual([
      'spec.updateStrategy.rollingUpdate.maxSurge: maxSurge may not be set when maxUnavailable is non-zero (it defaults to 1: set maxUnavailable: 0)',
    ]);
    expect(said('DaemonSet', { updateStrategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } })).toEqual([
      'spec.updateStrategy.rollingUpdate.maxUnavailable: maxUnavailable cannot be 0 when maxSurge is 0',
    ]);
  });
});

describe("a StatefulSet's rollout", () => {
  it('refuses a rolling update under OnDelete, a negative partition or ordinal, and an unknown retention', () => {
    expect(said('StatefulSet', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } })).toEqual([
      "spec.updateStrategy.rollingUpdate: rollingUpdate: only allowed for updateStrategy 'RollingUpdate'",
    ]);
    expect(
      said('StatefulSet', {
        updateStrategy: { rollingUpdate: { partition: -1 } },
        ordinals: { start: -1 },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Delete', whenScaled: 'Keep' },
      }),
    ).toEqual([
      'spec.updateStrategy.rollingUpdate.partition: partition must be greater than or equal to 0',
      'spec.ordinals.start: ordinals.start must be greater than or equal to 0',
      'spec.persistentVolumeClaimRetentionPolicy.whenScaled: whenScaled: Unsupported value: "Keep": supported values: "Retain", "Delete"',
    ]);
  });
  it('judges maxUnavailable from 1.35, where MaxUnavailableStatefulSet turns on, and drops it before', () => {
    const rolling = (maxUnavailable: unknown) => ({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable } } });
    expect(said('StatefulSet', rolling('50%'))).toEqual([]);
    expect(said('StatefulSet', rolling(0))).toEqual(['spec.updateStrategy.rollingUpdate.maxUnavailable: maxUnavailable cannot be 0']);
    expect(said('StatefulSet', rolling('120%'))).toEqual(['spec.updateStrategy.rollingUpdate.maxUnavailable: maxUnavailable must not be greater than 100%']);
    expect(validateBuiltin('StatefulSet', workload(rolling(0)), 34)).toEqual([]);
  });
  it('validates each claim template as a claim from 1.34 (kubernetes#132212), and says the claim is refused before', () => {
    const claim = (spec: object) => ({ volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], ...spec } }] });
    expect(said('StatefulSet', claim({ resources: { requests: { storage: '10Gi' } } }))).toEqual([]);
    expect(said('StatefulSet', claim({ resources: { requests: { storage: '0' } } }))).toEqual([
      'spec.volumeClaimTemplates.0.spec.resources.requests.storage: storage request "0" must be a quantity greater than zero',
    ]);
    expect(said('StatefulSet', { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }] })).toEqual([
      'spec.volumeClaimTemplates.0.spec.accessModes: at least 1 access mode is required',
    ]);
    const before = validateBuiltin('StatefulSet', workload(claim({ resources: {} })), 33);
    expect(before.map((p) => p.message)).toEqual([
      'resources.requests.storage is required: the API server takes the StatefulSet before 1.34, and refuses the claim its controller makes from it, so no pod starts',
    ]);
    expect(before[0]!.fn).toBe('ValidatePersistentVolumeClaimSpec, as the StatefulSet controller creates the claim');
  });
});
