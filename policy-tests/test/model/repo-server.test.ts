/** Argo CD's repo-server view of a source (model/argocd/repo-server.ts), case by case from reposerver/repository/repository.go at v3.5.1. */
import { describe, expect, it } from 'vitest';
import {
  appliedFileRefusal,
  appPathOf,
  appPathProblem,
  directoryFiles,
  discoveredTool,
  explicitTool,
  sourceParameterFiles,
  walkOrder,
} from '../../model/argocd/repo-server.ts';
import { mergedValues } from '../../model/helm/merged-values.ts';
import { refProblems, toSource } from '../../model/argocd/app-source.ts';

const TREE = [
  'clusters/home/root.yaml',
  'clusters/home/.x.yaml',
  'clusters/home/notes.txt',
  'apps/a/application.yaml',
  'apps/.hidden/application.yaml',
  'apps/a/deep/b.yml',
  'apps/a/c.json',
  'apps/a/d.jsonnet',
  'apps/a/e.libsonnet',
  'README.md',
];

describe("Argo CD's directory walk", () => {
  it('reads dot-names, and the root include crosses folders (gobwas * has no separator)', () => {
    expect(directoryFiles(TREE, '', { recurse: true, include: '{clusters/home/*.yaml,*/application.yaml}' })).toEqual([
      'apps/.hidden/application.yaml',
      'apps/a/application.yaml',
      'clusters/home/.x.yaml',
      'clusters/home/root.yaml',
    ]);
  });

  it('keeps to the source folder without recurse, and filters by extension (.yaml .yml .json .jsonnet, not .libsonnet)', () => {
    expect(directoryFiles(TREE, 'apps/a')).toEqual(['apps/a/application.yaml', 'apps/a/c.json', 'apps/a/d.jsonnet']);
    expect(directoryFiles(TREE, 'apps/a', { recurse: true })).toEqual(['apps/a/application.yaml', 'apps/a/c.json', 'apps/a/d.jsonnet', 'apps/a/deep/b.yml']);
  });

  it('applies exclude before include, each against the path under the source folder', () => {
    expect(directoryFiles(TREE, 'apps/a', { recurse: true, exclude: '{application.yaml,*.jsonnet}' })).toEqual(['apps/a/c.json', 'apps/a/deep/b.yml']);
    expect(directoryFiles(TREE, 'apps/a', { recurse: true, include: '*.yml' })).toEqual(['apps/a/deep/b.yml']);
    expect(directoryFiles(TREE, './apps/a/', {})).toEqual(directoryFiles(TREE, 'apps/a', {}));
  });

  it("walks in filepath.Walk's order: a folder's entries right after its name", () => {
    expect(walkOrder(['a.yaml', 'a/b.yaml', 'a-b.yaml'])).toEqual(['a/b.yaml', 'a-b.yaml', 'a.yaml']);
  });
});

describe("Argo CD's choice of tool", () => {
  it('takes the blocks a source names, and refuses two', () => {
    expect(explicitTool({ directory: {} })).toEqual({ tool: 'Directory' });
    expect(explicitTool({ plugin: { name: 'x' } })).toEqual({ tool: 'Plugin' });
    expect(explicitTool({})).toEqual({});
    expect(explicitTool({ kustomize: {}, helm: {}, directory: {} })).toEqual({ error: 'multiple application sources defined: Kustomize,Helm,Directory' });
  });

  it('discovers Helm by a name ending in Chart.yaml and kustomize by its file, at the folder itself; the later in walk order wins', () => {
    expect(discoveredTool(['x/Chart.yaml', 'x/values.yaml'], 'x')).toBe('Helm');
    expect(discoveredTool(['x/MyChart.yaml'], 'x')).toBe('Helm');
    expect(discoveredTool(['x/Chart.yaml', 'x/kustomization.yaml'], 'x')).toBe('Kustomize');
    expect(discoveredTool(['x/kustomization.yaml', 'x/zChart.yaml'], 'x')).toBe('Helm');
    expect(discoveredTool(['x/sub/Chart.yaml', 'x/a.yaml'], 'x')).toBe('Directory');
  });

  it('finds the source parameter files at the source path: .argocd-source.yaml and the one named for the app', () => {
    const paths = new Set(['x/.argocd-source.yaml', 'x/.argocd-source-app.yaml', 'x/.argocd-source-other.yaml', '.argocd-source.yaml']);
    expect(sourceParameterFiles(paths, 'x', 'app')).toEqual(['x/.argocd-source.yaml', 'x/.argocd-source-app.yaml']);
    expect(sourceParameterFiles(paths, '', 'app')).toEqual(['.argocd-source.yaml']);
  });

  it('refuses a hidden file it would apply, saying what Argo CD would do; a jsonnet file is rendered and judged instead', () => {
    expect(appliedFileRefusal('apps/.x/a.yaml')).toMatch(/Argo CD applies apps\/\.x\/a\.yaml: its directory walk reads dot-names/);
    expect(appliedFileRefusal('apps/x/.a.jsonnet')).toMatch(/reads dot-names/);
    expect(appliedFileRefusal('apps/x/a.jsonnet')).toBeUndefined();
    expect(appliedFileRefusal('apps/x/a.yaml')).toBeUndefined();
  });
});

describe("a source's path joined to the checkout (util/app/path Path)", () => {
  const folder = { folder: true, file: false };
  it('is cleaned as filepath.Join cleans it: dots, doubled and trailing slashes, and .. taken back', () => {
    expect(['', '.', './', 'apps/x/', './apps//x', 'apps/y/../x', 'apps/..', 'apps/../..'].map(appPathOf)).toEqual([
      '',
      '',
      '',
      'apps/x',
      'apps/x',
      'apps/x',
      '',
      '..',
    ]);
  });
  it("is refused in Argo CD's words where it is absolute, leaves the root, names nothing or names a file", () => {
    expect(appPathProblem('/apps/x', folder)).toBe('/apps/x: app path is absolute');
    expect(appPathProblem('apps/../../x', folder)).toBe('apps/../../x: app path outside root');
    expect(appPathProblem('apps/missing', { folder: false, file: false })).toBe('apps/missing: app path does not exist');
    expect(appPathProblem('apps/x/a.yaml', { folder: false, file: true })).toBe('apps/x/a.yaml: app path is not a directory');
    expect(appPathProblem('apps/y/../x', folder)).toBeUndefined();
    expect(appPathProblem('.', { folder: false, file: false })).toBeUndefined();
  });
});

describe("the ref keys of an Application's sources (util/argo GetRefSources)", () => {
  const sources = (refs: (string | undefined)[], field = 'sources') =>
    refs.map((ref, i) => toSource({ repoURL: 'https://example.org/lab.git', ...(ref === undefined ? {} : { ref }) }, ['spec', field, i]));
  it("refuses a key of other than letters, digits, _ and -, and a key two sources share, in Argo CD's words", () => {
    expect(refProblems(sources(['values', 'my_values-2', undefined])).map((p) => p.message)).toEqual([]);
    expect(refProblems(sources(['my.values', 'values', 'values'])).map((p) => [p.source.ref, p.message])).toEqual([
      ['my.values', "sources.ref my.values cannot contain any special characters except '_' and '-'"],
      ['values', 'invalid sources: multiple sources had the same `ref` key'],
    ]);
  });
  it('reads only spec.sources, as Argo CD validates them', () => {
    expect(refProblems(sources(['my.values'], 'source'))).toEqual([]);
  });
});

describe('values as the chart receives them (model/helm/merged-values.ts)', () => {
  const layer = (file: string, data: Record<string, unknown>, line: number) => ({ file, data, errors: [], positions: { at: () => ({ line, col: 1 }) } });

  it('coalesces layers as Helm does, and points a path at the last layer that set it', () => {
    const merged = mergedValues([
      layer('values.yaml', { driver: { kind: 'modern_ebpf', buf: 4 }, tolerations: [{ key: 'a' }], keep: 1, drop: 2 }, 10),
      layer('application.yaml', { driver: { kind: 'kmod' }, tolerations: [], drop: null }, 30),
    ]);
    // A null stays a null where the chart's defaults lack the key (Helm's coalesceTablesFullKey; the pinned Helm prints
    // `-f` a file that sets it, then `--set` it to null, as null), and removes it where they have it.
    expect(merged.data).toEqual({ driver: { kind: 'kmod', buf: 4 }, tolerations: [], keep: 1, drop: null });
    const overDefaults = mergedValues(
      [layer('values.yaml', { keep: 1, drop: 2 }, 10), layer('application.yaml', { drop: null }, 30)],
      layer('chart/values.yaml', { drop: 0, other: 3 }, 1),
    );
    expect(overDefaults.data).toEqual({ keep: 1, other: 3 });
    expect(merged.positions.at(['driver', 'kind'], 'key')).toMatchObject({ file: 'application.yaml', line: 30 });
    expect(merged.positions.at(['driver', 'buf'], 'key')).toMatchObject({ file: 'values.yaml', line: 10 });
    expect(merged.positions.at(['driver', 'missing'], 'key')).toMatchObject({ file: 'application.yaml', line: 30 });
    expect(merged.positions.at(['keep'], 'key')).toMatchObject({ file: 'values.yaml', line: 10 });
  });
});
