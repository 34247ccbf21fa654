/**
 * A quoted scalar's continuation lines, read at any indentation as go-yaml reads them (model/yaml/go-quoted.ts), and
 * never where go-yaml refuses the scalar too: in a manifest, a rendered chart's output and a values file.
 */
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { goMendedText, readAsGo } from '../../model/yaml/go-quoted.ts';
import { parseManifest } from '../../model/core/manifest.ts';
import { formatFinding } from '../../model/core/findings.ts';
import { parseDataFile } from '../../model/repository/repo.ts';
import { splitRendered } from '../../render/output.ts';

const configMap = (data: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wrapped\n  namespace: default\ndata:\n${data}`;
/** What the `yaml` library reads of the text after goMendedText, where it gives one. */
const goRead = (text: string): unknown => {
  const mended = goMendedText(text);
  if (mended === undefined) return 'not mended';
  const [doc, ...rest] = parseAllDocuments(mended);
  expect(rest).toEqual([]);
  expect(doc!.errors).toEqual([]);
  return doc!.toJS();
};

describe('goMendedText', () => {
  it('indents a quoted scalar continued at its key’s indentation, as an editor or go-yaml v2 wraps it, and the text reads whole', () => {
    const text = '    description: "a long text\n    wrapped by an editor"\n    next: 1\n';
    expect(parseAllDocuments(text)[0]!.errors.length).toBeGreaterThan(0);
    expect(goRead(text)).toEqual({ description: 'a long text wrapped by an editor', next: 1 });
  });

  it('reads what go-yaml reads of either quote style: folded breaks, blank lines, escapes, lines at column 0', () => {
    expect(goRead("  - message: '0/3 clusters didn''t match the placement\n    cluster affinity constraint.'\n    reason: x\n")).toEqual([
      { message: "0/3 clusters didn't match the placement cluster affinity constraint.", reason: 'x' },
    ]);
    expect(goRead('a:\n  b: "one\n\ntwo \\"quoted\\" \\\nthree"\n  c: d\n')).toEqual({ a: { b: 'one\ntwo "quoted" three', c: 'd' } });
    expect(goRead("a:\n  b: 'x\ny'\n")).toEqual({ a: { b: 'x y' } });
  });

  it('mends every such scalar of a text, and keeps its lines where they were', () => {
    const text = 'a:\n  b: "one\n  two"\n  c: \'three\n  four\'\n  d: e\n';
    const mended = goMendedText(text)!;
    expect(mended.split('\n').length).toBe(text.split('\n').length);
    expect(goRead(text)).toEqual({ a: { b: 'one two', c: 'three four', d: 'e' } });
  });

  it('leaves a text alone where nothing is cut short, or where go-yaml refuses the scalar too', () => {
    expect(goMendedText('a: "one\n   two"\n')).toBeUndefined();
    expect(goMendedText('a: [unclosed\n')).toBeUndefined();
    // go-yaml: "found unexpected end of stream", "found unexpected document indicator".
    expect(goMendedText('a:\n  b: "one\n  two\n')).toBeUndefined();
    expect(goMendedText('a:\n  b: "one\n---\n  two"\n')).toBeUndefined();
    expect(goMendedText("a:\n  b: 'one\n...\n  two'\n")).toBeUndefined();
  });

  it("mends the rest go-yaml reads: a flow collection’s lines at its key’s indentation, a comment that touches its token, \\' in double quotes", () => {
    expect(goRead('args: [--a,\n--b,\n  --c]\nnext: 1\n')).toEqual({ args: ['--a', '--b', '--c'], next: 1 });
    expect(goRead('limits: {cpu: 1,\nmemory: 2}\n')).toEqual({ limits: { cpu: 1, memory: 2 } });
    expect(goRead('a: "v"# note\nb: [1]# note\nc: ># note\n  x\n')).toEqual({ a: 'v', b: [1], c: 'x\n' });
    expect(goRead('a: "it\\\'s"\nb: "a\\\\\'"\n')).toEqual({ a: "it's", b: "a\\'" });
    // go-yaml refuses these too: a flow that never closes, a document marker inside one.
    expect(goMendedText('args: [--a,\n--b\n')).toBeUndefined();
    expect(goMendedText('args: [--a,\n---\n--b]\n')).toBeUndefined();
  });

  it('is read only where the first reading is refused, and only where the mended one is not', () => {
    const read = (text: string) => parseAllDocuments(text);
    const refused = (docs: ReturnType<typeof read>) => (Array.isArray(docs) ? docs : []).some((d) => d.errors.length > 0);
    const fine = 'a: "b"\n';
    expect(readAsGo(fine, read, refused)[0]!.toJS()).toEqual({ a: 'b' });
    // Another error beside the scalar: the first reading, with its errors, stands.
    const both = readAsGo('a:\n  b: "one\n  two"\n  c: [unclosed\n', read, refused);
    expect(refused(both)).toBe(true);
    expect(String(both[0]!.errors[0]!.message)).toMatch(/Missing closing "quote/);
  });
});

describe('where the gate reads YAML the cluster reads', () => {
  it('a manifest: no syntax finding, the value go-yaml reads, and the keys after it placed on their lines', () => {
    const text = configMap('  description: "a long text\n  wrapped by an editor"\n  after: [1]\n');
    const parsed = parseManifest('wrapped.yaml', text);
    expect(parsed.findings.map(formatFinding)).toEqual([]);
    expect(parsed.resources[0]!.object.data).toEqual({ description: 'a long text wrapped by an editor', after: [1] });
    expect(parsed.resources[0]!.positions.at(['data', 'after'], 'key')).toMatchObject({ line: 9, col: 3 });
  });

  it('a manifest whose scalar go-yaml refuses too is still a syntax finding', () => {
    const parsed = parseManifest('unclosed.yaml', configMap('  description: "a long text\n  never closed\n'));
    expect(parsed.findings.map((f) => f.check)).toEqual(['yaml-syntax']);
  });

  it("a chart's rendered output", () => {
    const { docs, problems } = splitRendered(`---\n# Source: c/templates/cm.yaml\n${configMap("  note: 'wrapped\n  here'\n")}`);
    expect(problems).toEqual([]);
    expect(docs.map((d) => d.object.data)).toEqual([{ note: 'wrapped here' }]);
  });

  it('a values file', () => {
    const file = parseDataFile('apps/x/values.yaml', 'podAnnotations:\n  note: "wrapped\n  here"\nreplicas: 2\n');
    expect(file.errors).toEqual([]);
    expect(file.data).toEqual({ podAnnotations: { note: 'wrapped here' }, replicas: 2 });
    expect(file.positions.at(['replicas'], 'key')).toMatchObject({ line: 4, col: 1 });
  });
});
