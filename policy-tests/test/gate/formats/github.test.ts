/** GitHub workflow commands: one annotation per finding at its line, escaped as the runner reads them. */
import { describe, expect, it } from 'vitest';
import { githubFormat } from '../../../gate/report/formats/github.ts';
import { gateResult } from './result-fixture.ts';

describe('github', () => {
  it('annotates findings as errors, warnings and unrendered sources as warnings, and what is not judged as a notice', () => {
    expect(githubFormat.render(gateResult(), { summary: false, verbose: false }).split('\n')).toEqual([
      '::error file=apps/web/deploy.yaml,line=12,col=7,title=workload-hostpath (policy)::volume logs mounts hostPath /var/log & <more> (fix: use an emptyDir)',
      '::warning file=apps/web/deploy.yaml,line=3,col=1,title=pod-security (admission)::would violate restricted',
      '::notice file=apps/web/policy.yaml,line=20,col=9,title=network-policy-ports (policy) (not judged)::port 9000: upstream pods',
      '::warning file=apps/db/application.yaml,line=9,col=5,title=not-rendered::chart postgres 1.0.0: not in the chart cache: run npm run charts:pull',
    ]);
  });

  it('escapes what would end a command early: a line break in data, a comma or colon in a property', () => {
    const result = gateResult();
    result.resources[0]!.findings[0] = { ...result.resources[0]!.findings[0]!, file: 'a,b:c.yaml', message: '100%\nforged' };
    expect(githubFormat.render(result, { summary: true, verbose: false }).split('\n')[0]).toBe(
      '::error file=a%2Cb%3Ac.yaml,line=12,col=7,title=workload-hostpath (policy)::100%25%0Aforged (fix: use an emptyDir)',
    );
  });
});
