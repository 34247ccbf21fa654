/**
 * What go-yaml v2 refuses of a text the `yaml` library reads (model/yaml/go-refusals.ts), each rule against what
 * go-yaml's scanner at v2.4.0 does, both ways; the loader's findings and the render's problems from it; and the
 * yaml-test-matrix harness that measures it against go-yaml's own verdicts.
 */
import { describe, expect, it } from 'vitest';
import { goYamlRefusals } from '../../model/yaml/go-refusals.ts';
import { parseManifest } from '../../model/core/manifest.ts';
import { formatFinding } from '../../model/core/findings.ts';
import { parseDataFile } from '../../model/repository/repo.ts';
import { splitRendered } from '../../render/output.ts';
import { goYamlMatrixAgreement, goYamlVerdict, matrixInputs } from '../../admission/upstream/go-yaml-matrix.ts';

/** Each refusal as `line:col message`. */
const refusals = (text: string) =>
  goYamlRefusals(text).map((r) => {
    const before = text.slice(0, r.offset).split('\n');
    return `${before.length}:${before[before.length - 1]!.length + 1} ${r.message}`;
  });
const TOKEN = 'found character that cannot start any token';
const PLAIN = 'found a tab character that violates indentation';
const BLOCK = 'found a tab character where an indentation space is expected';

describe('goYamlRefusals: tabs', () => {
  it("refuses a tab in a line's indentation where go-yaml looks for a token", () => {
    expect(refusals('a: "1"\n\t\nb: 2\n')).toEqual([`2:1 ${TOKEN}`]);
    expect(refusals('foo:\n \tbar\n')).toEqual([`2:2 ${TOKEN}`]);
    expect(refusals(' \t\nfoo: 1\n')).toEqual([`1:2 ${TOKEN}`]);
    // On the lines a plain scalar reads on, a tab before that scalar's indentation (its block's column plus one).
    expect(refusals('a:\n  b: 1\n  \t# c\n  d: 2\n')).toEqual([`3:3 ${PLAIN}`]);
    expect(refusals('foo: 1\n\t\nbar: 2\n')).toEqual([`2:1 ${PLAIN}`]);
  });

  it('refuses a tab after a block sequence entry or an explicit key', () => {
    expect(refusals('-\tx\n')).toEqual([`1:2 ${TOKEN}`]);
    expect(refusals('- a\n- - b\n  -\tc\n')).toEqual([`3:4 ${TOKEN}`]);
  });

  it('takes the tabs go-yaml takes: after a key, past a plain scalar’s indentation, in flow, in quoted scalars', () => {
    expect(refusals('- foo:\t bar\n')).toEqual([]);
    expect(refusals('a: b\n \tc\n')).toEqual([]);
    expect(refusals('a: [1,\n\t2]\n')).toEqual([]);
    expect(refusals('a: "x\n  \ty"\n')).toEqual([]);
    expect(refusals('a: b # \tcomment\n')).toEqual([]);
  });

  it("refuses a tab in a block scalar's indentation, and takes one past it", () => {
    expect(refusals('data:\n  Makefile: |\n    \techo hi\n')).toEqual([`3:5 ${BLOCK}`]);
    expect(refusals('k: |\n  x\n \t\nj: 1\n')).toEqual([`3:2 ${BLOCK}`]);
    expect(refusals('k: |\n  x\n  \ty\n')).toEqual([]);
    expect(refusals('k: |2\n  \tx\n')).toEqual([]);
  });
});

describe('goYamlRefusals: escapes, directives, anchors', () => {
  it('refuses the escape \\/ (YAML 1.2), in double quotes only', () => {
    expect(refusals('url: "https:\\/\\/example.com"\n')).toEqual(['1:13 found unknown escape character']);
    expect(refusals('url: "a\\\\/b"\n')).toEqual([]);
    expect(refusals("url: 'a\\/b'\n")).toEqual([]);
  });

  it('refuses %YAML other than 1.1 and an unknown directive', () => {
    expect(refusals('%YAML 1.2\n---\na: 1\n')).toEqual(['1:1 found incompatible YAML document']);
    expect(refusals('%FOO bar\n---\na: 1\n')).toEqual(['1:1 found unknown directive name']);
    expect(refusals('%YAML 1.1\n---\na: 1\n')).toEqual([]);
    expect(refusals('%TAG ! tag:example.com,2000:\n---\na: 1\n')).toEqual([]);
  });

  it('refuses an anchor or alias name go-yaml does not scan, and takes the rest', () => {
    expect(refusals('a: &café 1\n')).toEqual(['1:5 did not find expected alphabetic or numeric character']);
    expect(refusals('a: &x-1_ 1\nb: *x-1_\n')).toEqual([]);
    // A `*` that starts no node (a cron schedule, a quoted glob) is never read as an alias; one that does is, by both.
    expect(goYamlRefusals('schedule: 0 3 * * *\nglob: "*/*.yaml"\n')).toEqual([]);
    expect(refusals('glob: */*.yaml\n')).toEqual(['1:8 did not find expected alphabetic or numeric character']);
  });
});

describe('where the gate reads YAML the cluster reads with go-yaml', () => {
  const configMap = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tabbed\n  namespace: default\ndata:\n${data}`;

  it('a manifest: the document is a yaml-syntax finding in go-yaml’s words, the others stay', () => {
    const text = `${configMap('  a: b\n')}---\n${configMap('  Makefile: |\n    \techo hi\n')}`;
    const parsed = parseManifest('tabbed.yaml', text);
    expect(parsed.resources.map((r) => r.doc)).toEqual([0]);
    expect(parsed.findings.map(formatFinding)).toEqual([
      expect.stringMatching(/^tabbed\.yaml:16:5 \[yaml-syntax\] found a tab character where an indentation space is expected \(go-yaml v2/),
    ]);
  });

  it("a quoted scalar's line that starts with a tab is inside it, as go-yaml reads it: no finding", () => {
    const parsed = parseManifest('quoted.yaml', configMap('  a: "bar\n\tbaz"\n'));
    expect(parsed.findings).toEqual([]);
    expect(parsed.resources[0]!.object.data).toEqual({ a: 'bar baz' });
  });

  it('a JSON manifest, which Argo CD reads with encoding/json: tabs and \\/ are JSON', () => {
    const json = '{\n\t"apiVersion": "v1",\n\t"kind": "ConfigMap",\n\t"metadata": {"name": "j", "namespace": "default"},\n\t"data": {"url": "a\\/b"}\n}\n';
    for (const file of ['j.json', 'j.yaml']) {
      const parsed = parseManifest(file, json);
      expect(parsed.findings, file).toEqual([]);
      expect(parsed.resources[0]!.object.data, file).toEqual({ url: 'a/b' });
    }
  });

  it("a line that starts with --- and goes on: Argo CD's splitter refuses it, in its words, at the document it starts", () => {
    const text = `${configMap('  a: b\n')}--- !!map\n${configMap('  c: d\n').replace('tabbed', 'other')}--- # a comment is a separator\n${configMap('  e: f\n').replace('tabbed', 'third')}`;
    const parsed = parseManifest('split.yaml', text);
    expect(parsed.resources.map((r) => r.name)).toEqual(['tabbed', 'third']);
    expect(parsed.findings.map(formatFinding)).toEqual([
      expect.stringMatching(/^split\.yaml:8:1 \[yaml-syntax\] invalid Yaml document separator: !!map \(Argo CD and kubectl cut a manifest/),
    ]);
    expect(splitRendered(`---\n# Source: c/templates/cm.yaml\n${configMap('  a: b\n')}--- {}\n`).problems).toEqual([
      { message: expect.stringMatching(/^c\/templates\/cm\.yaml: invalid Yaml document separator: \{\}/) },
    ]);
  });

  it("a quoted scalar's line that starts with ---x: the splitter cuts there, whatever YAML reads, and is placed at its line", () => {
    const parsed = parseManifest('cut.yaml', configMap('  a: "one\n---x two"\n'));
    expect(parsed.findings.map(formatFinding)).toEqual([expect.stringMatching(/^cut\.yaml:8:1 \[yaml-syntax\] invalid Yaml document separator: x two/)]);
  });

  it("a quoted scalar's line that starts with a tab, in a chart's output and a values file too: inside the scalar, as go-yaml reads it", () => {
    expect(splitRendered(`---\n# Source: c/templates/cm.yaml\n${configMap('  a: "bar\n\tbaz"\n')}`)).toMatchObject({
      problems: [],
      docs: [{ object: { data: { a: 'bar baz' } } }],
    });
    const file = parseDataFile('apps/x/values.yaml', 'note: "bar\n\tbaz"\n');
    expect([file.errors, file.data]).toEqual([[], { note: 'bar baz' }]);
  });

  it("a chart's output and a values file", () => {
    expect(splitRendered(`---\n# Source: c/templates/cm.yaml\n${configMap('  url: "a\\/b"\n')}`).problems).toEqual([
      { message: expect.stringMatching(/^c\/templates\/cm\.yaml: found unknown escape character \(go-yaml v2/) },
    ]);
    expect(parseDataFile('apps/x/values.yaml', 'a: 1\n\t\nb: 2\n').errors).toEqual([
      { line: 2, col: 1, check: 'yaml-syntax', message: expect.stringMatching(/^found a tab character that violates indentation/) },
    ]);
  });
});

describe('the yaml-test-matrix harness', () => {
  const page = (status: string, said: string) =>
    `<div class="framework framework_box_${status}" id="go-yaml-json">\n<h3>go-yaml-json</h3><pre>${said}</pre></div>`;

  it("reads go-yaml's verdict from a details page", () => {
    expect(goYamlVerdict(page('json_ok', '{&quot;a&quot;:1}'))).toEqual({ goReads: true, goSays: 'reads it' });
    expect(goYamlVerdict(page('invalid_incorrect', '[1]'))).toEqual({ goReads: true, goSays: 'reads it' });
    expect(goYamlVerdict(page('error', 'yaml: found unknown escape character\n'))).toEqual({
      goReads: false,
      goSays: 'refuses it: yaml: found unknown escape character',
    });
    expect(goYamlVerdict(page('na', 'yaml: did not find expected key'))).toMatchObject({ goReads: false });
    expect(goYamlVerdict(page('na', '{}'))).toMatchObject({ goReads: true });
    expect(goYamlVerdict('<div id="other"></div>')).toBeUndefined();
  });

  it('reads the inputs of a data file, and counts the gate against go-yaml', () => {
    const inputs = matrixInputs(
      'var data = {\n "tests" : { "3UYS" : { "id" : "3UYS", "in_yaml" : "escaped slash: \\"a\\\\/b\\"\\n" } }\n}\n;\nvar alltests = data.tests;\n',
    );
    expect(inputs).toEqual([{ id: '3UYS', text: 'escaped slash: "a\\/b"\n' }]);
    const a = goYamlMatrixAgreement([
      { ...inputs[0]!, goReads: false, goSays: 'refuses it' },
      { id: 'ok', text: 'a: 1\n', goReads: true, goSays: 'reads it' },
      { id: 'apart', text: 'a: 1\n', goReads: false, goSays: 'refuses it' },
    ]);
    expect([a.agree, a.total, a.disagreements.map((d) => d.file)]).toEqual([2, 3, ['apart']]);
  });
});
