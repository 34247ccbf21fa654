/** grafana-sidecar-loaded on a broken copy of the real repository: a dashboard Grafana's sidecar does not select. */
import { describe, expect, it } from 'vitest';
import { describeMutations } from '../support/mutation-runner.ts';
import { grafanaSidecarCheck } from '../../checks/monitoring/grafana-sidecar.ts';
import { grafanaSidecarMutations } from '../mutations/grafana-sidecar.ts';
import { judgedWithGrafana } from '../support/chart-render.ts';

describeMutations('grafana-sidecar-loaded bites on a broken copy of the real repository', grafanaSidecarMutations);

describe("grafana-sidecar-loaded reads a rendered sidecar's selection as the kubelet sets its environment", () => {
  const rendered = (sidecar: Record<string, unknown>, extra: Record<string, unknown>[]) =>
    judgedWithGrafana(grafanaSidecarCheck, { name: 'grafana-sc-dashboard', ...sidecar }, extra);
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
