/** The TAP format: one test per resource and per note; what nobody judged is a SKIP, never a pass. */
import { describe, expect, it } from 'vitest';
import { tapFormat } from '../../../gate/report/formats/tap.ts';
import { gateResult } from './result-fixture.ts';

describe('tap', () => {
  it('plans every test, fails the invalid resource with YAML diagnostics, and skips what was not judged or rendered', () => {
    expect(tapFormat.render(gateResult(), { summary: false, verbose: false }).split('\n')).toEqual([
      'TAP version 13',
      '1..6',
      'not ok 1 - apps/web/deploy.yaml - Deployment web',
      '  ---',
      '  findings:',
      '    - "apps/web/deploy.yaml:12:7 policy [workload-hostpath] volume logs mounts hostPath /var/log & <more> (fix: use an emptyDir)"',
      '  ...',
      'ok 2 - apps/web/config.yaml - ConfigMap web-config',
      'ok 3 - apps/web/widget.yaml - Widget w # SKIP',
      'ok 4 - apps/web/deploy.yaml:3:1 admission [pod-security] warning: would violate restricted',
      'ok 5 - apps/web/policy.yaml:20:9 policy [network-policy-ports] # SKIP not judged: port 9000: upstream pods',
      'ok 6 - apps/db/application.yaml:9:5 Application db # SKIP not rendered: chart postgres 1.0.0: not in the chart cache: run npm run charts:pull',
    ]);
  });
});
