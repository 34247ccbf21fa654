/**
 * Argo CD's source parameter files merged into a source as its repo-server merges them (mergeSourceParameters,
 * v3.5.1): a JSON merge patch, then Go's encoding/json decoding the result into the source so far. The cases of
 * Argo CD's own TestGetAppDetailsWithAppParameterFile (its testdata/app-parameters files, written out here), then what
 * Go's decoder does that a reader of the file would not guess.
 */
import { describe, expect, it } from 'vitest';
import { APPLICATION_SOURCE, mergePatch, mergeSourceParameters } from '../../model/argocd/source-parameters.ts';
import { applications, filesOfApp } from '../../model/argocd/argocd.ts';
import { refusalsOf } from '../../model/argocd/refusals.ts';
import { loadRepo, parseDataFile } from '../../model/repository/repo.ts';
import { loadFieldTrees, type Shape } from '../../schema/field-tree.ts';
import { fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';

const file = (name: string, text: string) => parseDataFile(name, text);
const SOURCE = { repoURL: 'https://github.com/example/lab.git', targetRevision: 'main', path: 'apps/web' };
const images = (version: string) => `kustomize:\n  images:\n    - quay.io/argoprojlabs/argocd-e2e-container:${version}\n`;

describe("a source parameter file, merged as Argo CD's repo-server merges it", () => {
  it("agrees with Argo CD's own cases: the repository's file, then the app's, keys Go has no field for dropped, a file that is no map refused", () => {
    const global = file('.argocd-source.yaml', images('0.2'));
    const app = file('.argocd-source-testapp.yaml', images('0.3'));
    const merged = (...files: ReturnType<typeof file>[]) => mergeSourceParameters(SOURCE, files);
    // No app name, or no app's file: the repository's file alone.
    expect(merged(global).source).toMatchObject({ kustomize: { images: ['quay.io/argoprojlabs/argocd-e2e-container:0.2'] } });
    // Only the app's file; both, the app's last.
    expect(merged(app).source).toMatchObject({ kustomize: { images: ['quay.io/argoprojlabs/argocd-e2e-container:0.3'] } });
    expect(merged(global, app).source).toMatchObject({ kustomize: { images: ['quay.io/argoprojlabs/argocd-e2e-container:0.3'] } });
    // "Containing non-mergeable field": keys no field has are dropped by Go's decoder, and the images still merge.
    const unmergeable = file('.argocd-source-unmergeable.yaml', `repo: https://somewhere\n${images('0.3')}  invalid:\n    - I don't know\n`);
    const { source, problems } = merged(global, unmergeable);
    expect(source).toEqual({ ...SOURCE, kustomize: { images: ['quay.io/argoprojlabs/argocd-e2e-container:0.3'] } });
    expect(problems.map((p) => [p.line, p.fails, p.message])).toEqual([
      [1, false, 'Argo CD drops repo: no field of ApplicationSource is called that'],
      [5, false, 'Argo CD drops kustomize.invalid: no field of ApplicationSourceKustomize is called that'],
    ]);
    // "Broken": a file whose YAML is a string followed by a map is no YAML at all, and Argo CD fails the source.
    const broken = file('.argocd-source-broken.yaml', `aloi\n${images('0.2')}`);
    expect(broken.errors.length).toBeGreaterThan(0);
  });

  it("decodes as Go's encoding/json decodes into the source so far: fields kept, a list's elements written over, keys of another case read, types held", () => {
    const written = {
      ...SOURCE,
      helm: {
        parameters: [
          { name: 'image.tag', value: '1.0', forceString: true },
          { name: 'replicas', value: '2' },
        ],
        valuesObject: { a: { b: 1, c: 2 } },
        valueFiles: ['values.yaml'],
      },
    };
    const { source, problems } = mergeSourceParameters(written, [
      file(
        '.argocd-source-web.yaml',
        // Image Updater's spelling of forceString; a parameter list written over element by element; valuesObject merged, then replaced whole.
        'helm:\n  parameters:\n    - name: image.name\n      value: web\n  valuesObject:\n    a:\n      c: null\n      d: 3\n  ignoreMissingValueFiles: true\n',
      ),
    ]);
    expect(problems).toEqual([]);
    expect(source.helm).toEqual({
      // The decoder writes into the old element 0: forceString, which the file does not set, stays true.
      parameters: [{ name: 'image.name', value: 'web', forceString: true }],
      valuesObject: { a: { b: 1, d: 3 } },
      valueFiles: ['values.yaml'],
      ignoreMissingValueFiles: true,
    });
    // A key of another case is the field's (encoding/json folds case); of two for one field the later in byte order wins.
    const folded = mergeSourceParameters(SOURCE, [file('.argocd-source.yaml', 'Helm:\n  ReleaseName: a\n  releasename: b\n')]);
    expect(folded.source.helm).toEqual({ releaseName: 'b' });
    // A value of another type fails the source, at its line.
    const typed = mergeSourceParameters(SOURCE, [file('.argocd-source.yaml', 'helm:\n  parameters:\n    - name: replicas\n      value: 3\n')]);
    expect(typed.problems).toEqual([
      expect.objectContaining({ fails: true, line: 4, message: 'json: cannot unmarshal number into helm.parameters.0.value (a Go string)' }),
    ]);
    // What the repo-server puts back is said, and kept; a null leaves what it names as it was; a map keeps its other keys.
    const kept = mergeSourceParameters({ ...SOURCE, kustomize: { commonLabels: { team: 'web', tier: 'front' } } }, [
      file('.argocd-source.yaml', 'path: elsewhere\nkustomize:\n  commonLabels:\n    tier: null\n    app: web\n'),
    ]);
    expect(kept.source).toEqual({ ...SOURCE, kustomize: { commonLabels: { team: 'web', tier: 'front', app: 'web' } } });
    expect(kept.problems.map((p) => p.message)).toEqual(["Argo CD ignores path in a source parameter file: it keeps the Application's"]);
    // A count is an IntOrString: a string or an int32.
    const count = (n: string) => mergeSourceParameters(SOURCE, [file('.argocd-source.yaml', `kustomize:\n  replicas:\n    - name: web\n      count: ${n}\n`)]);
    expect([count('3'), count('"3"'), count('2147483648'), count('1.5')].map((m) => m.problems.length)).toEqual([0, 0, 1, 1]);
    // Read as sigs.k8s.io/yaml reads it, YAML 1.1: a plain yes is true, and said.
    const yes = file('.argocd-source.yaml', 'directory:\n  recurse: yes\n');
    expect(mergeSourceParameters(SOURCE, [yes]).source.directory).toEqual({ recurse: true });
    expect(yes.ambiguities).toEqual([expect.objectContaining({ line: 2 })]);
    // A file that is not a map fails the source; an empty one changes nothing.
    expect(mergeSourceParameters(SOURCE, [file('.argocd-source.yaml', '- a\n')]).problems[0]).toMatchObject({ fails: true });
    expect(mergeSourceParameters(SOURCE, [file('.argocd-source.yaml', '# nothing\n')])).toMatchObject({ source: SOURCE, problems: [] });
  });

  it('is RFC 7386 as evanphx/json-patch runs it: nulls pruned from what is put in whole, a list kept with its null elements', () => {
    expect(mergePatch({ a: { b: 1 } }, { a: { b: null, c: [{ d: null, e: 1 }, null] }, f: { g: null } })).toEqual({ a: { c: [{ e: 1 }, null] }, f: {} });
    expect(mergePatch({ a: [1] }, { a: { b: null, c: 1 } })).toEqual({ a: { c: 1 } });
  });

  it("knows every field of Argo CD's ApplicationSource that the Application schema knows", async () => {
    // The schema layer reads the same Go types from kubernetes-models' declarations: a field Argo CD adds is seen here.
    const trees = await loadFieldTrees();
    const shapes = trees.shapes;
    const app = shapes[trees.kinds['argoproj.io/v1alpha1/Application']!.root] as { f: Record<string, number> };
    const spec = shapes[app.f.spec!] as { f: Record<string, number> };
    const namesOf = (shape: Shape | undefined): string[] => (shape && typeof shape === 'object' && 'f' in shape ? Object.keys(shape.f).sort() : []);
    const source = shapes[spec.f.source!];
    const fields = (APPLICATION_SOURCE as { fields: Record<string, unknown> }).fields;
    expect(namesOf(source).filter((f) => !(f in fields))).toEqual([]);
    for (const block of ['helm', 'kustomize', 'directory']) {
      const ours = Object.keys((fields[block] as { fields: Record<string, unknown> }).fields);
      expect(
        namesOf(shapes[(source as { f: Record<string, number> }).f[block]!]).filter((f) => !ours.includes(f)),
        block,
      ).toEqual([]);
    }
  });
});

describe('an Application whose source folder holds a parameter file', () => {
  it('is read with the file merged, its findings at the line of the file that set them, and a file Argo CD fails on refused', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  a: "1"\n');
    repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web\n    directory:\n      exclude: application.yaml'));
    repo.write('apps/web/.argocd-source-web.yaml', 'directory:\n  recurse: true\n');
    const [app] = applications(await loadRepo(repo.root));
    expect(app!.sources[0]).toMatchObject({
      directory: { recurse: true, exclude: 'application.yaml' },
      parameterFiles: { files: ['apps/web/.argocd-source-web.yaml'] },
    });
    expect(app!.sources[0]!.parameterFiles!.placeOf(['directory', 'recurse'], 'value')).toMatchObject({ file: 'apps/web/.argocd-source-web.yaml', line: 2 });
    // What the Application wrote stays its own.
    expect(app!.sources[0]!.parameterFiles!.placeOf(['directory', 'exclude'], 'value')).toBeUndefined();

    repo.write('apps/web/.argocd-source.yaml', 'directory:\n  recurse: yes please\n');
    const loaded = await loadRepo(repo.root);
    expect(refusalsOf(loaded, applications(loaded)[0]!)).toEqual([
      expect.objectContaining({
        file: 'apps/web/.argocd-source.yaml',
        line: 2,
        unread: true,
        message:
          'Argo CD fails the source of Application web: error while parsing source parameters: apps/web/.argocd-source.yaml: json: cannot unmarshal string into directory.recurse (a Go bool)',
      }),
    ]);
    // YAML Argo CD cannot read fails the source too, at the line the parser names.
    repo.write('apps/web/.argocd-source.yaml', 'directory:\n  recurse: true\n  recurse: false\n');
    const broken = await loadRepo(repo.root);
    expect(refusalsOf(broken, applications(broken)[0]!)).toEqual([
      expect.objectContaining({ file: 'apps/web/.argocd-source.yaml', line: 3, unread: true, message: expect.stringMatching(/: duplicate key "recurse"/) }),
    ]);
  });

  it('is loaded as Argo CD walks it: a folder outside the manifest roots that its recurse reaches is read and judged', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/application.yaml', repoApp('web', '    path: z-outside/web'));
    repo.write('z-outside/web/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: top\n');
    repo.write('z-outside/web/sub/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: below\n');
    const names = async () =>
      (await loadRepo(repo.root)).resources
        .filter((r) => r.kind === 'ConfigMap')
        .map((r) => r.name)
        .sort();
    expect(await names()).toEqual(['cluster-facts', 'top']);
    repo.write('z-outside/web/.argocd-source-web.yaml', 'directory:\n  recurse: true\n');
    expect(await names()).toEqual(['below', 'cluster-facts', 'top']);
  });
});

describe('a kustomize source beyond the manifest roots', () => {
  it("is loaded as Argo CD reads it: its folder's files read and judged, its kustomization as data", async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/application.yaml', repoApp('web', '    path: z-outside/web'));
    repo.write('z-outside/web/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n');
    repo.write('z-outside/web/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: built\n');
    const loaded = await loadRepo(repo.root);
    expect(
      loaded.resources
        .filter((r) => r.kind === 'ConfigMap')
        .map((r) => r.name)
        .sort(),
    ).toEqual(['built', 'cluster-facts']);
    expect(loaded.dataFiles.has('z-outside/web/kustomization.yaml')).toBe(true);
    expect(filesOfApp(loaded, applications(loaded)[0]!)).toEqual(['z-outside/web/cm.yaml']);
  });

  it('reads every folder its build reaches too: a `../base` beyond the roots is loaded, and a finding lands in its file', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/application.yaml', repoApp('web', '    path: z-outside/web/overlay'));
    repo.write('z-outside/web/overlay/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\n');
    repo.write('z-outside/web/base/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n');
    repo.write('z-outside/web/base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: based\n');
    repo.write('z-outside/other/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unreached\n');
    const loaded = await loadRepo(repo.root);
    expect(loaded.resources.filter((r) => r.kind === 'ConfigMap').map((r) => `${r.file}:${r.name}`)).toContain('z-outside/web/base/cm.yaml:based');
    expect(loaded.files.has('z-outside/other/cm.yaml')).toBe(false);
    expect(loaded.dataFiles.has('z-outside/web/base/kustomization.yaml')).toBe(true);
    expect(filesOfApp(loaded, applications(loaded)[0]!)).toEqual(['z-outside/web/base/cm.yaml']);
    // A build that reaches a kustomization at the repository's root reads what it names there, never the whole checkout.
    repo.write('kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - z-outside/web/base\n');
    repo.write('z-outside/web/overlay/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../../..\n');
    const rooted = await loadRepo(repo.root);
    expect(rooted.files.has('z-outside/web/base/cm.yaml')).toBe(true);
    expect(rooted.files.has('z-outside/other/cm.yaml')).toBe(false);
  });
});

describe('a kustomize build beyond the manifest roots reads what kustomize builds from', () => {
  it('its resources and kustomizations, never a patch, a generator input or a stray file of a folder it visits', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/application.yaml', repoApp('web', '    path: z-outside/web/overlay'));
    repo.write(
      'z-outside/web/overlay/kustomization.yaml',
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ../base\npatches:\n  - path: replicas.yaml\nconfigMapGenerator:\n  - name: settings\n    envs:\n      - settings.env\n',
    );
    repo.write('z-outside/web/overlay/replicas.yaml', 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n');
    repo.write('z-outside/web/overlay/settings.env', 'MODE=lab\n');
    repo.write('z-outside/web/overlay/notes/draft.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: draft\n');
    repo.write('z-outside/web/base/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - cm.yaml\n');
    repo.write('z-outside/web/base/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: based\n');
    repo.write('z-outside/web/base/unused.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: unused\n');
    const loaded = await loadRepo(repo.root);
    const beyond = [...loaded.files].filter((f) => f.startsWith('z-outside/')).sort();
    expect(beyond).toEqual(['z-outside/web/base/cm.yaml', 'z-outside/web/base/kustomization.yaml', 'z-outside/web/overlay/kustomization.yaml']);
    expect(loaded.resources.filter((r) => r.file.startsWith('z-outside/')).map((r) => r.name)).toEqual(['based']);
  });
});

describe('a source of several with an empty path', () => {
  it('generates nothing, as GenerateManifest skips it, and is no walk of the root; `sources: []` leaves `source` in force', async () => {
    const repo = fixtureRepo();
    const chart = '    - repoURL: https://charts.example.org\n      chart: web\n      targetRevision: 1.0.0\n';
    const application = (sources: string) => repoApp('web', '    path: apps/web').replace(/  source:\n(?:    .*\n)+/, sources);
    repo.write(
      'apps/web/application.yaml',
      application(`  sources:\n${chart}    - repoURL: https://github.com/example/lab.git\n      targetRevision: main\n      path: ""\n      ref: values\n`),
    );
    repo.write('z-outside/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: outside\n');
    const loaded = await loadRepo(repo.root);
    expect(applications(loaded)[0]!.sources[1]).toMatchObject({ path: undefined, ref: 'values' });
    expect(loaded.resources.some((r) => r.name === 'outside')).toBe(false);
    // An empty `sources` is no list of sources: `source` is, and its folder outside the manifest roots is walked.
    repo.write(
      'apps/web/application.yaml',
      application('  sources: []\n  source:\n    repoURL: https://github.com/example/lab.git\n    targetRevision: main\n    path: z-outside\n'),
    );
    expect((await loadRepo(repo.root)).resources.some((r) => r.name === 'outside')).toBe(true);
  });
});

describe('a finding on an option a parameter file set', () => {
  it('lands in the parameter file, at the option, not on the Application that does not write it', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
    repo.write('apps/web/chart/templates/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\n');
    const sources =
      '  sources:\n    - repoURL: https://github.com/example/lab.git\n      targetRevision: main\n      path: apps/web/chart\n    - repoURL: https://github.com/example/lab.git\n      targetRevision: main\n      ref: values\n';
    repo.write('apps/web/application.yaml', repoApp('web', '    path: apps/web/chart').replace(/  source:\n(?:    .*\n)+/, sources));
    repo.write('apps/web/chart/.argocd-source-web.yaml', 'helm:\n  valueFiles:\n    - $values/apps/web/missing.yaml\n');
    expect(await checkFindings('argocd-source-path', { root: repo.root, env: process.env })).toEqual([
      expect.stringMatching(/^apps\/web\/chart\/\.argocd-source-web\.yaml:3 /),
    ]);
  });
});

describe('a Namespace the app renders itself', () => {
  it('makes Argo CD create none: its managedNamespaceMetadata is never written, and the app is no second owner of the Namespace', async () => {
    const repo = fixtureRepo();
    repo.write('apps/web/chart/Chart.yaml', 'apiVersion: v2\nname: web\nversion: 1.0.0\n');
    repo.write('apps/web/chart/templates/namespace.yaml', 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: demo\n');
    repo.write(
      'apps/web/application.yaml',
      repoApp(
        'web',
        '    path: apps/web/chart',
        '  syncPolicy:\n    syncOptions: [CreateNamespace=true]\n    managedNamespaceMetadata:\n      labels:\n        team: web\n',
      ),
    );
    const at = { root: repo.root, env: process.env };
    expect(await checkFindings('argocd-managed-namespace', at)).toEqual([
      expect.stringMatching(
        /^apps\/web\/application\.yaml:\d+ Application web: managedNamespaceMetadata is never written: its own manifests hold Namespace demo \(rendered from chart at apps\/web\/chart, web\/templates\/namespace\.yaml\)/,
      ),
    ]);
    expect(await checkFindings('argocd-will-sync', at)).toEqual([]);
  });
});
