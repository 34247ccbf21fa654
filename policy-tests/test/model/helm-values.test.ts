/**
 * A values text as Helm 4 reads it (model/yaml/helm-values.ts), held to the pinned Helm itself: each text handed to
 * `helm template --values` beside a chart that prints its values, and the gate's reading compared with Helm's, both
 * ways (read alike, or refused by both); values files in order over a chart's defaults, merged as Helm merges them.
 * Then where a path of the merged values lands, which Helm does not say.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { readValuesText } from '../../model/yaml/helm-values.ts';
import { mergedValues } from '../../model/helm/merged-values.ts';
import { valuesDataFile } from '../../model/repository/data-file.ts';
import { chartScopeFromFolder } from '../../render/chart-files.ts';
import { writeChart, toolEnv } from '../../../test-support/chart-repo.ts';
import { exec } from '../../../test-support/exec.ts';

const CASES: [string, string][] = [
  // Helm's own TestLoadValues (pkg/chart/v2/loader/load_test.go, v4.2.1), both of its cases.
  ['Helm: It should load values correctly', '\nfoo:\n  image: foo:v1\nbar:\n  version: v2\n'],
  ['Helm: It should load values correctly with multiple documents in one file', '\nfoo:\n  image: foo:v1\nbar:\n  version: v2\n---\nfoo:\n  image: foo:v2\n'],
  ['one document', 'a: one\nb: {c: 2}\n'],
  ['two documents, merged', 'a: one\n---\nb: two\n'],
  ['a later map merged into an earlier one key by key', 'a: {x: 1, z: 2}\n---\na: {z: 3}\n'],
  ['a later map over an earlier list', 'a: [1]\n---\na: {b: 1}\n'],
  ['a comment after the separator', 'a: 1\n--- # the rest\nb: 2\n'],
  ['empty and null documents', '---\n# nothing\n---\n~\n---\na: 1\n'],
  ['`...` ends the piece: go-yaml reads its first document', 'a: 1\n...\nb: 2\n'],
  ['YAML 1.1 scalars, across documents', 'x: yes\n---\nq: 0755\n'],
  ['a quoted scalar continued at a tab', 'a: "x\n\ty"\n'],
  ['a document that is a list', '- 1\n'],
  ['a list after a map', 'a: 1\n---\n- x\n'],
  ['a document that is a boolean', 'true\n'],
  ['a separator with content on its line', 'a: 1\n--- !!map\nb: 2\n'],
  ['a tab in block indentation', 'a:\n\tb: 1\n'],
  ['a tab after a map in the second document', 'a: 1\n---\nb:\n  c: 1\n\td: 2\n'],
  ['an unclosed flow sequence', 'a: [1, 2\n'],
];

let dir = '';
let helm = '';
let chart = '';
/** A chart whose defaults a later values file's null removes, and a later one's map merges into. */
const DEFAULTS = { foo: { a: 1 }, keep: 1 };
let chartWithDefaults = '';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'helm-values-'));
  helm = (await toolEnv()).HELM_BIN!;
  const files = { 'templates/values.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\ndata:\n  values: {{ toJson .Values | quote }}\n' };
  chart = writeChart(dir, { name: 'probe', version: '0.1.0', files });
  chartWithDefaults = writeChart(dir, { name: 'defaults', version: '0.1.0', values: DEFAULTS, files });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A copy of the probe chart whose values.yaml is `text`. */
async function chartWith(text: string): Promise<string> {
  const copy = writeChart(dir, {
    name: 'own-defaults',
    version: '0.1.0',
    files: { 'templates/values.yaml': readFileSync(join(chart, 'templates/values.yaml'), 'utf8') },
  });
  writeFileSync(join(copy, 'values.yaml'), text);
  return copy;
}

/** What the pinned Helm makes of values texts, in order: the values it hands the templates, or that it refuses them. */
async function helmReads(texts: string | string[], n: number, into = chart): Promise<unknown> {
  const files = [texts].flat().map((text, i) => {
    const file = join(dir, `values-${n}-${i}.yaml`);
    writeFileSync(file, text);
    return file;
  });
  const run = await exec(helm, ['template', 'probe', into, ...files.flatMap((file) => ['--values', file])]);
  if (run.code !== 0) return 'refused';
  const line = run.stdout.split('\n').find((l) => l.startsWith('  values: '))!;
  return JSON.parse(JSON.parse(line.slice('  values: '.length)) as string);
}

describe('a values text, as the pinned Helm reads it', () => {
  it('reads every case as Helm does: the same values, or refused by both', async () => {
    const helms = await Promise.all(CASES.map(([, text], n) => helmReads(text, n)));
    const gates = CASES.map(([, text]) => {
      const read = readValuesText(text);
      return read.errors.length > 0 ? 'refused' : read.data;
    });
    expect(Object.fromEntries(CASES.map(([what], n) => [what, gates[n]]))).toEqual(Object.fromEntries(CASES.map(([what], n) => [what, helms[n]])));
    // Both ways: some of each.
    expect(helms.filter((h) => h === 'refused').length).toBeGreaterThan(3);
    expect(helms.filter((h) => h !== 'refused').length).toBeGreaterThan(3);
  });
});

describe("values files in order, over the chart's defaults", () => {
  it('merges them as Helm does before its defaults: a later map over an earlier null, and a null that removes a default', async () => {
    const texts = ['foo: null\nkeep: null\n', 'foo:\n  b: 1\n'];
    const layers = texts.map((text, i) => valuesDataFile(`values-${i}.yaml`, text));
    const merged = mergedValues(layers, valuesDataFile('chart/values.yaml', stringify(DEFAULTS)));
    expect(merged.data).toEqual(await helmReads(texts, 100, chartWithDefaults));
    expect(merged.data).toEqual({ foo: { a: 1, b: 1 } });
  });

  it("reads a chart's own values.yaml of several documents as Helm loads it, merged, for the chart's scope", async () => {
    const text = 'foo:\n  a: 1\n---\nfoo:\n  b: 2\n';
    writeFileSync(join(dir, 'defaults-values.yaml'), text);
    const scope = await chartScopeFromFolder([
      ['Chart.yaml', join(chart, 'Chart.yaml')],
      ['values.yaml', join(dir, 'defaults-values.yaml')],
    ]);
    expect(scope.defaults).toEqual(await helmReads([], 101, await chartWith(text)));
    expect(scope.defaults).toEqual({ foo: { a: 1, b: 2 } });
  });
});

describe('what the gate says of a values text', () => {
  it('says why Helm refuses it, at its place, in the words of the reader that refuses it', () => {
    expect(readValuesText('a: 1\n--- !!map\nb: 2\n').errors).toEqual([
      { line: 2, col: 1, check: 'yaml-syntax', message: expect.stringMatching(/^invalid Yaml document separator: !!map \(Helm 4 cuts a values text/) },
    ]);
    expect(readValuesText('a: 1\n---\n- x\n').errors).toEqual([
      {
        line: 3,
        col: 1,
        check: 'yaml-syntax',
        message:
          'cannot unmarshal yaml document: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal array into Go value of type map[string]interface {}',
      },
    ]);
    expect(readValuesText('a:\n  b: "x\\/y"\n').errors).toEqual([
      { line: 2, col: 8, check: 'yaml-syntax', message: expect.stringMatching(/^found unknown escape character \(go-yaml v2/) },
    ]);
    // The `yaml` library's message without the place it appends: the caller places it.
    expect(readValuesText('a:\n\tb: 1\n').errors).toEqual([{ line: 2, col: 1, check: 'yaml-syntax', message: 'Tabs are not allowed as indentation' }]);
    // The reader that found the error says which of the loader's checks it is: the loader does not read its words.
    expect(readValuesText('a: 1\nb: 2\na: 3\n').errors).toEqual([
      { line: 3, col: 1, check: 'duplicate-key', message: 'duplicate key "a": Map keys must be unique' },
    ]);
    expect(readValuesText(`a: ${'['.repeat(20_000)}${']'.repeat(20_000)}`).errors).toEqual([
      expect.objectContaining({ check: 'nesting-depth', message: 'nests deeper than the parser can take' }),
    ]);
  });

  it('places a path in the last document that writes it, and a path no document has at its deepest ancestor', () => {
    const read = readValuesText('a:\n  k: 1\n  m: 2\n---\nb: 3\n---\na:\n  m: 4\n');
    expect(read.data).toEqual({ a: { k: 1, m: 4 }, b: 3 });
    expect(read.at(['a', 'm'], 'value')).toEqual({ line: 8, col: 6 });
    expect(read.at(['a', 'k'], 'value')).toEqual({ line: 2, col: 6 });
    expect(read.at(['b'], 'key')).toEqual({ line: 5, col: 1 });
    expect(read.at(['a', 'm', 'deeper'], 'value').line).toBe(8);
  });

  it('reads the YAML 1.1 scalars as Helm does, and says where each is', () => {
    const read = readValuesText('a: 1\n---\nenabled: yes\nmode: 0644\n');
    expect(read.data).toEqual({ a: 1, enabled: true, mode: 420 });
    expect(read.ambiguities.map((a) => a.line)).toEqual([3, 4]);
  });
});
