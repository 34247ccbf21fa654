/** The text format: root causes first, one line per finding, nothing unjudged hidden, the summary last. */
import { describe, expect, it } from 'vitest';
import { textFormat } from '../../../gate/report/formats/text.ts';
import { gateResult } from './result-fixture.ts';

const SUMMARY = 'Summary: 3 resources found - Valid: 1, Invalid: 1, Errors: 0, Skipped: 1, Not rendered: 1, Warnings: 1, Not judged: 1';

describe('text', () => {
  it('prints each finding with its place, check and fix; counts what it does not list; ends with the summary', () => {
    expect(textFormat.render(gateResult(), { summary: false, verbose: false }).split('\n')).toEqual([
      'FAIL - apps/web/deploy.yaml:12:7 - Deployment web - policy [workload-hostpath] volume logs mounts hostPath /var/log & <more> (fix: use an emptyDir)',
      'NOT RENDERED - 1 source not rendered, so not judged (db); 1 of them are charts not in the cache: npm run charts:pull; --verbose lists each with its cause',
      'WARN - 1 warning: the cluster or Argo CD takes them, with a caveat said; --verbose lists them',
      'NOT JUDGED - 1 thing the gate cannot judge, never counted as passing; --verbose lists them',
      SUMMARY,
    ]);
  });

  it('lists passes, skips, warnings, what is not judged and each unrendered source with --verbose', () => {
    const lines = textFormat.render(gateResult(), { summary: false, verbose: true }).split('\n');
    expect(lines).toContain('PASS - apps/web/config.yaml - ConfigMap web-config');
    expect(lines).toContain('SKIP - apps/web/widget.yaml - Widget w');
    expect(lines).toContain('WARN - apps/web/deploy.yaml:3:1 - admission [pod-security] would violate restricted');
    expect(lines).toContain('NOT JUDGED - apps/web/policy.yaml:20:9 - policy [network-policy-ports] port 9000: upstream pods');
    expect(lines).toContain(
      'NOT RENDERED - apps/db/application.yaml:9:5 - Application db - chart postgres 1.0.0: not in the chart cache: run npm run charts:pull',
    );
    expect(lines.at(-1)).toBe(SUMMARY);
  });

  it('shows control characters a pull request wrote as escapes, so a name cannot forge a line', () => {
    const result = gateResult();
    result.resources[0]!.name = 'web\n\u001b[32mPASS';
    expect(textFormat.render(result, { summary: false, verbose: false }).split('\n')[0]).toContain('Deployment web\\u000a\\u001b[32mPASS');
  });
});

describe('the Pod Security coverage in the summary', () => {
  it('names how many namespaces holding pods each level judged, and the exempt ones', () => {
    const result = { ...gateResult(), podSecurity: { enforced: { restricted: 7, baseline: 1, privileged: 1 }, exempt: 2 } };
    expect(textFormat.render(result, { summary: false, verbose: false }).split('\n').at(-1)).toBe(
      `${SUMMARY}, Pod Security: 9 namespaces (7 restricted, 1 baseline, 1 privileged; 2 exempt)`,
    );
    const one = { ...gateResult(), podSecurity: { enforced: { restricted: 1, baseline: 0, privileged: 0 }, exempt: 0 } };
    expect(textFormat.render(one, { summary: false, verbose: false }).split('\n').at(-1)).toBe(
      `${SUMMARY}, Pod Security: 1 namespace (1 restricted, 0 baseline, 0 privileged)`,
    );
  });
});
