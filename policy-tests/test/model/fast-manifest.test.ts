/**
 * fast-manifest.ts reads a manifest from js-yaml's events only where it must make what the `yaml` library makes:
 * the same documents, the same objects, every place `locate` gives, and no finding the `yaml` library's reading
 * would name (a syntax error, a repeated key, a YAML 1.1 scalar). Held here on every YAML file of the repository,
 * on the corner cases, and on mutated copies of the repository's files (what a careless or hostile pull request
 * writes); anything else must be left to the `yaml` library.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { output } from '../../../test-support/exec.ts';
import { parseManifest } from '../../model/core/manifest.ts';
import { REPO_ROOT } from '../../model/repository/repo.ts';
import { fastManifest } from '../../model/yaml/fast-manifest.ts';
import { readerAgreement } from '../../model/yaml/reader-agreement.ts';

const repoYamlFiles = async (): Promise<string[]> => (await output('git', ['ls-files', '*.yaml', '*.yml'], { cwd: REPO_ROOT })).split('\n').filter(Boolean);

/** A small seeded generator, so a failing mutation can be found again. */
function seeded(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** What a careless hand or a hostile pull request inserts: YAML's indicators, breaks, tabs and the odd letter. */
const INSERTS = [
  ' ',
  ':',
  '-',
  '|',
  '>',
  '"',
  "'",
  '\n',
  '\t',
  '#',
  '{',
  '}',
  '[',
  ']',
  ',',
  '?',
  '&',
  '*',
  '!',
  '%',
  '@',
  '`',
  'a',
  '0',
  '\\',
  ': ',
  '- ',
  '\n  ',
  '\n- ',
  '...',
  '---',
];

function mutated(text: string, random: () => number): string {
  let out = text;
  for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
    const at = Math.floor(random() * out.length);
    const r = random();
    if (r < 0.5) out = out.slice(0, at) + INSERTS[Math.floor(random() * INSERTS.length)]! + out.slice(at);
    else if (r < 0.8) out = out.slice(0, at) + out.slice(at + 1 + Math.floor(random() * 3));
    else {
      const from = Math.floor(random() * out.length);
      out = out.slice(0, at) + out.slice(from, from + 6) + out.slice(at);
    }
  }
  return out;
}

describe('manifests read fast', () => {
  it('reads every YAML file of the repository as the yaml library does, or leaves it', async () => {
    const counts = { same: 0, left: 0 };
    for (const file of await repoYamlFiles()) {
      const verdict = readerAgreement(readFileSync(join(REPO_ROOT, file), 'utf8'));
      if (verdict === 'same' || verdict === 'left') counts[verdict]++;
      else expect.fail(`${file}: ${verdict}`);
    }
    // Most of the repository is read fast: what is left holds an anchor, a merge key or a YAML 1.1 scalar.
    expect(counts.same).toBeGreaterThan(10 * counts.left);
  });

  it('places what the yaml library places: quoted keys, block scalars, empty values, flow collections, documents', () => {
    const cases = [
      'a: 1\n"b c": \'d\'\n',
      'a: |\n  text\nb: >-\n  folded\n  more\nc: |+2 # a comment with | and >\n    kept\n\n',
      'a: |\n\n  after a blank line\n',
      '- |\n  item\n- - >\n    nested\n- key: |\n    in a map\n',
      'a:\nb: # a comment\nc :\nd: {e: }\n',
      'a: [1, "two", {x: z}]\nb: {}\nc: []\n',
      '# before\n---\na: 1\n---\n---\nb: 2\n',
      'a: plain\n  folded over\nb: "double\n  quoted"\n',
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  "8080": port\n  __proto__: kept\n  toString: too\n',
      '',
      '# only a comment\n',
      'just a string\n',
      '? explicit\n: key\n',
      'a:\n  b:\n    c:\n      - d: [e, {f: g}]\n',
      'a: 0x1F\nb: 0o17\nc: .inf\nd: -.Inf\ne: .nan\nf: 1e3\ng: ~\nh: Null\ni: TRUE\nj: -0\nk: +12\n',
      'a: b\uFEFFc\nd: x\u0085y\ne: x\u2028y\nf: "x\u2028y"\ng: \u00a0h\n',
      "a: \"\\x41\\u263A\\U0001F600\\N\\_\\L\\P\"\nb: 'it''s'\nc: >\n  x\n\n  y\nd: |-\n  x\ne: |2\n   x\n",
      '- - - x\n',
      '{a: 1}\n',
    ];
    for (const text of cases) expect(readerAgreement(text), JSON.stringify(text)).toBe('same');
  });

  it('leaves to the yaml library what only it may read', () => {
    const cases = {
      anchor: 'a: &x 1\nb: 2\n',
      alias: 'a: &x 1\nb: *x\n',
      tag: 'a: !!str 1\n',
      'custom tag': 'a: !thing 1\n',
      'merge key': 'base: {a: 1}\nm:\n  <<: {b: 2}\n',
      'repeated key': 'a: 1\na: 2\n',
      'YAML 1.1 boolean': 'a: yes\n',
      'YAML 1.1 octal': 'mode: 0755\n',
      'YAML 1.1 key': 'on: push\n',
      'document end': 'a: 1\n...\n',
      directive: '%YAML 1.2\n---\na: 1\n',
      'carriage return': 'a: 1\r\nb: 2\r\n',
      'large integer': 'a: 9223372036854775807\n',
      'empty item': 'a:\n  -\n  - x\n',
      'collection key': '? [a, b]\n: c\n',
      'null key': '~: a\n',
      'empty key': ': a\n',
      'key holding an indicator before a block scalar': '"a|b": |\n  x\n',
      'syntax error': 'a: [1, 2\n',
      'bad indentation': 'a:\n  b: 1\n c: 2\n',
      tab: 'a:\n\tb: 1\n',
      'deep nesting': `${'['.repeat(200)}${']'.repeat(200)}\n`,
    };
    for (const [what, text] of Object.entries(cases)) expect(fastManifest(text), what).toBeUndefined();
  });

  it('agrees with the yaml library on mutated copies of the repository, or leaves them', async () => {
    const texts = (await repoYamlFiles()).map((f) => readFileSync(join(REPO_ROOT, f), 'utf8')).filter((t) => t.length < 20_000);
    const random = seeded(53);
    const counts = { same: 0, left: 0 };
    for (let n = 0; n < 1500; n++) {
      const text = mutated(texts[Math.floor(random() * texts.length)]!, random);
      const verdict = readerAgreement(text);
      if (verdict === 'same' || verdict === 'left') counts[verdict]++;
      else expect.fail(`mutation ${n}: ${verdict}\n${text}`);
    }
    expect(counts.same).toBeGreaterThan(300);
    expect(counts.left).toBeGreaterThan(300);
  });

  it('gives the loader the same resources and findings either way', async () => {
    for (const file of await repoYamlFiles()) {
      const text = readFileSync(join(REPO_ROOT, file), 'utf8');
      if (!fastManifest(text)) continue;
      // A text the fast reader leaves (a directive on the first line: %TAG, which go-yaml takes, where it refuses
      // %YAML 1.2) is read by the yaml library: the same file, both ways.
      const slow = parseManifest(file, `%TAG !e! tag:example.com,2000:\n---\n${text}`);
      const fast = parseManifest(file, text);
      const shape = (p: typeof fast) => ({
        findings: p.findings.map(({ check, message }) => ({ check, message })),
        resources: p.resources.map(({ apiVersion, kind, name, namespace, object }) => ({ apiVersion, kind, name, namespace, object })),
        documents: p.documents,
      });
      expect(shape(fast), file).toEqual(shape(slow));
    }
  });
});
