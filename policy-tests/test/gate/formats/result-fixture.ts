/** One gate result with something of every kind a format must carry: a failure, a pass, a skip, a warning, a thing not judged, a source not rendered. */
import type { GateResult } from '../../../gate/gate.ts';

export function gateResult(): GateResult {
  return {
    resources: [
      {
        filename: 'apps/web/deploy.yaml',
        kind: 'Deployment',
        version: 'apps/v1',
        name: 'web',
        status: 'invalid',
        findings: [
          {
            file: 'apps/web/deploy.yaml',
            line: 12,
            col: 7,
            check: 'workload-hostpath',
            layer: 'policy',
            message: 'volume logs mounts hostPath /var/log & <more>',
            fix: 'use an emptyDir',
          },
        ],
      },
      { filename: 'apps/web/config.yaml', kind: 'ConfigMap', version: 'v1', name: 'web-config', status: 'valid', findings: [] },
      { filename: 'apps/web/widget.yaml', kind: 'Widget', version: 'example.com/v1', name: 'w', status: 'skipped', findings: [] },
    ],
    summary: { valid: 1, invalid: 1, errors: 0, skipped: 1, notRendered: 1, warnings: 1, notJudged: 1 },
    policy: true,
    notRendered: [
      {
        file: 'apps/db/application.yaml',
        line: 9,
        col: 5,
        app: 'db',
        source: 'chart postgres 1.0.0',
        message: 'not in the chart cache: run npm run charts:pull',
      },
    ],
    warnings: [
      { file: 'apps/web/deploy.yaml', line: 3, col: 1, check: 'pod-security', layer: 'admission', message: 'would violate restricted', severity: 'warning' },
    ],
    notJudged: [
      {
        file: 'apps/web/policy.yaml',
        line: 20,
        col: 9,
        check: 'network-policy-ports',
        layer: 'policy',
        message: 'port 9000: upstream pods',
        severity: 'not-judged',
      },
    ],
  };
}
