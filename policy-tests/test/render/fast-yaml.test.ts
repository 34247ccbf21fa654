/**
 * fast-yaml.ts reads render output with js-yaml only where it must make what the `yaml` library makes: held here
 * against the `yaml` library on every YAML file of the repository (its manifests, values, charts and fixtures) and
 * on each corner of the core schema, and left to the `yaml` library wherever the two could differ.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments, parseDocument } from 'yaml';
import { asYaml11 } from '../../model/yaml/yaml11.ts';
import { beforeAll, describe, expect, it } from 'vitest';
import { output } from '../../../test-support/exec.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { fastDocuments, fastValue, loadFastReader } from '../../render/fast-yaml.ts';
import { splitRendered } from '../../render/output.ts';

/** What output.ts reads without js-yaml: the `yaml` library's documents as YAML 1.1 reads them, or undefined where it reports an error. */
function slowDocuments(chunk: string): unknown[] | undefined {
  const out: unknown[] = [];
  for (const doc of parseAllDocuments(chunk, { uniqueKeys: false, merge: true } as never) as ReturnType<typeof parseAllDocuments> & unknown[]) {
    if (doc.errors.length) return undefined;
    asYaml11(doc);
    out.push(doc.toJS({ maxAliasCount: 100 }));
  }
  return out;
}

/** One document as parse() reads it (a repeated key refused), as YAML 1.1 reads it. */
function parsed11(text: string): unknown {
  const doc = parseDocument(text);
  if (doc.errors.length) throw doc.errors[0]!;
  asYaml11(doc);
  return doc.toJS({ maxAliasCount: 100 });
}

/** The two readings as JSON, with NaN and the infinities and -0 spelled out, and empty documents dropped (output.ts skips them). */
const spelled = (docs: unknown[]): string =>
  JSON.stringify(
    docs.filter((d) => d !== null && d !== undefined),
    (_k, v: unknown) => (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)) ? `number:${String(Object.is(v, -0) ? '-0' : v)}` : v),
  );

/** Every YAML file git tracks in the repository. */
const repoYamlFiles = async (): Promise<string[]> => (await output('git', ['ls-files', '*.yaml', '*.yml'], { cwd: REPO_ROOT })).split('\n').filter(Boolean);

function expectSameOrLeft(chunk: string): 'same' | 'left' {
  const fast = fastDocuments(chunk);
  if (fast === undefined) return 'left';
  const slow = slowDocuments(chunk);
  expect(slow, `js-yaml answered a chunk the yaml library refuses:\n${chunk}`).toBeDefined();
  expect(spelled(fast)).toBe(spelled(slow!));
  return 'same';
}

describe('render output read fast', () => {
  beforeAll(loadFastReader);

  it('reads every YAML file of the repository to the objects the yaml library makes, chunk by chunk', async () => {
    const files = await repoYamlFiles();
    expect(files.length).toBeGreaterThan(200);
    let same = 0;
    let chunks = 0;
    for (const file of files) {
      for (const chunk of readFileSync(join(REPO_ROOT, file), 'utf8').split(/^---[ \t]*$/m)) {
        chunks++;
        if (expectSameOrLeft(chunk) === 'same') same++;
      }
    }
    // Nearly all of it is answered fast (what is left: merge keys, aliases, tags); none of it differently.
    expect(same / chunks).toBeGreaterThan(0.9);
  });

  it("reads every YAML file of the repository whole as the yaml library's parse() does, or leaves it (a chart's values.yaml)", async () => {
    let same = 0;
    const files = await repoYamlFiles();
    for (const file of files) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      const fast = fastValue(text);
      if (!fast) continue;
      let slow: unknown;
      expect(() => (slow = parsed11(text)), `${file}: js-yaml read what parse() refuses`).not.toThrow();
      expect(spelled([fast.value]), file).toBe(spelled([slow]));
      same++;
    }
    expect(same / files.length).toBeGreaterThan(0.8);
    // A repeated key, refused by parse(), is refused here too; two documents are left to it.
    expect(fastValue('a: 1\na: 2\n')).toBeUndefined();
    expect(() => parse('a: 1\na: 2\n')).toThrow();
    expect(fastValue('a: 1\n---\nb: 2\n')).toBeUndefined();
    expect(fastValue('')).toEqual({ value: null });
  });

  it.each([
    ['null forms and an empty value', 'a: ~\nb: null\nc: Null\nd: NULL\ne:\nf: nULL\n'],
    [
      'booleans of YAML 1.2, and the YAML 1.1 words Argo CD and Helm read as booleans',
      'a: true\nb: True\nc: TRUE\nd: false\ne: tRue\nf: yes\ng: on\nh: No\ni: y\nj: OFF\nk: oN\n',
    ],
    ['numbers YAML 1.1 reads otherwise: underscores, binary, signed hex, octal', 'a: 1_000\nb: 0b101\nc: -0x1F\nd: +0x1F\ne: 0755\nf: 1_0.5\ng: 0x_1F\n'],
    ['integers', 'a: 0o17\nb: 0x1F\nc: +12\nd: -0\ne: 012\nf: 1_000\ng: 0b101\nh: 9007199254740993\ni: 0o8\nj: 0xG\n'],
    ['floats', 'a: 1e3\nb: .5\nc: 1.\nd: -.Inf\ne: .inf\nf: .NaN\ng: 1.50\nh: +2.5E-3\ni: 1.2.3\nj: .nan\nk: NaN\n'],
    ['keys: null, empty, numbers, booleans, repeated, __proto__', '~: a\n"": b\n1: c\n1.50: d\ntrue: e\nx: 1\nx: 2\n__proto__: f\ntoString: g\n'],
    ['quoted scalars stay strings, escapes read alike', "a: \"1\"\nb: 'true'\nc: \"\\u00e9\\t\\x41\\N\\_\"\nd: 'it''s'\n"],
    ['block scalars, folded and kept', 'a: |\n  one\n  two\nb: >-\n  one\n  two\n\n  three\nc: |+\n  kept\n\nd: x\n'],
    ['flow collections and comments', 'a: {b: 1, c: [2, "3", {d: ~}]} # c\n# only a comment\ne: [ ]\n'],
    ['two documents and a document end', 'a: 1\n...\n---\nb: 2\n'],
    ['an anchor with no alias', 'a: &x 1\nb: 2\n'],
    ['a list of objects', '- kind: ConfigMap\n  apiVersion: v1\n- 3\n'],
    ['a directive', '%YAML 1.2\n---\na: 1\n'],
    ['an empty chunk', '\n# Source: chart/templates/x.yaml\n'],
    [
      'the string, sequence and map tags written out, verbatim, and the non-specific tag',
      'a: !!str 12\nb: !!seq [1]\nc: !!map {d: 1}\ne: !<tag:yaml.org,2002:str> 5\nf: ! 12\n',
    ],
  ])('%s: the same values', (_name, chunk) => {
    expect(expectSameOrLeft(chunk)).toBe('same');
  });

  it.each([
    ['an alias', 'a: &x {b: 1}\nc: *x\n'],
    ['a merge key', 'a: &x {b: 1}\nc:\n  <<: *x\n'],
    ['an inline merge', 'c:\n  <<: {b: 1}\n'],
    ['a core scalar tag written out', 'a: !!int "3"\n'],
    ['a null tag written out', 'a: !!null ""\n'],
    ['a tag of its own', 'a: !secret x\n'],
    ['a collection as a key', '? [a, b]\n: c\n'],
    ['a tab as indentation', 'a:\n\tb: 1\n'],
    ['a repeated anchor bomb', 'a: &a [x, x]\nb: &b [*a, *a]\nc: [*b, *b]\n'],
    ['an unterminated quote', 'a: "b\n'],
  ])('%s: left to the yaml library', (_name, chunk) => {
    expect(fastDocuments(chunk)).toBeUndefined();
  });

  it('gives output.ts the same objects and problems as the yaml library alone would', () => {
    const output = [
      '# Source: c/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {n: "1"}',
      '# Source: c/templates/b.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: b}\nextra: *m',
      '# Source: c/templates/c.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: "c',
      '# Source: c/templates/d.yaml\n- 1',
    ].join('\n---\n');
    const { docs, problems } = splitRendered(output);
    expect(docs.map((d) => [d.template, (d.object.metadata as { name: string }).name])).toEqual([
      ['c/templates/a.yaml', 'a'],
      ['c/templates/b.yaml', 'b'],
    ]);
    expect(docs[1]!.object.extra).toEqual({ name: 'b' });
    expect(problems.map((p) => p.message.split(':')[0])).toEqual(['c/templates/c.yaml', 'c/templates/d.yaml']);
  });
});
