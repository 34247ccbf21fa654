/** A source's values files, resolved once (model/argocd/source-files.ts) for the renderer and every check that reads values. */
import { describe, expect, it } from 'vitest';
import { toArgoApp, type AppSource, type ArgoApp } from '../../model/argocd/argocd.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { confinedPath, goExpand, valueFilesOf } from '../../model/argocd/source-files.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { parseDataFile, type Repo } from '../../model/repository/repo.ts';

const THIS = 'https://github.com/alice/lab.git';
const source = (s: Partial<AppSource>): AppSource => ({ at: [], repoURL: THIS, targetRevision: 'HEAD', ...s });
const app = (sources: AppSource[]): ArgoApp => ({ resource: {} as Resource, name: 'grafana', project: 'default', sources });
const repo = (files: Record<string, string>, resources: Resource[] = []): Repo =>
  ({
    root: '/nonexistent',
    facts: { repoURL: THIS },
    resources,
    dataFiles: new Map(Object.entries(files).map(([f, text]) => [f, parseDataFile(f, text)])),
  }) as unknown as Repo;

describe('values files, as Argo CD resolves them', () => {
  it('reads $ref/ from the source that lends the ref, and a path source relative to its chart', () => {
    const chart = source({
      chart: 'grafana',
      repoURL: 'https://grafana.github.io/helm-charts',
      helm: { valueFiles: ['$values/monitoring/grafana/values.yaml'] },
    });
    const local = source({ path: 'charts/./mine', helm: { valueFiles: ['values-prod.yaml', '../common/values.yaml'] } });
    const a = app([chart, local, source({ ref: 'values' })]);
    expect(valueFilesOf(repo({}), a, chart)).toEqual([{ entry: '$values/monitoring/grafana/values.yaml', rel: 'monitoring/grafana/values.yaml' }]);
    expect(valueFilesOf(repo({}), a, local)).toEqual([
      { entry: 'values-prod.yaml', rel: 'charts/mine/values-prod.yaml' },
      { entry: '../common/values.yaml', rel: 'charts/common/values.yaml' },
    ]);
  });

  it('says why the gate cannot read one, or why Argo CD refuses it', () => {
    const chart = source({
      chart: 'grafana',
      repoURL: 'https://grafana.github.io/helm-charts',
      helm: { valueFiles: ['$other/values.yaml', '$none/values.yaml', 'https://x.example/values.yaml', 'values.yaml', '$values/../../etc/passwd'] },
    });
    const a = app([chart, source({ ref: 'other', repoURL: 'https://github.com/bob/elsewhere.git' }), source({ ref: 'values' })]);
    expect(valueFilesOf(repo({}), a, chart).map((v) => Object.keys(v)[1])).toEqual(['notRendered', 'error', 'notRendered', 'notRendered', 'refused']);
    // The extracted chart is both the folder and the root the repo-server resolves against: an empty entry (or `.`,
    // or `/`) is that root, which it does not allow, and one above it is outside.
    const chartWith = (...valueFiles: string[]) => source({ chart: 'grafana', repoURL: 'https://grafana.github.io/helm-charts', helm: { valueFiles } });
    const inChart = (...entries: string[]) =>
      valueFilesOf(repo({}), app([chartWith(...entries)]), chartWith(...entries)).map((v) => ('error' in v ? v.error : Object.keys(v)[1]));
    expect(inChart('', '.', '/', 'ci/../')).toEqual([
      'value file : path resolved to repository root, which is not allowed',
      'value file .: path resolved to repository root, which is not allowed',
      'value file /: path resolved to repository root, which is not allowed',
      'value file ci/../: path resolved to repository root, which is not allowed',
    ]);
    expect(inChart('../x.yaml', 'ci/values.yaml')).toEqual(['value file ../x.yaml: file "../x.yaml" resolved to outside repository root', 'notRendered']);
    expect(confinedPath('/etc/passwd', 'value file')).toEqual({
      refused: 'value file /etc/passwd is an absolute path; Argo CD reads only inside the repository',
    });
  });

  it('resolves a chart at the root, an absolute path from the root, and Argo CD build variables, as the repo-server does', () => {
    const atRoot = source({
      path: '.',
      helm: { valueFiles: ['values-production.yaml', '/shared/values.yaml', 'values-$ARGOCD_APP_NAME.yaml', '${ARGOCD_APP_PROJECT_NAME}.yaml', '/../x.yaml'] },
    });
    const a = { ...app([atRoot]), destinationNamespace: 'monitoring' };
    expect(valueFilesOf(repo({}), a, atRoot)).toEqual([
      { entry: 'values-production.yaml', rel: 'values-production.yaml' },
      { entry: '/shared/values.yaml', rel: 'shared/values.yaml' },
      { entry: 'values-grafana.yaml', rel: 'values-grafana.yaml' },
      { entry: 'default.yaml', rel: 'default.yaml' },
      { entry: '/../x.yaml', refused: 'value file, from the repository root, ../x.yaml leaves the repository; Argo CD refuses it' },
    ]);
    // The repository's root is no value file: an empty entry of a chart at the root, or `/` anywhere.
    const rootEntries = source({ path: '.', helm: { valueFiles: ['', '/', '//'] } });
    expect(valueFilesOf(repo({}), a, rootEntries).map((v) => 'error' in v && v.error)).toEqual([
      'value file : path resolved to repository root, which is not allowed',
      'value file /: path resolved to repository root, which is not allowed',
      'value file //: path resolved to repository root, which is not allowed',
    ]);
    // An empty spec.project is the default project to Argo CD (GetProject), and so to its build variables.
    const unnamed = toArgoApp({ name: 'grafana', object: { spec: { project: '', source: atRoot } } } as unknown as Resource);
    expect(unnamed.project).toBe('default');
    expect(valueFilesOf(repo({}), { ...unnamed, sources: [atRoot] }, atRoot)[3]).toEqual({ entry: 'default.yaml', rel: 'default.yaml' });
    // The commit Argo CD syncs is known only then: not rendered, never guessed.
    const revision = source({ path: 'charts/mine', helm: { valueFiles: ['values-$ARGOCD_APP_REVISION_SHORT.yaml'] } });
    expect(valueFilesOf(repo({}), app([revision]), revision)).toEqual([
      {
        entry: 'values-$ARGOCD_APP_REVISION_SHORT.yaml',
        notRendered: 'value file values-$ARGOCD_APP_REVISION_SHORT.yaml names the revision Argo CD syncs, known only at sync time',
      },
    ]);
  });

  it("gives checks the values the render reads: a ref lent by another repository is not this repository's file of the same name", () => {
    const files = { 'monitoring/grafana/values.yaml': 'adminUser: alice\n' };
    const lentByAnother = source({
      chart: 'grafana',
      repoURL: 'https://grafana.github.io/helm-charts',
      helm: { valueFiles: ['$other/monitoring/grafana/values.yaml'] },
    });
    const lentByThis = source({
      chart: 'grafana',
      repoURL: 'https://grafana.github.io/helm-charts',
      helm: { valueFiles: ['$values/monitoring/grafana/values.yaml'] },
    });
    const applicationOf = (chart: AppSource, lender: AppSource): Resource =>
      ({
        kind: 'Application',
        apiVersion: 'argoproj.io/v1alpha1',
        name: 'grafana',
        file: 'app.yaml',
        object: { kind: 'Application', metadata: { name: 'grafana' }, spec: { project: 'default', sources: [chart, lender] } },
      }) as unknown as Resource;
    const other = source({ ref: 'other', repoURL: 'https://github.com/bob/elsewhere.git' });
    expect(chartValues(repo(files, [applicationOf(lentByAnother, other)]), 'grafana')).toEqual([]);
    const values = chartValues(repo(files, [applicationOf(lentByThis, source({ ref: 'values' }))]), 'grafana');
    expect(values.map((v) => [v.file, v.values])).toEqual([['monitoring/grafana/values.yaml', { adminUser: 'alice' }]]);
  });
});

describe("a value file's URL scheme, as ResolveValueFilePathOrUrl reads it", () => {
  const PATCH = 'apps/platform/argocd/patches/argocd-cm.yaml';
  const outcome = (files: Record<string, string>, entry: string) => {
    const s = source({ path: 'charts/mine', helm: { valueFiles: [entry] } });
    const [v] = valueFilesOf(repo(files), app([s]), s);
    return 'notRendered' in v! ? 'not rendered' : 'error' in v! ? v.error : 'read';
  };

  it("takes http and https where argocd-cm says nothing, and refuses any other scheme (file:// included) in Argo CD's words", () => {
    expect(outcome({}, 'https://x.example/values.yaml')).toBe('not rendered');
    expect(outcome({}, 'file://../../../../my-chart-values.yaml')).toBe(
      "value file file://../../../../my-chart-values.yaml: the URL scheme 'file' is not allowed (argocd-cm's helm.valuesFileSchemes)",
    );
    // Go's url.Parse reads a scheme before any ':' its rules allow: a file named so is a URL to Argo CD.
    expect(outcome({}, 'prod:values.yaml')).toMatch(/the URL scheme 'prod' is not allowed/);
    expect(outcome({}, 'values.yaml')).toBe('read');
  });

  it("follows argocd-cm's helm.valuesFileSchemes, without case, and allows none where it is empty", () => {
    const cm = (schemes: string) => ({
      [PATCH]: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\ndata:\n  helm.valuesFileSchemes: "${schemes}"\n`,
    });
    // Allowed, but Helm has no getter for s3: it opens the URL as a file (Argo CD's own test expects that error).
    expect(outcome(cm('s3, HTTPS'), 'S3://bucket/values.yaml')).toMatch(/Helm has no getter for 's3' and opens it as a file: no such file or directory/);
    expect(outcome(cm('s3, HTTPS'), 'https://x.example/values.yaml')).toBe('not rendered');
    expect(outcome(cm('s3'), 'https://x.example/values.yaml')).toMatch(/the URL scheme 'https' is not allowed/);
    expect(outcome(cm(''), 'https://x.example/values.yaml')).toMatch(/the URL scheme 'https' is not allowed/);
  });
});

/** Argo CD's own table (argo-cd v3.5.1 reposerver/repository/repository_test.go, Test_getResolvedValueFiles_glob), its tree and its answers. */
describe('values file globs, as Argo CD 3.5 expands them', () => {
  const TREE = ['prod/a.yaml', 'prod/b.yaml', 'prod/nested/c.yaml', 'prod/nested/d.yaml', 'staging/e.yaml', 'envs/a.yaml', 'envs/z.yaml', 'envs/nested/c.yaml'];
  const checkout = (paths: string[]) => ({ ...repo({}), checkout: { paths, from: 'git' } }) as unknown as Repo;
  const resolve = (valueFiles: string[], options: { ignoreMissingValueFiles?: boolean; paths?: string[] } = {}) => {
    const s = source({ path: '.', helm: { valueFiles, ignoreMissingValueFiles: options.ignoreMissingValueFiles } });
    return valueFilesOf(checkout(options.paths ?? TREE), app([s, source({ ref: 'values' })]), s).map((v) => ('rel' in v ? v.rel : v));
  };

  it('matches in doublestar order: each folder by name, its own files before its subfolders', () => {
    expect(resolve(['prod/*.yaml'])).toEqual(['prod/a.yaml', 'prod/b.yaml']);
    expect(resolve(['prod/a*.yaml'])).toEqual(['prod/a.yaml']);
    expect(resolve(['prod/**/*.yaml'])).toEqual(['prod/a.yaml', 'prod/b.yaml', 'prod/nested/c.yaml', 'prod/nested/d.yaml']);
    expect(resolve(['**/*.yaml'])).toEqual([
      'envs/a.yaml',
      'envs/z.yaml',
      'envs/nested/c.yaml',
      'prod/a.yaml',
      'prod/b.yaml',
      'prod/nested/c.yaml',
      'prod/nested/d.yaml',
      'staging/e.yaml',
    ]);
    expect(resolve(['**/nested/*.yaml'])).toEqual(['envs/nested/c.yaml', 'prod/nested/c.yaml', 'prod/nested/d.yaml']);
    expect(resolve(['envs/**/*.yaml'])).toEqual(['envs/a.yaml', 'envs/z.yaml', 'envs/nested/c.yaml']);
    // A ref's glob, its rest substituted first ($ref/$ENV/*.yaml in Argo CD's table).
    expect(resolve(['$values/$ARGOCD_APP_NAME/*.yaml'], { paths: ['grafana/x.yaml', 'grafana/y.yaml', 'grafana/nested/z.yaml'] })).toEqual([
      'grafana/x.yaml',
      'grafana/y.yaml',
    ]);
  });

  it('fails the source on a glob that matches nothing, unless ignoreMissingValueFiles is set', () => {
    expect(resolve(['dev/*.yaml'])).toEqual([{ entry: 'dev/*.yaml', error: 'values file glob "dev/*.yaml" matched no files' }]);
    expect(resolve(['**/nonexistent/*.yaml'])).toEqual([
      { entry: '**/nonexistent/*.yaml', error: 'values file glob "**/nonexistent/*.yaml" matched no files' },
    ]);
    expect(resolve(['dev/*.yaml', '**/nonexistent/*.yaml'], { ignoreMissingValueFiles: true })).toEqual([]);
  });

  it('keeps a file listed outright at its own place, and each file once, where it first comes', () => {
    expect(resolve(['envs/*.yaml', 'envs/z.yaml'])).toEqual(['envs/a.yaml', 'envs/z.yaml']);
    expect(resolve(['prod/a.yaml', 'prod/*.yaml'])).toEqual(['prod/a.yaml', 'prod/b.yaml']);
    expect(resolve(['prod/*.yaml', 'prod/a.yaml'])).toEqual(['prod/b.yaml', 'prod/a.yaml']);
    expect(resolve(['prod/*.yaml', 'prod/**/*.yaml'])).toEqual(['prod/a.yaml', 'prod/b.yaml', 'prod/nested/c.yaml', 'prod/nested/d.yaml']);
    expect(resolve(['prod/a.yaml', 'prod/*.yaml', 'prod/b.yaml', 'prod/**/*.yaml', 'prod/nested/c.yaml'])).toEqual([
      'prod/a.yaml',
      'prod/b.yaml',
      'prod/nested/d.yaml',
      'prod/nested/c.yaml',
    ]);
    // Listed twice outright: the first place holds, as Argo CD 3.5 passes each file to Helm once.
    expect(resolve(['prod/a.yaml', 'prod/b.yaml', 'prod/a.yaml'])).toEqual(['prod/a.yaml', 'prod/b.yaml']);
  });

  it("reads doublestar's syntax: hidden names, a negated class, braces, and a brace alone as a name", () => {
    expect(resolve(['cfg/[!b]*.yaml'], { paths: ['cfg/a.yaml', 'cfg/b.yaml', 'cfg/.c.yaml'] })).toEqual(['cfg/.c.yaml', 'cfg/a.yaml']);
    expect(resolve(['cfg/{a,b}*.yaml'], { paths: ['cfg/a.yaml', 'cfg/b.yaml', 'cfg/c.yaml'] })).toEqual(['cfg/a.yaml', 'cfg/b.yaml']);
    expect(resolve(['cfg/{a,b}.yaml'], { paths: ['cfg/a.yaml'] })).toEqual(['cfg/{a,b}.yaml']);
  });

  it('fails a glob that matches a folder, which Argo CD hands to Helm as a values file', () => {
    expect(resolve(['prod/*'])).toEqual([
      { entry: 'prod/*', error: 'values file glob "prod/*" matches the folder prod/nested, which Helm cannot read as values' },
    ]);
  });
});

describe("Go's os.Expand, as Argo CD's Envsubst runs it", () => {
  it('reads names, braces and one-character special names, eats bad braces, and keeps a lone $', () => {
    const mapping = (name: string) => (name === '$' ? '$' : `<${name}>`);
    const cases: [string, string][] = [
      ['plain', 'plain'],
      ['$A_B.c', '<A_B>.c'],
      ['${A}b', '<A>b'],
      ['$$x', '$x'],
      ['$1abc', '<1>abc'],
      ['x${1}y', 'x<1>y'],
      ['${}x', 'x'],
      ['${A', 'A'],
      ['a$', 'a$'],
      ['$ x', '$ x'],
      ['a$-b', 'a<->b'],
    ];
    for (const [input, expected] of cases) expect(goExpand(input, mapping), input).toBe(expected);
  });
});
