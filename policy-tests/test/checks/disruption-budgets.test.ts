/**
 * workload-disruption-budget counts as Kubernetes' disruption controller counts (getExpectedPodCount): minAvailable
 * as a number against the pods, a percentage or maxUnavailable against the controllers' scale rounded up, a
 * DaemonSet's pods unscalable; a null selector selects nothing and an empty one every pod of the namespace.
 */
import { describe, expect, it } from 'vitest';
import { disruptionBudgetCheck } from '../../checks/workload-hygiene/disruption-budgets.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const api = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'portfolio-api')!;
const realBudget = repo.resources.find((r) => r.kind === 'PodDisruptionBudget' && r.name === 'portfolio-api')!;

/** A resource placed as the API's Deployment is (its file, its Application), in its namespace. */
const like = (kind: string, name: string, object: Record<string, unknown>): Resource =>
  ({ ...api, kind, name, namespace: 'portfolio', object: { ...object, kind, metadata: { name, namespace: 'portfolio' } } }) as Resource;
const budget = (spec: Record<string, unknown>, selector: unknown = { matchLabels: { app: 'x' } }) =>
  like('PodDisruptionBudget', 'x', { apiVersion: 'policy/v1', spec: { ...spec, ...(selector === null ? {} : { selector }) } });
const workload = (kind: string, spec: Record<string, unknown> = {}) =>
  like(kind, `x-${kind.toLowerCase()}`, { apiVersion: 'apps/v1', spec: { ...spec, template: { metadata: { labels: { app: 'x' } } } } });

/** The real repository without its own budget, plus `extra`: the verdicts on the new ones alone. */
const judged = (...extra: Resource[]) =>
  runPolicy({ ...repo, resources: [...repo.resources.filter((r) => r !== realBudget), ...extra] }, [disruptionBudgetCheck]).map((f) => f.message);

describe('workload-disruption-budget', () => {
  it('passes the real repository', () => {
    expect(runPolicy(repo, [disruptionBudgetCheck])).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, number, boolean]>([
    ['minAvailable 1 of 1', { minAvailable: 1 }, 1, false],
    ['minAvailable 1 of 2', { minAvailable: 1 }, 2, true],
    ['minAvailable 50% of 1 (rounded up to 1)', { minAvailable: '50%' }, 1, false],
    ['minAvailable 50% of 3 (2)', { minAvailable: '50%' }, 3, true],
    ['maxUnavailable 0', { maxUnavailable: 0 }, 3, false],
    ['maxUnavailable 10% of 3 (rounded up to 1)', { maxUnavailable: '10%' }, 3, true],
    ['minAvailable 100%', { minAvailable: '100%' }, 5, false],
  ])('%s: allows a disruption %s', (_what, spec, replicas, allows) => {
    const found = judged(budget(spec), workload('Deployment', { replicas }));
    expect(found.length === 0).toBe(allows);
    if (!allows) expect(found[0]).toMatch(/allows no disruption of the \d+ pod\(s\) of Deployment x-deployment, even all healthy/);
  });

  it("fails a budget that counts by scale over a DaemonSet's pods, and leaves a number over them, or an autoscaled workload, to the cluster", () => {
    expect(judged(budget({ maxUnavailable: 1 }), workload('DaemonSet'))).toEqual([
      expect.stringMatching(
        /counts by scale \(maxUnavailable: 1\) and selects the pods of DaemonSet x-daemonset, whose scale the disruption controller cannot find/,
      ),
    ]);
    expect(judged(budget({ minAvailable: 1 }), workload('DaemonSet'))).toEqual([]);
    const hpa = like('HorizontalPodAutoscaler', 'x', { apiVersion: 'autoscaling/v2', spec: { scaleTargetRef: { kind: 'Deployment', name: 'x-deployment' } } });
    expect(judged(budget({ minAvailable: 1 }), workload('Deployment', { replicas: 1 }), hpa)).toEqual([]);
  });

  it('reads a null selector as selecting nothing, and an empty one as every pod of the namespace', () => {
    // It allows no disruption of nothing, and guards nothing: that is the finding.
    expect(judged(budget({ minAvailable: 1 }, null), workload('Deployment', { replicas: 1 }))).toEqual([
      expect.stringMatching(/^PodDisruptionBudget x has no selector, which policy\/v1 reads as selecting no pod: it guards nothing/),
    ]);
    // The empty one also selects the API's two pods: three in all.
    expect(judged(budget({ minAvailable: 3 }, {}), workload('Deployment', { replicas: 1 }))).toEqual([
      expect.stringContaining('allows no disruption of the 3 pod(s)'),
    ]);
  });

  it('fails a budget with neither minAvailable nor maxUnavailable (null is none), which keeps no pod', () => {
    for (const spec of [{}, { minAvailable: null, maxUnavailable: null }])
      expect(judged(budget(spec), workload('Deployment', { replicas: 2 }))).toEqual([
        expect.stringMatching(/^PodDisruptionBudget x has neither minAvailable nor maxUnavailable: the disruption controller keeps none of its pods healthy/),
      ]);
  });
});
