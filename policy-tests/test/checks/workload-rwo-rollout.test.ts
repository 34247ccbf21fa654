/**
 * workload-rwo-rollout: a claim one node alone can attach (every mode ReadWriteOnce or ReadWriteOncePod) needs one
 * replica and a rollout that does not surge: Recreate, or a rolling update with maxSurge 0. A claim another mode
 * lets several nodes share is left alone.
 */
import { describe, expect, it } from 'vitest';
import { workloadChecks } from '../../checks/workload-hygiene/hygiene.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const check = workloadChecks.find((c) => c.id === 'workload-rwo-rollout')!;
const base = repo.resources.find((r) => r.kind === 'Deployment')!;

const claim = (name: string, accessModes: string[]): Resource =>
  ({
    ...base,
    kind: 'PersistentVolumeClaim',
    name,
    namespace: 'lab',
    object: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: 'lab' }, spec: { accessModes } },
  }) as Resource;
const deployment = (name: string, claimName: string, spec: object = {}): Resource =>
  ({
    ...base,
    kind: 'Deployment',
    name,
    namespace: 'lab',
    object: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'lab' },
      spec: { ...spec, template: { spec: { containers: [{ name: 'app' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } } },
    },
  }) as Resource;

const messages = (extra: Resource[]) =>
  runPolicy({ ...repo, resources: [...repo.resources, ...extra] } as Repo, [check]).map((f) => f.message.replace(/:.*/, ''));

describe('workload-rwo-rollout', () => {
  it('passes the real repository', () => {
    expect(messages([])).toEqual([]);
  });

  it('holds a one-node claim to one replica and a rollout that does not surge', () => {
    const extra = [
      claim('rwo', ['ReadWriteOnce']),
      claim('rwop', ['ReadWriteOncePod']),
      claim('shared', ['ReadWriteOnce', 'ReadWriteMany']),
      deployment('default-rollout', 'rwo'),
      deployment('no-surge', 'rwo', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } }),
      deployment('recreate-two', 'rwop', { replicas: 2, strategy: { type: 'Recreate' } }),
      deployment('on-shared', 'shared', { replicas: 3 }),
    ];
    expect(messages(extra)).toEqual([
      'Deployment default-rollout mounts claim rwo, which one node alone can attach, and rolls out by surging (a rolling update with maxSurge 25%)',
      'Deployment recreate-two runs 2 replicas on claim rwop, which one node alone can attach',
    ]);
  });
});
