/**
 * A HorizontalPodAutoscaler as its controller and Argo CD read it: closure-autoscaler finds its target and the
 * metrics API each metric type is read from (CPU by default, autoscaling/v1's CPU), and says "not judged" while a
 * source that may provide the API is not rendered; argocd-autoscaled-replicas fails a target whose manifest declares
 * replicas unless its Application ignores them and respects that in the sync.
 */
import { describe, expect, it } from 'vitest';
import { argocdAutoscaledReplicasCheck } from '../../checks/argocd/autoscaled.ts';
import { autoscalerClosureCheck } from '../../checks/closure/autoscalers.ts';
import { resolveJqExpressions } from '../../model/compare/ignore-differences.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT, type Repo } from '../../model/repository/repo.ts';

const repo = await loadRepo(REPO_ROOT);
const api = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'portfolio-api')!;
const app = repo.resources.find((r) => r.kind === 'Application' && r.name === 'portfolio-api')!;

/** A resource placed as the API's Deployment is (its file, its Application). */
const like = (kind: string, name: string, object: Record<string, unknown>): Resource =>
  ({
    ...api,
    kind,
    name,
    apiVersion: String(object.apiVersion),
    namespace: 'portfolio',
    object: { ...object, kind, metadata: { name, namespace: 'portfolio' } },
  }) as Resource;

const hpa = (spec: Record<string, unknown>, apiVersion = 'autoscaling/v2') =>
  like('HorizontalPodAutoscaler', 'api', {
    apiVersion,
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'portfolio-api' }, maxReplicas: 4, ...spec },
  });
const apiService = (name: string) => ({ ...like('APIService', name, { apiVersion: 'apiregistration.k8s.io/v1' }), namespace: undefined }) as Resource;

const withResources = (extra: Resource[], base: Repo = repo): Repo => ({ ...base, resources: [...base.resources, ...extra] });
const messages = (r: Repo, check = autoscalerClosureCheck) => runPolicy(r, [check]).map((f) => `${f.severity ?? 'error'} ${f.message}`);

describe('closure-autoscaler', () => {
  it('passes the real repository, which has no autoscaler', () => {
    expect(messages(repo)).toEqual([]);
  });

  it('needs the resource metrics API for CPU, by default and in autoscaling/v1, and the custom and external ones for theirs', () => {
    expect(messages(withResources([hpa({})]))).toEqual([
      expect.stringMatching(
        /^error HorizontalPodAutoscaler api reads CPU \(its default metric\), which it reads from the resource metrics API \(APIService v1beta1\.metrics\.k8s\.io, served by metrics-server\)/,
      ),
    ]);
    expect(messages(withResources([hpa({ targetCPUUtilizationPercentage: 70 }, 'autoscaling/v1'), apiService('v1beta1.metrics.k8s.io')]))).toEqual([]);
    const mixed = hpa({ metrics: [{ type: 'Pods' }, { type: 'External' }, { type: 'Resource' }] });
    expect(messages(withResources([mixed, apiService('v1beta1.metrics.k8s.io'), apiService('v1beta2.custom.metrics.k8s.io')]))).toEqual([
      expect.stringMatching(/^error HorizontalPodAutoscaler api reads External metrics, which it reads from the external metrics API/),
    ]);
  });

  it('finds its target in its namespace, and fails one with no scale subresource', () => {
    const served = apiService('v1beta1.metrics.k8s.io');
    const to = (kind: string, name: string) => hpa({ scaleTargetRef: { apiVersion: 'apps/v1', kind, name } });
    expect(messages(withResources([to('Deployment', 'portfolio-apii'), served]))).toEqual([
      expect.stringMatching(
        /^error HorizontalPodAutoscaler api scales Deployment portfolio\/portfolio-apii, which nothing in the repository provides: .*did you mean "portfolio-api"/,
      ),
    ]);
    expect(messages(withResources([to('DaemonSet', 'node-agent'), served]))).toEqual([
      expect.stringMatching(/scales DaemonSet node-agent, which has no scale subresource/),
    ]);
  });

  it('says a metrics API it cannot find is not judged while a source is not rendered', () => {
    const unrendered = [{ status: 'not-rendered', app: { name: 'metrics-server' } }] as unknown as Parameters<typeof runPolicy>[2];
    expect(runPolicy(withResources([hpa({})]), [autoscalerClosureCheck], unrendered).map((f) => f.severity)).toEqual(['not-judged']);
  });
});

describe('argocd-autoscaled-replicas', () => {
  const ignoring = (pointer: string, respect: boolean): Resource => {
    const spec = app.object.spec as Record<string, unknown>;
    const syncPolicy = spec.syncPolicy as Record<string, unknown>;
    return {
      ...app,
      object: {
        ...app.object,
        spec: {
          ...spec,
          ignoreDifferences: [
            { group: 'apps', kind: 'Deployment', ...(pointer.startsWith('.') ? { jqPathExpressions: [pointer] } : { jsonPointers: [pointer] }) },
          ],
          syncPolicy: { ...syncPolicy, ...(respect ? { syncOptions: ['RespectIgnoreDifferences=true'] } : {}) },
        },
      },
    } as Resource;
  };
  const withApp = (application: Resource) => withResources([hpa({})], { ...repo, resources: repo.resources.map((r) => (r === app ? application : r)) });

  it('fails the declared replicas of a workload an autoscaler scales, unless its Application ignores them and respects that', async () => {
    expect(messages(withResources([hpa({})]), argocdAutoscaledReplicasCheck)).toEqual([
      'error Deployment portfolio-api declares spec.replicas: 2, and HorizontalPodAutoscaler api scales it: each scale makes Application portfolio-api OutOfSync, and each sync sets the count back to 2, so Argo CD and the autoscaler fight',
    ]);
    expect(messages(withApp(ignoring('/spec/replicas', false)), argocdAutoscaledReplicasCheck)).toEqual([
      expect.stringMatching(/ignores \/spec\/replicas, so it stays Synced, but without RespectIgnoreDifferences=true each sync still sends 2/),
    ]);
    expect(messages(withApp(ignoring('/spec/replicas', true)), argocdAutoscaledReplicasCheck)).toEqual([]);
    // A jq expression, before jq has named what it deletes, is not judged; after, it is read as the pointer is.
    const jq = ignoring('.spec.replicas', true);
    expect(messages(withApp(jq), argocdAutoscaledReplicasCheck)).toEqual([expect.stringMatching(/^not-judged .*ignores jq \.spec\.replicas/)]);
    await resolveJqExpressions(() => [{ object: api.object, appSpec: jq.object.spec }], [jq.object.spec]);
    expect(messages(withApp(jq), argocdAutoscaledReplicasCheck)).toEqual([]);
  });
});
