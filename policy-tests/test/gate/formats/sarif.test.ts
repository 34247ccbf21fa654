/** SARIF: the published 2.1.0 schema accepts the log, and each finding is a result at its region. */
import { createRequire } from 'node:module';
import AjvDraft04 from 'ajv-draft-04';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { artifactUri, sarifFormat } from '../../../gate/report/formats/sarif.ts';
import { gateResult } from './result-fixture.ts';

const schema = createRequire(import.meta.url)('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json') as object;
const valid = addFormats.default(new AjvDraft04.default({ allErrors: true, strict: false, unicodeRegExp: false })).compile(schema);

describe('sarif', () => {
  it('writes a schema-valid log with a result per finding and the rules it is given', () => {
    const rules = [{ id: 'workload-hostpath', description: 'No hostPath volumes.', remediation: 'use an emptyDir', invariants: ['S1'], layer: 'policy' }];
    const log = JSON.parse(
      sarifFormat.render(gateResult(), { summary: false, verbose: false, rules, tool: { name: 'homelab-gate', version: '1.0.0', uri: 'https://example.net' } }),
    );
    expect(valid(log) ? [] : valid.errors).toEqual([]);
    expect(log.runs[0].tool.driver.rules.map((r: { id: string }) => r.id)).toEqual(['workload-hostpath']);
    expect(log.runs[0].results[0]).toMatchObject({
      ruleId: 'workload-hostpath',
      level: 'error',
      locations: [{ physicalLocation: { artifactLocation: { uri: 'apps/web/deploy.yaml' }, region: { startLine: 12, startColumn: 7 } } }],
    });
  });

  it('encodes a path as a URI reference, so a space or a # names the same file', () => {
    expect(artifactUri('apps/my app/#1.yaml')).toBe('apps/my%20app/%231.yaml');
  });
});
