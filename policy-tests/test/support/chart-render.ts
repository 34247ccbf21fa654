/**
 * A check run on the real repository with one of its Applications' charts rendered as the objects a test gives:
 * how the tests judge a rendered chart offline (no chart cache). judgedWithGrafana renders kube-prometheus-stack as
 * one Grafana Deployment running `sidecar` (a k8s-sidecar container) beside `extra` objects of the chart.
 */
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { GRAFANA_CHART } from '../../model/grafana/sidecars.ts';

/** `check` on the real repository with the Application `app`'s chart `chart` rendered as `objects` (in `namespace`). */
export async function judgedWithRender(
  check: PolicyCheck | readonly PolicyCheck[],
  render: { app: string; chart: string; namespace: string },
  objects: Record<string, unknown>[],
): Promise<{ failed: string[]; notJudged: string[] }> {
  const repo = await loadRepo(REPO_ROOT);
  const app = applications(repo).find((a) => a.name === render.app)!;
  const resource = (object: Record<string, unknown>, doc: number): Resource =>
    ({
      file: app.resource.file,
      doc,
      apiVersion: String(object.apiVersion),
      kind: String(object.kind),
      name: String(dig(object, ['metadata', 'name'])),
      namespace: render.namespace,
      object,
      positions: app.resource.positions,
      rendered: { id: `${render.app}#${doc}`, app: render.app, source: 'chart' },
    }) as Resource;
  const rendered = {
    app,
    source: app.sources.find((s) => s.chart === render.chart)!,
    label: `chart ${render.chart}`,
    status: 'rendered' as const,
    resources: objects.map(resource),
    values: [],
    nondeterministic: [],
    consumedFiles: [],
  };
  // The gate puts a render's objects among the repository's, as here.
  const found = runPolicy({ ...repo, resources: [...repo.resources, ...rendered.resources] }, [check].flat(), [rendered]);
  return {
    failed: found.filter((f) => !f.severity).map((f) => f.message),
    notJudged: found.filter((f) => f.severity === 'not-judged').map((f) => f.message),
  };
}

export const judgedWithGrafana = (check: PolicyCheck | readonly PolicyCheck[], sidecar: Record<string, unknown>, extra: Record<string, unknown>[]) =>
  judgedWithRender(check, { app: GRAFANA_CHART, chart: GRAFANA_CHART, namespace: 'monitoring' }, [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'grafana', namespace: 'monitoring' },
      spec: { template: { spec: { containers: [{ image: 'quay.io/kiwigrid/k8s-sidecar:2.10.1', ...sidecar }] } } },
    },
    ...extra,
  ]);
