/** grafana-datasources on a broken copy of the real repository: datasources Grafana's provisioning refuses at start. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { grafanaDatasourcesMutations } from '../mutations/grafana-datasources.ts';
import { judgedWithGrafana } from '../support/chart-render.ts';
import { grafanaDatasourcesCheck } from '../../checks/monitoring/grafana-datasources.ts';

describeMutations('grafana-datasources bites on a broken copy of the real repository', grafanaDatasourcesMutations);

describe('grafana-datasources names the slip', () => {
  it('names the key one slip from url, never a key Grafana reads (uid is as near to url as urll is)', async () => {
    const { failed } = await onBrokenCopy(
      'grafana-datasources',
      swap('monitoring/kube-prometheus-stack/values.yaml', '      url: http://loki.monitoring.svc:3100\n', '      urll: http://loki.monitoring.svc:3100\n'),
    );
    expect(failed.map((f) => f.message)).toEqual([
      expect.stringContaining('datasource Loki (loki) has no url (its key "urll" is one slip from url, a key Grafana does not read)'),
    ]);
  });
});

describe('grafana-datasources passes', () => {
  it("Loki as the default once the chart's Prometheus is not", async () => {
    const swapDefault = (c: Parameters<ReturnType<typeof swap>>[0]) => {
      swap('monitoring/kube-prometheus-stack/values.yaml', '      type: loki\n', '      type: loki\n      isDefault: true\n')(c);
      swap('monitoring/kube-prometheus-stack/values.yaml', '  sidecar:\n', '  sidecar:\n    datasources:\n      isDefaultDatasource: false\n')(c);
    };
    expect(await onBrokenCopy('grafana-datasources', swapDefault)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});

describe('grafana-datasources on a rendered datasources sidecar', () => {
  const env = (labelValue: Record<string, unknown>) => [
    { name: 'LABEL', value: 'grafana_datasource' },
    { name: 'FOLDER', value: '/etc/grafana/provisioning/datasources' },
    { name: 'LABEL_VALUE', ...labelValue },
  ];
  const datasources = (name: string, isDefault: boolean) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'monitoring', labels: { grafana_datasource: '1' } },
    data: { [`${name}.yaml`]: `datasources:\n  - name: ${name}\n    uid: ${name}\n    isDefault: ${isDefault}\n` },
  });
  // The chart's own file, as the values' additionalDataSources render into it: the log and trace stores' datasources.
  const stores = (types: string[]) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'stores', namespace: 'monitoring', labels: { grafana_datasource: '1' } },
    data: {
      'stores.yaml': `datasources:\n${types.map((t) => `  - name: ${t}\n    uid: ${t}\n    type: ${t}\n    url: http://${t}.monitoring.svc\n`).join('')}`,
    },
  });
  const judged = (labelValue: Record<string, unknown>, types = ['loki', 'tempo']) =>
    judgedWithGrafana(grafanaDatasourcesCheck, { name: 'grafana-sc-datasources', env: env(labelValue) }, [
      datasources('a', true),
      datasources('b', true),
      stores(types),
    ]);

  it('fails a store the repository runs that no loaded datasource reads', async () => {
    expect((await judged({ value: '1' }, ['loki'])).failed).toEqual([
      "tempo keeps the cluster's traces, and Grafana provisions no datasource of type tempo: nobody can query them",
      expect.stringContaining('is marked isDefault beside a'),
    ]);
  });

  it('fails two defaults the sidecar loads, and says not judged, never passed, where its selection comes from a value the gate does not read', async () => {
    expect((await judged({ value: '1' })).failed).toEqual([expect.stringContaining('is marked isDefault beside a in organization 1')]);
    expect(await judged({ valueFrom: { secretKeyRef: { name: 'made-elsewhere', key: 'v' } } })).toEqual({
      failed: [],
      notJudged: [
        expect.stringMatching(
          /^which datasources Grafana provisions is not judged: Deployment grafana's grafana-sc-datasources's LABEL_VALUE is set from a value the gate does not read/,
        ),
      ],
    });
  });
});
