/**
 * A check run on the real repository with kube-prometheus-stack rendered as one Grafana Deployment running `sidecar`
 * (a k8s-sidecar container), beside `extra` objects of the chart: how the tests judge a rendered sidecar offline.
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { GRAFANA_CHART } from '../../model/grafana/sidecars.ts';

export async function judgedWithGrafana(
  check: PolicyCheck | readonly PolicyCheck[],
  sidecar: Record<string, unknown>,
  extra: Record<string, unknown>[],
): Promise<{ failed: string[]; notJudged: string[] }> {
  const repo = await loadRepo(REPO_ROOT);
  const app = applications(repo).find((a) => a.name === GRAFANA_CHART)!;
  const resource = (object: Record<string, unknown>, doc: number): Resource =>
    ({
      file: app.resource.file,
      doc,
      apiVersion: String(object.apiVersion),
      kind: String(object.kind),
      name: String(dig(object, ['metadata', 'name'])),
      namespace: 'monitoring',
      object,
      positions: app.resource.positions,
      rendered: { id: `${GRAFANA_CHART}#${doc}`, app: GRAFANA_CHART, source: 'chart' },
    }) as Resource;
  const grafana = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'grafana', namespace: 'monitoring' },
    spec: { template: { spec: { containers: [{ image: 'quay.io/kiwigrid/k8s-sidecar:2.10.1', ...sidecar }] } } },
  };
  const render = {
    app,
    source: app.sources.find((s) => s.chart === GRAFANA_CHART)!,
    label: `chart ${GRAFANA_CHART}`,
    status: 'rendered' as const,
    resources: [grafana, ...extra].map(resource),
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  };
  // The gate puts a render's objects among the repository's, as here.
  const found = runPolicy({ ...repo, resources: [...repo.resources, ...render.resources] }, [check].flat(), [render]);
  return {
    failed: found.filter((f) => !f.severity).map((f) => f.message),
    notJudged: found.filter((f) => f.severity === 'not-judged').map((f) => f.message),
  };
}
