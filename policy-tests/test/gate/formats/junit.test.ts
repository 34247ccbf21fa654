/** The JUnit format, read back with an XML parser: its counts are the summary's, and a message's markup stays text. */
import { XMLParser } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { junitFormat } from '../../../gate/report/formats/junit.ts';
import { gateResult } from './result-fixture.ts';

const parse = (xml: string) =>
  new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => ['testsuite', 'testcase'].includes(name) }).parse(xml);

describe('junit', () => {
  it('is well-formed XML: a suite per file, a case per resource, and a suite each for warnings, not judged and not rendered', () => {
    const { testsuites } = parse(junitFormat.render(gateResult(), { summary: false, verbose: false }));
    expect(testsuites).toMatchObject({ tests: '3', failures: '1', errors: '0', skipped: '1' });
    expect(testsuites.testsuite.map((s: { name: string; tests: string }) => [s.name, s.tests])).toEqual([
      ['apps/web/deploy.yaml', '1'],
      ['apps/web/config.yaml', '1'],
      ['apps/web/widget.yaml', '1'],
      ['warnings', '1'],
      ['not judged', '1'],
      ['not rendered', '1'],
    ]);
    const failing = testsuites.testsuite[0].testcase[0];
    expect(failing.name).toBe('Deployment web');
    expect(failing.failure.message).toBe('volume logs mounts hostPath /var/log & <more>');
    expect(testsuites.testsuite[2].testcase[0]).toHaveProperty('skipped');
    expect(testsuites.testsuite[5].testcase[0].skipped.message).toBe('chart postgres 1.0.0: not in the chart cache: run npm run charts:pull');
  });
});
