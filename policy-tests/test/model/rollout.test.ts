/**
 * What a workload's controller does when its pod template changes, and how a pod reads a ConfigMap or Secret
 * (model/controller/rollout.ts), case by case as Kubernetes' controllers and the kubelet act.
 */
import { describe, expect, it } from 'vitest';
import { configReadsOf, rolloutOf } from '../../model/controller/rollout.ts';

const deployment = (spec: Record<string, unknown>) => ({ apiVersion: 'apps/v1', kind: 'Deployment', spec });

describe('rolloutOf', () => {
  it.each([
    [
      'the defaults, 4 replicas: 25% surge rounded up, 25% down rounded down',
      { replicas: 4 },
      false,
      /of its 4 pod\(s\): up to 1 new above them, up to 1 down/,
    ],
    ['1 replica: the surge rounds up to 1 and none goes first', { replicas: 1 }, false, /up to 1 new above them, none goes before its replacement is ready/],
    [
      'maxSurge 0 and maxUnavailable 0%: one goes at a time (ResolveFenceposts)',
      { replicas: 3, strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } },
      false,
      /none added above them, up to 1 down at a time/,
    ],
    ['Recreate: down meanwhile', { replicas: 2, strategy: { type: 'Recreate' } }, false, /^Recreate: its 2 pod\(s\) stop before the new ones start/],
    [
      'replicas left to an autoscaler: the strategy as written',
      { strategy: { rollingUpdate: { maxSurge: 2 } } },
      false,
      /its pods \(maxSurge 2, maxUnavailable 25%\)/,
    ],
    ['paused: nothing until resumed', { replicas: 2, paused: true }, true, /kubectl rollout resume/],
  ])('a Deployment, %s', (_why, spec, waits, how) => {
    const r = rolloutOf('Deployment', deployment(spec));
    expect(r?.waits).toBe(waits);
    expect(r?.how).toMatch(how);
  });

  it('says nothing of a workload with no pods, or a count it cannot read, or a kind with no kept template', () => {
    expect(rolloutOf('Deployment', deployment({ replicas: 0 }))).toBeUndefined();
    expect(rolloutOf('StatefulSet', { spec: { replicas: '{{ .Values.n }}' } })).toBeUndefined();
    expect(rolloutOf('Job', { spec: {} })).toBeUndefined();
    expect(rolloutOf('CronJob', { spec: {} })).toBeUndefined();
  });

  it('a StatefulSet rolls one pod at a time, keeps the pods below its partition, and waits under OnDelete or a partition at its replicas', () => {
    expect(rolloutOf('StatefulSet', { spec: { replicas: 3 } })).toEqual({
      waits: false,
      how: expect.stringMatching(/^one pod at a time from the highest ordinal/),
    });
    expect(rolloutOf('StatefulSet', { spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 1 } } } })?.how).toMatch(/pods below ordinal 1/);
    expect(rolloutOf('StatefulSet', { spec: { replicas: 3, updateStrategy: { rollingUpdate: { partition: 3 } } } })?.waits).toBe(true);
    expect(rolloutOf('StatefulSet', { spec: { updateStrategy: { type: 'OnDelete' } } })).toEqual({ waits: true, how: expect.stringMatching(/OnDelete/) });
  });

  it('a DaemonSet rolls node by node (maxUnavailable 1 by default) and waits under OnDelete; a ReplicaSet never replaces its pods', () => {
    expect(rolloutOf('DaemonSet', { spec: {} })).toEqual({ waits: false, how: 'node by node, up to 1 unavailable at a time' });
    expect(rolloutOf('DaemonSet', { spec: { updateStrategy: { rollingUpdate: { maxUnavailable: '10%' } } } })?.how).toContain('up to 10% unavailable');
    expect(rolloutOf('DaemonSet', { spec: { updateStrategy: { type: 'OnDelete' } } })?.waits).toBe(true);
    expect(rolloutOf('ReplicaSet', { spec: { replicas: 2 } })?.waits).toBe(true);
  });

  it('reads malformed objects without throwing', () => {
    for (const o of [null, 'x', [], { spec: null }, { spec: { strategy: 'x', replicas: 2 } }, { spec: { updateStrategy: [] } }])
      for (const kind of ['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']) expect(() => rolloutOf(kind, o)).not.toThrow();
  });
});

describe('configReadsOf', () => {
  it('reads environment, envFrom, volumes (projected ones too) and subPath mounts, per container', () => {
    const spec = {
      volumes: [
        { name: 'conf', configMap: { name: 'settings' } },
        { name: 'both', projected: { sources: [{ configMap: { name: 'extra' } }, { secret: { name: 'tls' } }] } },
        { name: 'one-file', secret: { secretName: 'token' } },
        { name: 'unused', configMap: { name: 'nobody' } },
      ],
      initContainers: [{ name: 'init', envFrom: [{ configMapRef: { name: 'settings' } }] }],
      containers: [
        {
          name: 'app',
          env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } }],
          volumeMounts: [
            { name: 'conf', mountPath: '/etc/app' },
            { name: 'both', mountPath: '/etc/extra' },
            { name: 'one-file', mountPath: '/run/token', subPath: 'token' },
          ],
        },
      ],
    };
    expect(configReadsOf(spec)).toEqual([
      { kind: 'ConfigMap', name: 'settings', how: 'env', container: 'init' },
      { kind: 'Secret', name: 'db', how: 'env', container: 'app' },
      { kind: 'ConfigMap', name: 'settings', how: 'volume', container: 'app' },
      { kind: 'ConfigMap', name: 'extra', how: 'volume', container: 'app' },
      { kind: 'Secret', name: 'tls', how: 'volume', container: 'app' },
      { kind: 'Secret', name: 'token', how: 'subPath', container: 'app' },
    ]);
  });

  it('reads malformed pod specs as reading nothing', () => {
    for (const spec of [
      undefined,
      null,
      'x',
      { containers: 'x' },
      { containers: [null, { env: 'x', envFrom: [null], volumeMounts: [null] }], volumes: [null, 1] },
    ])
      expect(() => configReadsOf(spec)).not.toThrow();
    expect(configReadsOf({ containers: [{ name: 'a', env: [{ valueFrom: { configMapKeyRef: { name: '' } } }] }] })).toEqual([]);
  });
});
