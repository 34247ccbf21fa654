/** grafana-datasources on a broken copy of the real repository: datasources Grafana's provisioning refuses at start. */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy } from '../support/helpers.ts';
import { describeMutations } from '../support/mutation-runner.ts';
import { swap } from '../mutations/edits.ts';
import { grafanaDatasourcesMutations } from '../mutations/grafana-datasources.ts';

describeMutations('grafana-datasources bites on a broken copy of the real repository', grafanaDatasourcesMutations);

describe('grafana-datasources passes', () => {
  it("Loki as the default once the chart's Prometheus is not", async () => {
    const swapDefault = (c: Parameters<ReturnType<typeof swap>>[0]) => {
      swap('monitoring/kube-prometheus-stack/values.yaml', '      type: loki\n', '      type: loki\n      isDefault: true\n')(c);
      swap('monitoring/kube-prometheus-stack/values.yaml', '  sidecar:\n', '  sidecar:\n    datasources:\n      isDefaultDatasource: false\n')(c);
    };
    expect(await onBrokenCopy('grafana-datasources', swapDefault)).toEqual({ failed: [], warned: [], notJudged: [] });
  });
});
