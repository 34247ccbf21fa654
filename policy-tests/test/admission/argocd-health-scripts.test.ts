/** Argo CD's built-in health script tests read as data (admission/upstream/argocd-health-scripts.ts), on folders in resource_customizations' shape. */
import { describe, expect, it } from 'vitest';
import { healthAgreement, healthCases, type HealthScriptDir } from '../../admission/upstream/argocd-health-scripts.ts';

const SCRIPT = `hs = {}
if obj.status ~= nil and obj.status.ready == obj.status.wanted then
  hs.status = "Healthy"
else
  hs.status = "Progressing"
end
hs.message = (obj.status and obj.status.ready or 0) .. "/" .. (obj.status and obj.status.wanted or 0)
return hs`;

const dir = (name: string, files: Record<string, string>, tests: string): HealthScriptDir => ({
  dir: name,
  script: SCRIPT,
  testYaml: tests,
  read: (p) => files[p],
});

const widget = (ready: number, wanted: number) =>
  `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nstatus: {ready: ${ready}, wanted: ${wanted}}\n`;

describe("Argo CD's health script tests, read as data", () => {
  it('reads each test, its keys in any case as encoding/json matches them, the first document of its input, and says what it cannot read', () => {
    const { cases, unread } = healthCases([
      dir(
        'example.com/Widget',
        { 'testdata/healthy.yaml': widget(3, 3), 'testdata/progressing.yaml': `${widget(1, 3)}---\nkind: Other\n` },
        [
          'tests:',
          '- healthStatus: {status: Healthy, message: "3/3"}',
          '  inputPath: testdata/healthy.yaml',
          '- healthStatus: {status: Progressing, message: "1/3"}',
          '  inputpath: testdata/progressing.yaml',
          '- healthStatus: {status: Healthy}',
          '  inputPath: testdata/missing.yaml',
        ].join('\n'),
      ),
    ]);
    expect(cases.map((c) => [c.test, c.status, c.message])).toEqual([
      ['example.com/Widget/testdata/healthy.yaml', 'Healthy', '3/3'],
      ['example.com/Widget/testdata/progressing.yaml', 'Progressing', '1/3'],
    ]);
    expect(unread).toEqual([{ test: 'example.com/Widget/testdata/missing.yaml', why: 'its input is not in the checkout' }]);
  });

  it("finds the script as GetHealthScript does, runs it through the gate's Lua, and counts a result that differs", () => {
    const tests = 'tests:\n- healthStatus: {status: Healthy, message: "3/3"}\n  inputPath: testdata/healthy.yaml\n';
    // The object's own group and kind, or a wildcard folder (`_` as `*`) where it has none.
    const wildcard = dir('_.example.com/_', { 'testdata/healthy.yaml': widget(3, 3).replace('example.com/v1', 'gadgets.example.com/v1') }, tests);
    const { cases } = healthCases([wildcard]);
    expect([healthAgreement(cases).agree, healthAgreement(cases).total]).toEqual([1, 1]);
    const wrong = healthAgreement([{ ...cases[0]!, message: '3.0/3.0' }]);
    expect(wrong.disagreements).toEqual([expect.objectContaining({ why: 'gives "Healthy: 3/3", Argo CD "Healthy: 3.0/3.0"' })]);
  });
});
