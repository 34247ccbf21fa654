/** The ApplicationSet model: parameters as Argo CD's generators make them, templates as its renderer reads them, and matrix and merge. */
import { describe, expect, it } from 'vitest';
import { gitPathspecMatch } from '../../model/core/glob.ts';
import type { Repo } from '../../model/repository/repo.ts';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  checkoutDirectories,
  directoryParams,
  fileParams,
  flatten,
  gitFiles,
  listParams,
  MAX_GENERATOR_FILE_BYTES,
  readCheckoutFile,
  sanitizeName,
} from '../../model/appset/params.ts';
import { goPrint } from '../../model/go/fmt.ts';
import { fastReplace, goTemplateVerdict } from '../../model/appset/template.ts';
import { applyTemplatePatch } from '../../model/appset/template-patch.ts';
import { generatedApplicationErrors } from '../../model/appset/validation.ts';
import { generatorParams, MAX_PARAMETER_SETS, type Run } from '../../model/appset/generators.ts';
import { GeneratorError, Unjudged, type TemplateMode } from '../../model/appset/renderer.ts';
import { withPreservedMetadata } from '../../model/appset/outcomes.ts';
import { renderGoTemplates } from '../../render/go-template.ts';

describe("parameters as Argo CD's generators make them", () => {
  it("prints a value as Go's %v prints what encoding/json decoded: floats in strconv's shortest form", () => {
    expect([1000000, 123456, 1234567, 1.5, 0.0001, 0.00001, 123, -2e21].map(goPrint)).toEqual([
      '1e+06',
      '123456',
      '1.234567e+06',
      '1.5',
      '0.0001',
      '1e-05',
      '123',
      '-2e+21',
    ]);
    expect([true, null, 'x', { b: 'y', a: 1 }, [1, 'z']].map(goPrint)).toEqual(['true', '<nil>', 'x', 'map[a:1 b:y]', '[1 z]']);
  });

  it('normalizes a name as SanitizeName does', () => {
    expect(['App_3', '--a.b--', 'Ünïcode Name', 'x'.repeat(300)].map(sanitizeName)).toEqual(['app-3', 'a.b', 'n-code-name', 'x'.repeat(253)]);
  });

  it('flattens nested objects and lists to dotted keys, an empty one leaving nothing', () => {
    expect(flatten({ a: { b: [1, { c: 2 }] }, e: {}, f: [] })).toEqual({ 'a.b.0': 1, 'a.b.1.c': 2 });
  });

  it("reads a list's elements: with goTemplate as written, without it as strings (values.* one level down), refusing any other value", () => {
    expect(listParams({ elements: [{ cluster: 'a', values: { foo: 'bar' } }] }, false)).toEqual([{ cluster: 'a', 'values.foo': 'bar' }]);
    expect(listParams({ elements: [{ n: 3 }] }, true)).toEqual([{ n: 3 }]);
    expect(() => listParams({ elements: [{ n: 3 }] }, false)).toThrow(GeneratorError);
    expect(listParams({ elements: [], elementsYaml: '- a: yes\n' }, true)).toEqual([{ a: true }]);
  });

  it('lists the folders of the checkout the directories generator matches, hidden ones and what is under them left out', () => {
    const checkout = { paths: ['apps/a/x.yaml', 'apps/b/c/y.yaml', '.github/w.yml', 'apps/.hidden/z.yaml', 'top.yaml'] };
    const repo = { checkout, resources: [] } as unknown as Repo;
    expect(checkoutDirectories(repo)).toEqual(['apps', 'apps/a', 'apps/b', 'apps/b/c']);
    const found = directoryParams(checkoutDirectories(repo), [{ path: 'apps/*' }, { path: 'apps/b', exclude: true }], false, '');
    expect(found).toEqual([{ path: 'apps/a', 'path.basename': 'a', 'path.basenameNormalized': 'a', 'path[0]': 'apps', 'path[1]': 'a' }]);
    // argocd-cmd-params-cm's reposerver.include.hidden.directories, read as the repo-server reads its environment.
    const params = (value: string) =>
      ({
        checkout,
        resources: [{ kind: 'ConfigMap', name: 'argocd-cmd-params-cm', object: { data: { 'reposerver.include.hidden.directories': value } } }],
      }) as unknown as Repo;
    expect(checkoutDirectories(params('TRUE'))).toEqual(['.github', 'apps', 'apps/.hidden', 'apps/a', 'apps/b', 'apps/b/c']);
    expect(checkoutDirectories(params('yes'))).toEqual(['apps', 'apps/a', 'apps/b', 'apps/b/c']);
  });

  it('reads a git file as YAML 1.1, one set per object, a list of objects a set each', () => {
    const sets = fileParams([{ path: 'envs/prod/config.yaml', text: 'enabled: yes\nsize: 0777\nlist:\n  - a\n' }], false, '');
    expect(sets[0]).toMatchObject({ enabled: 'true', size: '511', 'list.0': 'a', path: 'envs/prod', 'path.filename': 'config.yaml' });
    expect(fileParams([{ path: 'c.json', text: '[{"a": 1}, {"a": 2}]' }], true, 'p').map((s) => s.a)).toEqual([1, 2]);
    expect(() => fileParams([{ path: 'c.json', text: 'invalid json file' }], false, '')).toThrow(/unable to parse file/);
  });

  it("matches a git pathspec as git ls-files does: a folder names what is under it, and * crosses '/'", () => {
    expect(gitPathspecMatch('apps', 'apps/x/y.json')).toBe(true);
    expect(gitPathspecMatch('apps', 'appsx/y.json')).toBe(false);
    expect(gitPathspecMatch('apps/*/config.json', 'apps/a/b/config.json')).toBe(true);
    expect(gitPathspecMatch('**/config.json', 'config.json')).toBe(false);
    expect(gitPathspecMatch('a/[!b]x', 'a/cx')).toBe(true);
    expect(gitPathspecMatch('a/[!b]x', 'a/bx')).toBe(false);
    expect(gitPathspecMatch('a/[[:digit:]]', 'a/7')).toBe(true);
    expect(gitPathspecMatch('a?c', 'abc')).toBe(true);
  });
});

describe("templates as Argo CD's renderer reads them", () => {
  it('replaces what fasttemplate replaces and leaves the rest as written', () => {
    const p = { one: 'two', 'path.basename': 'b' };
    expect(fastReplace('{{one}}-{{ path.basename }}-{{ nope }}', p)).toBe('two-b-{{ nope }}');
    expect(fastReplace('{{one\n}}', p)).toBe('{{one\n}}');
    expect(() => fastReplace('{{one}} {{two', p)).toThrow(/Cannot find end tag/);
  });

  it('says where Go templates would part: a missing key, missingkey=error, a function only one engine has, a rebound dot', () => {
    const p = { app: 'x', path: { basename: 'b' } };
    expect(goTemplateVerdict('{{ .app }}-{{ .path.basename }}', p, [])).toEqual({});
    expect(goTemplateVerdict('{{ .name }}', p, []).unjudged).toMatch(/<no value>/);
    expect(goTemplateVerdict('{{ .name | default "d" }}', p, [])).toEqual({});
    expect(goTemplateVerdict('{{ .name | default "d" }}', p, ['missingkey=error']).fails).toMatch(/map has no entry for key "name"/);
    expect(goTemplateVerdict('{{ .nope.deeper }}', p, []).unjudged).toMatch(/<no value>/);
    expect(goTemplateVerdict('{{ include "x" . }}', p, []).fails).toMatch(/function "include" not defined/);
    expect(goTemplateVerdict('{{ slugify .app }}', p, []).unjudged).toMatch(/slugify/);
    expect(goTemplateVerdict('{{ range .list }}{{ .name }}{{ end }}', p, []).unjudged).toMatch(/range, with or template/);
    expect(goTemplateVerdict('{{ "a .name in a string" }}', p, [])).toEqual({});
    expect(goTemplateVerdict('{{ index .path "basename" }}', p, [])).toEqual({});
    expect(goTemplateVerdict('{{- index .path "nope" -}}', p, ['missingkey=error']).unjudged).toMatch(/index finds no key "nope"/);
  });
});

describe('a matrix and a merge, as Argo CD evaluates them', () => {
  const repo = { root: '/nowhere', resources: [] } as unknown as Repo;
  const run = (mode: Partial<TemplateMode> = {}): Run => ({
    repo,
    mode: { goTemplate: false, options: [], engine: undefined, ...mode },
    reads: [],
  });
  const list = (elements: unknown[]) => ({ list: { elements } });

  it('crosses two generators, rendering the second with each set of the first', async () => {
    const matrix = { matrix: { generators: [list([{ env: 'prod' }, { env: 'dev' }]), list([{ folder: 'envs/{{env}}' }])] } };
    expect(await generatorParams(run(), matrix, 'generator 0')).toEqual([
      { env: 'prod', folder: 'envs/prod' },
      { env: 'dev', folder: 'envs/dev' },
    ]);
  });

  it('fails where two sets hold one key with two texts, as CombineStringMaps fails', async () => {
    const matrix = { matrix: { generators: [list([{ name: 'a' }]), list([{ name: 'b' }])] } };
    await expect(generatorParams(run(), matrix, 'generator 0')).rejects.toThrow(/found duplicate key name with different value/);
  });

  it('crosses with goTemplate through the real engine, and declines a deep merge it does not replay', async () => {
    const mode = { goTemplate: true, engine: (jobs: Parameters<typeof renderGoTemplates>[0]) => renderGoTemplates(jobs) };
    const matrix = { matrix: { generators: [list([{ env: 'prod' }]), list([{ folder: 'envs/{{ .env | upper }}' }])] } };
    expect(await generatorParams(run(mode), matrix, 'generator 0')).toEqual([{ env: 'prod', folder: 'envs/PROD' }]);
    const deep = { matrix: { generators: [list([{ v: { a: 1 } }]), list([{ v: { b: 2 } }])] } };
    await expect(generatorParams(run(mode), deep, 'generator 0')).rejects.toThrow(Unjudged);
  });

  it('merges sets by their keys, the later ones over the first, and refuses a set twice under one key', async () => {
    const merge = {
      merge: {
        mergeKeys: ['name'],
        generators: [
          list([
            { name: 'a', size: 's' },
            { name: 'b', size: 's' },
          ]),
          list([{ name: 'b', size: 'l' }]),
        ],
      },
    };
    expect(await generatorParams(run(), merge, 'generator 0')).toEqual([
      { name: 'a', size: 's' },
      { name: 'b', size: 'l' },
    ]);
    const twice = { merge: { mergeKeys: ['name'], generators: [list([{ name: 'a' }, { name: 'a' }]), list([])] } };
    await expect(generatorParams(run(), twice, 'generator 0')).rejects.toThrow(/Found duplicate param sets/);
  });

  it('keeps the sets a selector matches, and says it cannot judge a generator it does not evaluate', async () => {
    const selected = { list: { elements: [{ env: 'prod' }, { env: 'dev' }] }, selector: { matchLabels: { env: 'dev' } } };
    expect(await generatorParams(run(), selected, 'generator 0')).toEqual([{ env: 'dev' }]);
    await expect(generatorParams(run(), { scmProvider: { github: { organization: 'x' } } }, 'generator 0')).rejects.toThrow(Unjudged);
  });
});

describe('the clusters generator, over the clusters the repository declares', () => {
  const secret = (name: string, server: string, labels: Record<string, string>) => ({
    kind: 'Secret',
    apiVersion: 'v1',
    name,
    namespace: 'argocd',
    object: { metadata: { name, namespace: 'argocd', labels: { 'argocd.argoproj.io/secret-type': 'cluster', ...labels } }, stringData: { name, server } },
  });
  const repo = { root: '/nowhere', resources: [secret('remote', 'https://remote:6443', { env: 'prod' })] } as unknown as Repo;
  const run = (goTemplate: boolean): Run => ({ repo, mode: { goTemplate, options: [], engine: undefined }, reads: [] });

  it('makes a set per cluster Secret, then the local cluster where nothing selects', async () => {
    expect(await generatorParams(run(false), { clusters: {} }, 'generator 0')).toEqual([
      {
        name: 'remote',
        nameNormalized: 'remote',
        server: 'https://remote:6443',
        project: '',
        'metadata.labels.argocd.argoproj.io/secret-type': 'cluster',
        'metadata.labels.env': 'prod',
      },
      { name: 'in-cluster', nameNormalized: 'in-cluster', server: 'https://kubernetes.default.svc', project: '' },
    ]);
  });

  it('leaves the local cluster out under a selector, and nests the metadata with goTemplate', async () => {
    const sets = await generatorParams(run(true), { clusters: { selector: { matchLabels: { env: 'prod' } } } }, 'generator 0');
    expect(sets).toEqual([
      {
        name: 'remote',
        nameNormalized: 'remote',
        server: 'https://remote:6443',
        project: '',
        metadata: { labels: { 'argocd.argoproj.io/secret-type': 'cluster', env: 'prod' } },
      },
    ]);
  });
});

describe('what a hostile ApplicationSet meets', () => {
  it('a generator of more sets than the gate expands is not judged', async () => {
    const repo = { root: '/nowhere', resources: [] } as unknown as Repo;
    const many = { list: { elements: Array.from({ length: MAX_PARAMETER_SETS + 1 }, (_, i) => ({ n: String(i) })) } };
    await expect(generatorParams({ repo, mode: { goTemplate: false, options: [], engine: undefined }, reads: [] }, many, 'generator 0')).rejects.toThrow(
      /makes 1001 parameter sets, more than the 1000/,
    );
  });

  it("a git generator's file that links out of the checkout is not read, nor one past the size limit", () => {
    const root = mkdtempSync(join(tmpdir(), 'appset-'));
    try {
      mkdirSync(join(root, 'apps'));
      symlinkSync('/etc/hostname', join(root, 'apps/out.yaml'));
      writeFileSync(join(root, 'apps/big.yaml'), Buffer.alloc(MAX_GENERATOR_FILE_BYTES + 1, 0x61));
      const repo = { root } as unknown as Repo;
      expect(() => readCheckoutFile(repo, 'apps/out.yaml')).toThrow(/a link out of the checkout/);
      expect(() => readCheckoutFile(repo, 'apps/big.yaml')).toThrow(/larger than 4 MiB/);
      expect(() => readCheckoutFile(repo, 'apps/none.yaml')).toThrow(/unable to read file 'apps\/none.yaml': ENOENT/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it("a Go template Helm cannot run is the gate's failure, not the template's: an engine that is not at hand", async () => {
    await expect(
      renderGoTemplates([{ template: '{{ .a }}', params: { a: 'b' } }], { ...process.env, HELM_BIN: '/nowhere/helm', KUSTOMIZE_BIN: '/nowhere/kustomize' }),
    ).rejects.toMatchObject({
      gate: true,
      message: expect.stringMatching(/not at hand/),
    });
  });

  it("a Go template that loops past the render time limit is killed, and the limit is the gate's: said as such", async () => {
    const looping = renderGoTemplates([{ template: '{{ range until 100000000 }}x{{ end }}', params: { a: 'b' } }], {
      ...process.env,
      HOMELAB_RENDER_TIMEOUT: '1',
    });
    await expect(looping).rejects.toMatchObject({ gate: true, message: expect.stringMatching(/did not finish within 1 s/) });
  });
});

describe("a templatePatch, as Argo CD's controller applies it", () => {
  const app = {
    metadata: { name: 'guestbook', finalizers: ['resources-finalizer.argocd.argoproj.io'] },
    spec: { project: 'default', source: { repoURL: 'https://example.com/r.git', path: 'guestbook' }, destination: { namespace: 'guestbook' } },
  };

  it("merges maps, replaces lists, keeps the project, and adds finalizers to the app's (Argo CD's own JSON case, and a project it keeps)", () => {
    const patched = applyTemplatePatch(
      app,
      '{"metadata": {"annotations": {"k": "v"}, "finalizers": ["x"]}, "spec": {"project": "other", "source": {"helm": {"valueFiles": ["a.yaml", "b.yaml"]}}, "syncPolicy": {"automated": {"prune": true}}}}',
    );
    expect(patched).toEqual({
      // A merged list's new items go first where the live list does not order them (apimachinery's mergeSortedSlice).
      metadata: { name: 'guestbook', annotations: { k: 'v' }, finalizers: ['x', 'resources-finalizer.argocd.argoproj.io'] },
      spec: {
        project: 'default',
        source: { repoURL: 'https://example.com/r.git', path: 'guestbook', helm: { valueFiles: ['a.yaml', 'b.yaml'] } },
        destination: { namespace: 'guestbook' },
        syncPolicy: { automated: { prune: true } },
      },
    });
  });

  it('reads YAML, removes what a null names, and fails what Argo CD cannot read', () => {
    expect(applyTemplatePatch(app, 'spec:\n  destination: null\n')).toEqual({ ...app, spec: { project: 'default', source: app.spec.source } });
    expect(() => applyTemplatePatch(app, '- a\n')).toThrow(GeneratorError);
  });

  it('does what a directive does in apimachinery: a map replaced or emptied, keys retained, items deleted from a list', () => {
    expect(applyTemplatePatch(app, 'spec:\n  $patch: replace\n  destination: {name: in-cluster}\n').spec).toEqual({
      destination: { name: 'in-cluster' },
      project: 'default',
    });
    expect(applyTemplatePatch(app, 'spec:\n  source:\n    $patch: delete\n').spec).toEqual({ ...app.spec, source: {} });
    expect(applyTemplatePatch(app, 'spec:\n  source:\n    $retainKeys: [repoURL, path]\n').spec).toEqual({
      ...app.spec,
      source: { repoURL: app.spec.source.repoURL, path: 'guestbook' },
    });
    expect(applyTemplatePatch(app, 'metadata:\n  $deleteFromPrimitiveList/finalizers: [resources-finalizer.argocd.argoproj.io]\n').metadata).toEqual({
      name: 'guestbook',
      finalizers: [],
    });
  });

  it("keeps a directive a replaced list carries as Go's decode keeps it: dropped, the item kept", () => {
    const withSources = { ...app, spec: { ...app.spec, sources: [{ repoURL: 'a' }, { repoURL: 'b' }] } };
    expect(applyTemplatePatch(withSources, 'spec:\n  sources:\n  - repoURL: b\n    $patch: delete\n').spec).toEqual({
      ...withSources.spec,
      sources: [{ repoURL: 'b' }],
    });
    // Where the app has no such list, the marked item is removed before it lands.
    expect(applyTemplatePatch(app, 'spec:\n  sources:\n  - repoURL: b\n    $patch: delete\n').spec).toEqual({ ...app.spec, sources: [] });
  });

  it("fails a patch apimachinery refuses, in Argo CD's words, and says a merge into status is not judged", () => {
    const helm = { ...app, spec: { ...app.spec, source: { ...app.spec.source, helm: { valuesObject: { ingress: { enabled: false } } } } } };
    expect(() => applyTemplatePatch(helm, 'spec:\n  source:\n    helm:\n      valuesObject:\n        ingress: {enabled: true}\n')).toThrow(
      /error while applying templatePatch template to json .*: unable to find api field in struct RawExtension for the json field "ingress"/,
    );
    expect(() => applyTemplatePatch(app, 'spec:\n  $patch: merge\n')).toThrow(/unknown patch type: merge in map: map\[\$patch:merge\]/);
    expect(() => applyTemplatePatch({ ...app, status: { sync: { status: 'Synced' } } }, 'status:\n  sync: {status: OutOfSync}\n')).toThrow(Unjudged);
  });
});

describe("the ApplicationSet controller's refusals (validateGeneratedApplications)", () => {
  const known = {
    projects: new Set(['default', 'media']),
    clusters: [{ server: 'https://kubernetes.default.svc', name: 'in-cluster' }],
    clustersWritten: false,
  };
  const app = (name: string, o: { namespace?: string; project?: string; destination?: { server?: string; name?: string } } = {}) => ({
    name,
    namespace: o.namespace ?? 'argocd',
    project: o.project ?? 'media',
    destination: o.destination ?? { server: 'https://kubernetes.default.svc' },
  });

  it('keeps each refusal by qualified name: both of a name made twice in one namespace go, one in another namespace stays', () => {
    const errors = generatedApplicationErrors('extras', [app('a'), app('a'), app('b'), app('b', { namespace: 'apps' })], known);
    expect([...errors]).toEqual([
      ['argocd/a', 'ApplicationSet extras contains applications with duplicate name: a'],
      ['apps/b', 'ApplicationSet extras contains applications with duplicate name: b'],
    ]);
  });

  it('refuses a project the namespace does not hold and a destination Argo CD cannot resolve, the first problem of each only', () => {
    const errors = generatedApplicationErrors(
      'extras',
      [
        app('p', { project: 'nowhere', destination: { name: 'elsewhere' } }),
        app('d', { destination: { name: 'elsewhere' } }),
        app('ok', { project: 'default' }),
      ],
      known,
    );
    expect([...errors]).toEqual([
      ['argocd/p', 'application references project nowhere which does not exist'],
      ['argocd/d', 'application destination spec is invalid: there are no clusters with this name: elsewhere'],
    ]);
    // A cluster only an ExternalSecret's Secret could name is not refused here: argocd-destination says it is not judged.
    expect(generatedApplicationErrors('extras', [app('d', { destination: { name: 'elsewhere' } })], { ...known, clustersWritten: true }).size).toBe(0);
    expect(generatedApplicationErrors('extras', [app('both', { destination: { name: 'x', server: 'y' } })], { ...known, clustersWritten: true }).size).toBe(1);
  });
});

describe('the git directories generator where argocd-cmd-params-cm lists hidden folders', () => {
  const url = 'https://github.com/example/lab.git';
  const repo = {
    root: '/nowhere',
    facts: { repoURL: url, revision: 'main' },
    checkout: { paths: ['apps/a/x.yaml', 'apps/.b/y.yaml'] },
    resources: [{ kind: 'ConfigMap', name: 'argocd-cmd-params-cm', object: { data: { 'reposerver.include.hidden.directories': 'true' } } }],
  } as unknown as Repo;
  const run: Run = { repo, mode: { goTemplate: false, options: [], engine: undefined }, reads: [] };
  const git = (path: string) => ({ git: { repoURL: url, revision: 'main', directories: [{ path }] } });

  it('lists them, as the repo-server does', async () => {
    expect((await generatorParams(run, git('apps/*'), 'generator 0')).map((p) => p.path)).toEqual(['apps/.b', 'apps/a']);
  });

  it("does not judge a pattern that matches the checkout's .git folders, which the repo-server then lists and the gate cannot see", async () => {
    await expect(generatorParams(run, git('*'), 'generator 0')).rejects.toThrow(Unjudged);
    await expect(generatorParams(run, git('*/*/*/*'), 'generator 0')).rejects.toThrow(/matches the checkout's \.git folders/);
  });
});

describe("the git files generator under argocd-cmd-params-cm's new git file globbing", () => {
  const paths = ['envs/prod/config.yaml', 'envs/dev/config.yaml', 'envs/dev/extra/config.yaml', 'envs/README.md'];
  const repo = (value: string) =>
    ({
      checkout: { paths },
      resources: [{ kind: 'ConfigMap', name: 'argocd-cmd-params-cm', object: { data: { 'applicationsetcontroller.enable.new.git.file.globbing': value } } }],
    }) as unknown as Repo;

  it('globs as doublestar does (a star within one folder, two stars across them), where git ls-files lets a star cross', () => {
    expect(gitFiles(repo('false'), [{ path: 'envs/*/config.yaml' }])).toEqual(['envs/dev/config.yaml', 'envs/dev/extra/config.yaml', 'envs/prod/config.yaml']);
    expect(gitFiles(repo('true'), [{ path: 'envs/*/config.yaml' }])).toEqual(['envs/dev/config.yaml', 'envs/prod/config.yaml']);
    // The pattern joined to the checkout and cleaned, as filepath.Join does; what it names outside is dropped.
    expect(gitFiles(repo('true'), [{ path: '/envs/dev/../prod/config.yaml' }])).toEqual(['envs/prod/config.yaml']);
    expect(gitFiles(repo('true'), [{ path: '../elsewhere/*.yaml' }])).toEqual([]);
    expect(gitFiles(repo('true'), [{ path: 'envs/**/config.yaml' }, { path: 'envs/prod/*', exclude: true }])).toEqual([
      'envs/dev/config.yaml',
      'envs/dev/extra/config.yaml',
    ]);
  });

  it('fails where a pattern names a folder, which the repo-server cannot read as a file, and does not judge one that reaches .git', () => {
    expect(() => gitFiles(repo('true'), [{ path: 'envs/*' }])).toThrow(/read envs\/dev: is a directory/);
    expect(() => gitFiles(repo('true'), [{ path: '**' }])).toThrow(Unjudged);
  });
});

describe('what the controller keeps of an Application it writes', () => {
  it('keeps a preserved annotation or label the cluster holds, writes one it does not hold, and leaves the rest as generated', () => {
    const generated = { metadata: { name: 'tools', annotations: { owner: 'media', pager: 'on' } }, spec: {} };
    const live = { metadata: { name: 'tools', annotations: { owner: 'ops', 'argocd.argoproj.io/refresh': 'hard' }, labels: { tier: 'web' } } };
    const kept = withPreservedMetadata(generated, live, { annotations: ['owner', 'argocd.argoproj.io/refresh', 'absent'], labels: ['tier'] });
    expect(kept.metadata).toEqual({
      name: 'tools',
      annotations: { owner: 'ops', pager: 'on', 'argocd.argoproj.io/refresh': 'hard' },
      labels: { tier: 'web' },
    });
    expect(generated.metadata.annotations.owner).toBe('media');
    expect(withPreservedMetadata(generated, { metadata: {} }, { annotations: ['owner'], labels: [] })).toBe(generated);
  });
});
