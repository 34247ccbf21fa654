/**
 * monitoring-loki-config's ring rule on a rendered Loki built here (the chart's ConfigMap and its workloads, trimmed
 * to what the rule reads): the ingesters that run (-target all, write or ingester) are at least half the replication
 * factor plus one, common.replication_factor's default 3 where the file sets none; an autoscaled ring is not judged.
 */
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { lokiConfigCheck } from '../../checks/monitoring/loki-config.ts';
import { runChecks } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { lokiReference } from '../../model/loki/config.ts';

const repo = await loadRepo(REPO_ROOT);
const version = (lokiReference(repo) as { version: string }).version;

const rendered = (kind: string, name: string, object: Record<string, unknown>, i: number): Resource =>
  ({
    file: 'monitoring/loki/application.yaml',
    doc: 0,
    apiVersion: kind === 'ConfigMap' ? 'v1' : kind === 'HorizontalPodAutoscaler' ? 'autoscaling/v2' : 'apps/v1',
    kind,
    name,
    namespace: 'monitoring',
    object: { kind, metadata: { name, namespace: 'monitoring' }, ...object },
    positions: { at: () => ({ line: 1, col: 1 }) },
    rendered: { id: `loki#${i}`, app: 'loki', source: 'chart loki 18.11.0' },
  }) as Resource;

/** A Loki workload running `target` with `replicas` pods. */
const workload = (name: string, target: string, replicas?: number) => ({
  name,
  object: {
    spec: {
      ...(replicas === undefined ? {} : { replicas }),
      template: {
        spec: {
          containers: [{ name: 'loki', image: `docker.io/grafana/loki:${version}`, args: ['-config.file=/etc/loki/config/config.yaml', `-target=${target}`] }],
        },
      },
    },
  },
});

/** The ring findings (and not-judged) for a Loki of this common block and these workloads. */
function judged(common: Record<string, unknown> | undefined, workloads: ReturnType<typeof workload>[], autoscaled?: string): string[] {
  const config = { auth_enabled: false, ...(common ? { common } : {}) };
  const resources = [
    rendered('ConfigMap', 'loki', { data: { 'config.yaml': stringify(config) } }, 0),
    ...workloads.map((w, i) => rendered('StatefulSet', w.name, w.object, i + 1)),
    ...(autoscaled
      ? [rendered('HorizontalPodAutoscaler', 'loki', { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'StatefulSet', name: autoscaled } } }, 9)]
      : []),
  ];
  return runChecks({ ...repo, resources: [...repo.resources, ...resources] }, [lokiConfigCheck])
    .findings.filter((f) => /ring|ingesters/.test(f.message))
    .map((f) => `${f.severity ?? 'fail'}: ${f.message}`);
}

describe("monitoring-loki-config: Loki's ingester ring", () => {
  it('passes a single binary of factor 1, and three writers of factor 3 (two of them enough)', () => {
    expect(judged({ replication_factor: 1 }, [workload('loki', 'all', 1)])).toEqual([]);
    expect(judged({ replication_factor: 3 }, [workload('loki-write', 'write', 3), workload('loki-read', 'read', 1)])).toEqual([]);
    expect(judged({ replication_factor: 3 }, [workload('loki-write', 'write', 2)])).toEqual([]);
  });

  it("fails a ring with fewer live ingesters than a push needs, the factor written or Loki's default", () => {
    expect(judged(undefined, [workload('loki', 'all')])).toEqual([
      expect.stringMatching(
        /^fail: Loki replicates each stream to 3 ingesters \(common\.replication_factor, Loki's default\), and the ring has 1 \(StatefulSet loki \(1\)\): .*"at least 2 live replicas required, could only find 1"/,
      ),
    ]);
    expect(judged({ replication_factor: 5 }, [workload('loki-write', 'write', 2), workload('loki-backend', 'backend', 3)])).toEqual([
      expect.stringMatching(
        /^fail: Loki replicates each stream to 5 ingesters \(common\.replication_factor\), and the ring has 2 \(StatefulSet loki-write \(2\)\)/,
      ),
    ]);
  });

  it('says not judged where the ingesters are autoscaled', () => {
    expect(judged({ replication_factor: 3 }, [workload('loki', 'all', 1)], 'loki')).toEqual([
      expect.stringMatching(/^not-judged: Loki's ring needs 2 live ingesters for a push, and StatefulSet loki is autoscaled/),
    ]);
  });
});
