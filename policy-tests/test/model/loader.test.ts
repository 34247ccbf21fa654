import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../model/core/manifest.ts';
import { formatFinding } from '../../model/core/findings.ts';
import { copyRepo, lineOf } from '../support/helpers.ts';

const findingsOf = (text: string, file = 'x.yaml') => parseManifest(file, text).findings.map(formatFinding);

describe('loader', () => {
  it('reads multi-document YAML, skipping blank and comment-only documents', () => {
    const parsed = parseManifest(
      'm.yaml',
      '# header comment\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: ns\n',
    );
    expect(parsed.findings).toEqual([]);
    expect(parsed.resources.map((r) => [r.name, r.namespace, r.doc])).toEqual([
      ['a', undefined, 2],
      ['b', 'ns', 3],
    ]);
  });

  it('reads JSON manifests with the same parser and positions', () => {
    const parsed = parseManifest('m.json', '{\n  "apiVersion": "v1",\n  "kind": "ConfigMap",\n  "metadata": {"name": "j", "name": "k"}\n}\n');
    expect(parsed.findings.map(formatFinding)).toEqual([expect.stringMatching(/^m\.json:4:\d+ \[duplicate-key\] duplicate key "name"/)]);
  });

  it('rejects duplicate keys with file:line:col, naming the key', () => {
    expect(findingsOf('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  x: "2"\n')).toEqual([
      expect.stringMatching(/^x\.yaml:7:3 \[duplicate-key\] duplicate key "x"/),
    ]);
  });

  it('rejects documents without apiVersion or kind, or with an empty kind', () => {
    expect(findingsOf('kind: ConfigMap\nmetadata:\n  name: a\n')).toEqual([
      expect.stringMatching(/^x\.yaml:1:1 \[manifest-shape\] missing or empty apiVersion/),
    ]);
    expect(findingsOf('apiVersion: v1\nmetadata:\n  name: a\n')).toEqual([expect.stringMatching(/^x\.yaml:1:1 \[manifest-shape\] missing or empty kind/)]);
    expect(findingsOf('apiVersion: v1\nkind: ""\nmetadata:\n  name: a\n')).toEqual([
      expect.stringMatching(/^x\.yaml:2:1 \[manifest-shape\] missing or empty kind/),
    ]);
    expect(findingsOf('- a\n- b\n')).toEqual([expect.stringMatching(/\[manifest-shape\] document is a list/)]);
  });

  it('reports syntax errors at their line and keeps the other documents', () => {
    const parsed = parseManifest('s.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\napiVersion: v1\nkind: [unclosed\n');
    expect(parsed.resources.map((r) => r.name)).toEqual(['ok']);
    expect(parsed.findings.map(formatFinding)).toEqual([expect.stringMatching(/^s\.yaml:\d+:\d+ \[yaml-syntax\]/)]);
    expect(parsed.findings[0]!.line).toBeGreaterThanOrEqual(7);
  });

  it('refuses alias bombs (billion laughs) with a clear error instead of expanding them', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 12; i++)
      bomb.push(
        `${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10)
          .fill(`*${String.fromCharCode(96 + i)}`)
          .join(',')}]`,
      );
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\nx:\n${bomb.map((l) => `  ${l}`).join('\n')}\n`;
    const parsed = parseManifest('bomb.yaml', text);
    expect(parsed.resources).toEqual([]);
    expect(parsed.findings.map((f) => f.check)).toEqual(['yaml-syntax']);
  });
});

describe('nesting deeper than the parser can take', () => {
  const deep = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: ${'['.repeat(20_000)}${']'.repeat(20_000)}}\n`;
  /** Parses with `frames` calls already on the stack, as a busy caller would. */
  const checksAt = (frames: number): string[] => (frames > 0 ? checksAt(frames - 1) : parseManifest('deep.yaml', deep).findings.map((f) => f.check));

  it('is one finding per document however much of the stack is already in use (the hostile-input test holds it with none in use)', () => {
    // The parser records an overflow wherever it lands; with some stack in use it lands twice or more (seen: 64 times).
    for (const frames of [100, 1000, 5000]) expect(checksAt(frames), `${frames} frames in use`).toEqual(['nesting-depth']);
  });
});

describe('duplicate keys at scale', () => {
  it('finds the repeat in a mapping of 50,000 keys in one pass', () => {
    const keys = Array.from({ length: 50_000 }, (_, i) => `  k${i}: v`);
    keys.push('  k7: again');
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n${keys.join('\n')}\n`;
    // No time limit here (a busy machine must not fail it). The size still tells the two apart: this check takes
    // about 0.8 s on the 2-core machine, the yaml package's own uniqueKeys check (every key against every earlier
    // one) 17 s, and 200,000 keys only added seconds to every run.
    expect(findingsOf(text)).toEqual([expect.stringMatching(/^x\.yaml:50006:3 \[duplicate-key\] duplicate key "k7"/)]);
  });

  it('tells a string key from a number key, as YAML does', () => {
    expect(findingsOf('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  "1": a\n  1: b\n')).toEqual([]);
  });
});

describe("Argo CD's tracking annotation (model/argocd/tracking.ts)", () => {
  // reposerver/repository/testdata/invalid-metadata/bad.yaml, whose source Argo CD fails with these words.
  const bad = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-map-annotation\n  annotations:\n    invalid: true\nstringData:\n  foo: bar\n';

  it("refuses an object whose annotations hold a non-string, in Argo CD's words, at the annotations, and passes it on to nothing", () => {
    const parsed = parseManifest('bad.yaml', bad);
    expect(parsed.resources).toEqual([]);
    expect(parsed.findings.map(formatFinding)).toEqual([
      'bad.yaml:5:3 [argocd-tracking] ConfigMap my-map-annotation: Argo CD fails the whole source, applying none of it: failed to set app instance tracking info on manifest: failed to get annotations for /v1, Kind=ConfigMap /my-map-annotation: .metadata.annotations accessor error: contains non-string value in the map under key "invalid": true is of the type bool, expected string (fix: quote the annotation value: annotations are strings)',
    ]);
  });

  it('prints the value and its type as Go does: an integer, a list, and annotations that are no map', () => {
    const message = (annotations: string, apiVersion = 'apps/v1') =>
      parseManifest('t.yaml', `apiVersion: ${apiVersion}\nkind: Deployment\nmetadata:\n  name: d\n  namespace: apps\n  annotations: ${annotations}\n`)
        .findings[0]?.message;
    expect(message('{replicas: 3}')).toContain(
      'failed to get annotations for apps/v1, Kind=Deployment apps/d: .metadata.annotations accessor error: contains non-string value in the map under key "replicas": 3 is of the type int64, expected string',
    );
    expect(message('{hosts: [a, b]}')).toContain('under key "hosts": [a b] is of the type []interface {}, expected string');
    expect(message('[a]')).toContain('.metadata.annotations accessor error: [a] is of the type []interface {}, expected map[string]interface{}');
  });

  it('reads quoted values, empty and null annotations as Argo CD does: nothing to refuse', () => {
    for (const annotations of ['{invalid: "true"}', '{}', 'null'])
      expect(parseManifest('t.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations: ${annotations}\n`).findings, annotations).toEqual(
        [],
      );
  });
});

describe('argocd-tracking bites on a broken copy of the real repository', () => {
  it('fails exactly that check, at the annotations of the object, and nothing else', async () => {
    const copy = copyRepo();
    try {
      copy.write(
        'portfolio-api/deploy/flags.yaml',
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\n  namespace: portfolio\n  annotations:\n    beta: true\ndata:\n  mode: on-demand\n',
      );
      const findings = await copy.gate();
      expect(findings.map((f) => `${f.check} ${f.file}:${f.line}`)).toEqual([
        `argocd-tracking portfolio-api/deploy/flags.yaml:${lineOf(copy, 'portfolio-api/deploy/flags.yaml', 'annotations:')}`,
      ]);
    } finally {
      copy.dispose();
    }
  });
});
