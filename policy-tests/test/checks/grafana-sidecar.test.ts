/** grafana-sidecar-loaded on a broken copy of the real repository: a dashboard Grafana's sidecar does not select. */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { dig } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { applications } from '../../model/argocd/argocd.ts';
import { runPolicy } from '../../model/checks/runner.ts';
import { GRAFANA_CHART } from '../../model/grafana/sidecars.ts';
import { grafanaSidecarCheck } from '../../checks/monitoring/grafana-sidecar.ts';
import { grafanaSidecarMutations } from '../mutations/grafana-sidecar.ts';

describeMutations('grafana-sidecar-loaded bites on a broken copy of the real repository', grafanaSidecarMutations);

describe("grafana-sidecar-loaded reads a rendered sidecar's selection as the kubelet sets its environment", () => {
  /** The chart rendered as one Grafana Deployment whose dashboards sidecar has `env` and `envFrom`, beside `extra` objects. */
  const rendered = async (sidecar: Record<string, unknown>, extra: Record<string, unknown>[]) => {
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
      spec: { template: { spec: { containers: [{ name: 'grafana-sc-dashboard', image: 'quay.io/kiwigrid/k8s-sidecar:2.10.1', ...sidecar }] } } },
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
    const found = runPolicy({ ...repo, resources: [...repo.resources, ...render.resources] }, [grafanaSidecarCheck], [render]);
    return {
      failed: found.filter((f) => !f.severity).map((f) => f.message),
      notJudged: found.filter((f) => f.severity === 'not-judged').map((f) => f.message),
    };
  };
  const env = [
    { name: 'LABEL', value: 'grafana_dashboard' },
    { name: 'FOLDER', value: '/tmp/dashboards' },
    { name: 'RESOURCE', value: 'both' },
  ];
  const settings = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'sidecar-settings', namespace: 'monitoring' },
    data,
  });
  const dashboard = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'overview', namespace: 'monitoring', labels: { grafana_dashboard: '1' } },
    data: {},
  };

  it('fails a dashboard whose label value an envFrom ConfigMap makes the sidecar refuse, and passes the one it selects', async () => {
    const envFrom = [{ configMapRef: { name: 'sidecar-settings' } }];
    // The repository's own dashboard and the rendered one alike: the sidecar selects "yes".
    expect((await rendered({ env, envFrom }, [settings({ LABEL_VALUE: 'yes' }), dashboard])).failed).toEqual([
      expect.stringMatching(
        /^ConfigMap dashboard-homelab-overview carries grafana_dashboard and no Grafana sidecar loads it \(.*it loads grafana_dashboard: "yes", and this one's is "1"\)/,
      ),
      expect.stringMatching(/^ConfigMap overview carries grafana_dashboard and no Grafana sidecar loads it \(.*it loads grafana_dashboard: "yes"/),
    ]);
    expect(await rendered({ env, envFrom }, [settings({ LABEL_VALUE: '1' }), dashboard])).toEqual({ failed: [], notJudged: [] });
    // A ConfigMap key's reference in env, and a $(NAME) expanded by what is set before it, read as the kubelet reads them.
    const referred = [...env, { name: 'LABEL_VALUE', valueFrom: { configMapKeyRef: { name: 'sidecar-settings', key: 'value' } } }];
    expect((await rendered({ env: referred }, [settings({ value: 'yes' }), dashboard])).failed).toHaveLength(2);
    const expanded = [...env, { name: 'BASE', value: '1' }, { name: 'LABEL_VALUE', value: '$(BASE)' }];
    expect(await rendered({ env: expanded }, [dashboard])).toEqual({ failed: [], notJudged: [] });
  });

  it('says not judged, never passed, where the selection comes from a value the gate does not read', async () => {
    const secret = [...env, { name: 'LABEL_VALUE', valueFrom: { secretKeyRef: { name: 'made-elsewhere', key: 'value' } } }];
    expect(await rendered({ env: secret }, [dashboard])).toEqual({
      failed: [],
      notJudged: [
        expect.stringMatching(
          /^whether Deployment grafana's grafana-sc-dashboard loads ConfigMap \S+, ConfigMap overview \(labelled grafana_dashboard\) is not judged: its LABEL_VALUE is set from a value the gate does not read/,
        ),
      ],
    });
  });
});
