/**
 * A directory source's jsonnet as the model reads it before anything runs: the imports a text spells (string
 * literals of every form, never one inside a comment or a string), where go-jsonnet's importer looks for each, the
 * library paths Argo CD accepts, the variables, and argocd-cm's switch.
 */
import { describe, expect, it } from 'vitest';
import { importCandidates, jsonnetEnabled, jsonnetImports, jsonnetLibPath, jsonnetOptions, jsonnetPlaces } from '../../model/argocd/jsonnet.ts';
import type { AppSource } from '../../model/argocd/argocd.ts';

describe('jsonnetImports: what an evaluation can read, found in the text', () => {
  it('finds every import, importstr and importbin with its line, in each string form', () => {
    const text = [
      "local a = import 'a.libsonnet';",
      'local b = importstr "b\\u0041.txt";',
      "local c = importbin @'c''s.bin';",
      'local d = import',
      '  |||',
      '    d.libsonnet',
      '  |||;',
      '{}',
    ].join('\n');
    expect(jsonnetImports(text)).toEqual([
      { kind: 'import', path: 'a.libsonnet', line: 1 },
      { kind: 'importstr', path: 'bA.txt', line: 2 },
      { kind: 'importbin', path: "c's.bin", line: 3 },
      { kind: 'import', path: 'd.libsonnet\n', line: 4 },
    ]);
  });

  it('passes over imports inside comments and strings, identifiers that only start with import, and computed imports', () => {
    const text = [
      "// import 'line.libsonnet'",
      "# import 'hash.libsonnet'",
      "/* import 'block.libsonnet' */",
      'local s = "import \'quoted.libsonnet\'";',
      "local t = |||\n  import 'block-text.libsonnet'\n|||;",
      'local importer = 1; local x = importer;',
      "local y = import ('computed' + '.libsonnet');",
      "local z = import /* between */ 'after-comment.libsonnet';",
      '{}',
    ].join('\n');
    expect(jsonnetImports(text).map((i) => i.path)).toEqual(['after-comment.libsonnet']);
  });
});

describe('jsonnetPlaces: where a value or a key is spelt', () => {
  it('lists string literals and field names with their lines and columns, a field named by a string too', () => {
    const text = "local x = 'a';\n{\n  name: 'web',\n  'quoted-key':: x,\n  labels+: { app: importstr 'f.txt' },\n}\n";
    expect(jsonnetPlaces(text)).toEqual({
      strings: [
        { value: 'a', line: 1, col: 11 },
        { value: 'web', line: 3, col: 9 },
        { value: 'f.txt', line: 5, col: 29 },
      ],
      fields: [
        { name: 'name', line: 3, col: 3 },
        { name: 'quoted-key', line: 4, col: 3 },
        { name: 'labels', line: 5, col: 3 },
        { name: 'app', line: 5, col: 14 },
      ],
    });
  });
});

describe("importCandidates: go-jsonnet's FileImporter order", () => {
  it("the importing file's folder, then the library paths, the last first", () => {
    expect(importCandidates('apps/a/main.jsonnet', 'lib.libsonnet', ['apps/a', 'vendor', 'lib'])).toEqual([
      { rel: 'apps/a/lib.libsonnet' },
      { rel: 'lib/lib.libsonnet' },
      { rel: 'vendor/lib.libsonnet' },
      { rel: 'apps/a/lib.libsonnet' },
    ]);
  });

  it('marks a path that is absolute or climbs out of the repository as outside', () => {
    expect(importCandidates('apps/a/main.jsonnet', '/etc/passwd', ['apps/a'])).toEqual([{ outside: '/etc/passwd' }]);
    expect(importCandidates('apps/a/main.jsonnet', '../../../x', [''])[0]).toEqual({ outside: '../x' });
    expect(importCandidates('main.jsonnet', 'x.libsonnet', [''])).toEqual([{ rel: 'x.libsonnet' }, { rel: 'x.libsonnet' }]);
  });
});

describe('jsonnetLibPath: ResolveFileOrDirectoryPath from the repository root', () => {
  it('resolves relative and absolute paths inside the root, the root itself allowed', () => {
    expect(jsonnetLibPath('testdata/jsonnet/vendor')).toEqual({ rel: 'testdata/jsonnet/vendor' });
    expect(jsonnetLibPath('/vendor/')).toEqual({ rel: 'vendor' });
    expect(jsonnetLibPath('.')).toEqual({ rel: '' });
    expect(jsonnetLibPath('a/../b')).toEqual({ rel: 'b' });
  });

  it("refuses one that leaves the root, in Argo CD's words", () => {
    expect(jsonnetLibPath('../../../testdata/jsonnet/vendor')).toEqual({
      error: "file '../../../testdata/jsonnet/vendor' resolved to outside repository root",
    });
    expect(jsonnetLibPath('/../x')).toHaveProperty('error');
  });
});

describe('jsonnetOptions and jsonnetEnabled', () => {
  it('reads extVars, tlas and libs as Argo CD decodes them', () => {
    const source = {
      at: [],
      repoURL: '',
      targetRevision: '',
      directory: { jsonnet: { extVars: [{ name: 'a', value: 'x' }], tlas: [{ name: 'b', value: '1', code: true }], libs: ['vendor'] } },
    } as AppSource;
    expect(jsonnetOptions(source)).toEqual({
      extVars: [{ name: 'a', value: 'x', code: false }],
      tlas: [{ name: 'b', value: '1', code: true }],
      libs: ['vendor'],
    });
  });

  it("is on unless argocd-cm's jsonnet.enable says anything but true", () => {
    expect(jsonnetEnabled(undefined)).toBe(true);
    expect(jsonnetEnabled({ 'jsonnet.enable': '' })).toBe(true);
    expect(jsonnetEnabled({ 'jsonnet.enable': 'true' })).toBe(true);
    expect(jsonnetEnabled({ 'jsonnet.enable': 'false' })).toBe(false);
    expect(jsonnetEnabled({ 'jsonnet.enable': 'yes' })).toBe(false);
  });
});
