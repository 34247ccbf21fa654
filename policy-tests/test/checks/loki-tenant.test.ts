/**
 * A multi-tenant Loki (auth_enabled) refuses a push or a query without a tenant, 401 "no org id": alloy-ships-logs
 * holds each loki.write endpoint to the cluster's Loki to send one (tenant_id, or an X-Scope-OrgID header), and says
 * one a stage.tenant may set not judged; grafana-datasources holds the Loki datasource to its header. Beyond their
 * mutations (the shippers without a tenant; the datasource without its header).
 */
import { describe, expect, it } from 'vitest';
import { onBrokenCopy, type RepoCopy } from '../support/helpers.ts';
import { swap } from '../mutations/edits.ts';

const LOKI = 'monitoring/loki/values.yaml';
const ALLOYS = ['monitoring/alloy/values.yaml', 'monitoring/alloy-events/values.yaml'];
const URL_LINE = '          url = "http://loki.monitoring.svc:3100/loki/api/v1/push"\n';
const KPS = 'monitoring/kube-prometheus-stack/values.yaml';

/** Loki multi-tenant, each shipper's endpoint given `extra` after its url, and the datasource its tenant header unless told. */
const tenanted =
  (extra: string, datasourceHeader = true) =>
  (c: RepoCopy) => {
    swap(LOKI, '  auth_enabled: false\n', '  auth_enabled: true\n')(c);
    for (const alloy of ALLOYS) swap(alloy, URL_LINE, `${URL_LINE}${extra}`)(c);
    if (datasourceHeader)
      swap(
        KPS,
        '      url: http://loki.monitoring.svc:3100\n',
        '      url: http://loki.monitoring.svc:3100\n      jsonData:\n        httpHeaderName1: x-scope-orgid\n',
      )(c);
  };

describe('a multi-tenant Loki and its clients', () => {
  it('passes a tenant_id, or an X-Scope-OrgID header in any case, on every endpoint and the datasource', async () => {
    for (const extra of ['          tenant_id = "homelab"\n', '          headers = {"X-Scope-OrgID" = "homelab"}\n']) {
      const result = await onBrokenCopy(['alloy-ships-logs', 'grafana-datasources'], tenanted(extra));
      expect(result.failed.map((f) => f.message)).toEqual([]);
      expect(result.notJudged).toEqual([]);
    }
  });

  it('fails an endpoint whose headers hold no tenant, and says one a stage.tenant may set not judged', async () => {
    const other = await onBrokenCopy('alloy-ships-logs', tenanted('          headers = {"X-Other" = "x"}\n'));
    expect(other.failed.map((f) => f.message).sort()).toEqual([
      expect.stringMatching(
        /^loki\.write "default" \(alloy\) sends to http:\/\/loki\.monitoring\.svc:3100\/loki\/api\/v1\/push with no tenant .*401 "no org id"/,
      ),
      expect.stringMatching(/^loki\.write "default" \(alloy-events\) sends to/),
    ]);
    const staged = await onBrokenCopy('alloy-ships-logs', (c) => {
      tenanted('')(c);
      swap(
        ALLOYS[0]!,
        '      loki.write "default" {',
        '      loki.process "tenant" {\n        stage.tenant {\n          value = "homelab"\n        }\n        forward_to = []\n      }\n      loki.write "default" {',
      )(c);
    });
    expect(staged.notJudged).toEqual([
      expect.stringMatching(/loki\.write "default" \(alloy\): whether it sends the multi-tenant Loki a tenant is not worked out/),
    ]);
    expect(staged.failed.map((f) => f.message)).toEqual([expect.stringMatching(/^loki\.write "default" \(alloy-events\) sends to/)]);
  });
});
