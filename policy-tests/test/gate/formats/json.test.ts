/** The JSON format: kubeconform's resource entries, each finding as fields, and what was not judged or rendered beside them. */
import { describe, expect, it } from 'vitest';
import { jsonFormat } from '../../../gate/report/formats/json.ts';
import { gateResult } from './result-fixture.ts';

describe('json', () => {
  it('lists the failing resources with a kubeconform status and msg, and every finding as fields', () => {
    const out = JSON.parse(jsonFormat.render(gateResult(), { summary: false, verbose: false }));
    expect(out.resources).toEqual([
      {
        filename: 'apps/web/deploy.yaml',
        kind: 'Deployment',
        version: 'apps/v1',
        name: 'web',
        status: 'statusInvalid',
        msg: 'apps/web/deploy.yaml:12:7 policy [workload-hostpath] volume logs mounts hostPath /var/log & <more> (fix: use an emptyDir)',
        findings: [
          {
            check: 'workload-hostpath',
            layer: 'policy',
            file: 'apps/web/deploy.yaml',
            line: 12,
            column: 7,
            message: 'volume logs mounts hostPath /var/log & <more>',
            fix: 'use an emptyDir',
          },
        ],
      },
    ]);
    expect(out.notRendered).toEqual(gateResult().notRendered);
    expect(out.warnings).toEqual([
      { check: 'pod-security', layer: 'admission', file: 'apps/web/deploy.yaml', line: 3, column: 1, message: 'would violate restricted' },
    ]);
    expect(out.notJudged).toEqual([
      { check: 'network-policy-ports', layer: 'policy', file: 'apps/web/policy.yaml', line: 20, column: 9, message: 'port 9000: upstream pods' },
    ]);
    expect(out.summary).toEqual(gateResult().summary);
  });

  it('lists every resource with --verbose', () => {
    const out = JSON.parse(jsonFormat.render(gateResult(), { summary: false, verbose: true }));
    expect(out.resources.map((r: { status: string }) => r.status)).toEqual(['statusInvalid', 'statusValid', 'statusSkipped']);
  });
});
