/**
 * A chart at a path whose dependencies are not vendored, rendered as Argo CD renders it with the real Helm: template,
 * and on Helm's missing-dependency error, `helm dependency build` then template again; built in a scratch copy, never
 * in the checkout; a `file://` dependency's files in the render's key; one outside the repository refused; one that
 * must be fetched and is not pulled not rendered (helm-fetched-dependencies.test.ts fetches them).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { unusedValues } from '../../model/helm/unused-values.ts';
import { chartScopeFromFolder } from '../../render/chart-files.ts';
import { extractedChart, loadedFiles } from '../../render/chart-extract.ts';
import { toolEnv } from '../../../test-support/chart-repo.ts';
import { output } from '../../../test-support/exec.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

let env: NodeJS.ProcessEnv;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'helm-deps-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
});

afterAll(() => rmSync(cache, { recursive: true, force: true }));

async function renderAll(repo: FixtureRepo) {
  const layer = await schemaLayer();
  const { renders } = await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env });
  return renders;
}

const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: ${value}\n`;

/** An umbrella chart at apps/demo/chart depending on `repository`, and a library chart at lib/common. */
function umbrella(repository: string): FixtureRepo {
  const repo = fixtureRepo();
  repo.write(
    'apps/demo/chart/Chart.yaml',
    `apiVersion: v2\nname: umbrella\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: 0.1.0\n    repository: ${repository}\n`,
  );
  repo.write('apps/demo/chart/templates/own.yaml', configMap('own', 'umbrella'));
  repo.write('lib/common/Chart.yaml', 'apiVersion: v2\nname: common\nversion: 0.1.0\n');
  repo.write('lib/common/templates/shared.yaml', configMap('shared', 'first'));
  repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo/chart'));
  return repo;
}

describe('a chart whose dependencies are built, as Argo CD builds them', () => {
  it('builds a file:// dependency of the repository in a scratch copy and renders the chart with it, the checkout untouched', async () => {
    const repo = umbrella('file://../../../lib/common');
    const [render] = await renderAll(repo);
    expect(render).toMatchObject({ status: 'rendered' });
    expect(render!.resources.map((r) => r.name).sort()).toEqual(['own', 'shared']);
    expect(existsSync(join(repo.root, 'apps/demo/chart/charts'))).toBe(false);
    expect(existsSync(join(repo.root, 'apps/demo/chart/Chart.lock'))).toBe(false);
    // The dependency's files are the render's key: a change there is rendered, not served from the cache.
    repo.write('lib/common/templates/shared.yaml', configMap('shared', 'second'));
    const [again] = await renderAll(repo);
    expect(again!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'second' });
  });

  it("reads the dependency's templates as the chart's: a random value there is printed twice and seen, and the API versions it reads key the render", async () => {
    const repo = umbrella('file://../../../lib/common');
    repo.write('lib/common/templates/shared.yaml', configMap('shared', '{{ randAlphaNum 12 | quote }}'));
    const [random] = await renderAll(repo);
    expect(random!.nondeterministic).toEqual([{ kind: 'ConfigMap', name: 'shared', template: 'umbrella/charts/common/templates/shared.yaml' }]);
    // The umbrella names no API version; its dependency does. A CRD arriving in the repository must render it again.
    repo.write('lib/common/templates/shared.yaml', configMap('shared', '{{ .Capabilities.APIVersions.Has "example.com/v1/Widget" | quote }}'));
    const [before] = await renderAll(repo);
    expect(before!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'false' });
    repo.write(
      'apps/widgets/crd.yaml',
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}\n  scope: Namespaced\n  versions:\n    - name: v1\n      served: true\n      storage: true\n      schema: {openAPIV3Schema: {type: object}}\n',
    );
    const [after] = await renderAll(repo);
    expect(after!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'true' });
  });

  it.each([
    ['a file:// dependency', 'file://../../../lib/common', false],
    ['a vendored dependency (a packed subchart in charts/)', 'https://charts.example.invalid', true],
  ] as const)(
    "reads %s as the chart's subchart: values under its key reach it, a typo there is named, its templates count for the prints",
    async (_, repository, vendored) => {
      const repo = umbrella(repository);
      repo.write('lib/common/values.yaml', 'value: first\n');
      repo.write('lib/common/templates/shared.yaml', configMap('shared', '{{ .Values.value | quote }}'));
      if (vendored)
        await output(env.HELM_BIN!, ['package', join(repo.root, 'lib/common'), '--destination', join(repo.root, 'apps/demo/chart/charts')], { env });
      repo.write(
        'apps/demo/application.yaml',
        repoApp('demo', '    path: apps/demo/chart\n    helm:\n      valuesObject:\n        common:\n          value: second'),
      );
      const [render] = await renderAll(repo);
      expect(render!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'second' });
      expect(unusedValues({ common: { value: 'second' } }, render!.chart!)).toEqual([]);
      expect(unusedValues({ common: { valeu: 'second' } }, render!.chart!)).toEqual([{ path: ['common', 'valeu'], near: 'value' }]);
      // Nothing in it can print differently: one print, as for a chart without subcharts.
      expect(render!.chart).toMatchObject({ repeatable: true, readsApiVersions: false });
    },
  );

  it('reads a packed subchart inside a chart archive too, and hands on unread one that is not a whole archive', async () => {
    const repo = umbrella('https://charts.example.invalid');
    repo.write('lib/common/values.yaml', 'value: first\n');
    const vendored = join(repo.root, 'apps/demo/chart/charts');
    await output(env.HELM_BIN!, ['package', join(repo.root, 'lib/common'), '--destination', vendored], { env });
    await output(env.HELM_BIN!, ['package', join(repo.root, 'apps/demo/chart'), '--destination', repo.root], { env });
    // Extracted as Argo CD extracts it, and read as Helm loads the folder: the packed subchart in it read in.
    const extracted = await extractedChart(
      { ...process.env, HOMELAB_CACHE_DIR: join(repo.root, '.cache') },
      { archive: join(repo.root, 'umbrella-1.0.0.tgz'), digest: 'sha256:umbrella' },
      { unpackedLimit: Infinity },
    );
    const archived = await chartScopeFromFolder(loadedFiles(join(extracted, 'umbrella')));
    expect(archived.subcharts.get('common')).toMatchObject({ name: 'common', defaults: { value: 'first' } });
    expect(archived).toMatchObject({ repeatable: true, readsApiVersions: false });
    // A torn archive: Helm cannot load it, and the gate reads nothing into it, so it counts as unread.
    const torn = join(vendored, 'common-0.1.0.tgz');
    writeFileSync(torn, readFileSync(torn).subarray(0, 200));
    const folder = await chartScopeFromFolder([
      ['Chart.yaml', join(repo.root, 'apps/demo/chart/Chart.yaml')],
      ['charts/common-0.1.0.tgz', torn],
    ]);
    expect(folder.subcharts.size).toBe(0);
    expect(folder).toMatchObject({ repeatable: false, readsApiVersions: true });
    // A subchart whose name starts with `_` or `.` is one Helm's loader passes over: values under its key reach nothing.
    repo.write('apps/demo/chart/charts/_draft/Chart.yaml', 'apiVersion: v2\nname: draft\nversion: 0.1.0\n');
    repo.write('apps/demo/chart/charts/_draft/values.yaml', 'enabled: true\n');
    // Nor are its templates loaded: nothing there can print differently or see the API versions.
    repo.write('apps/demo/chart/charts/_draft/templates/x.yaml', '{{ randAlphaNum 8 }} {{ .Capabilities.APIVersions }}\n');
    const skipped = await chartScopeFromFolder([
      ['Chart.yaml', join(repo.root, 'apps/demo/chart/Chart.yaml')],
      ['charts/_draft/Chart.yaml', join(repo.root, 'apps/demo/chart/charts/_draft/Chart.yaml')],
      ['charts/_draft/values.yaml', join(repo.root, 'apps/demo/chart/charts/_draft/values.yaml')],
      ['charts/_draft/templates/x.yaml', join(repo.root, 'apps/demo/chart/charts/_draft/templates/x.yaml')],
      ['charts/.old-0.1.0.tgz', torn],
    ]);
    expect([...skipped.subcharts.keys()]).toEqual([]);
    expect(unusedValues({ draft: { enabled: false } }, skipped)).toEqual([{ path: ['draft'] }]);
    expect(skipped).toMatchObject({ repeatable: true, readsApiVersions: false });
  });

  it.each([
    ['by its path', 'templates/extra.yaml'],
    ['by its base name', 'extra.yaml'],
    ['by its folder', 'templates/optional/'],
  ])("reads no template the chart's .helmignore names (%s), in the chart or its file:// dependency, as Helm's loader does", async (_, rule) => {
    const repo = umbrella('file://../../../lib/common');
    const extra = configMap('extra', '{{ .Values.extra | default (randAlphaNum 8) | quote }}');
    const where = rule.endsWith('/') ? 'templates/optional/extra.yaml' : 'templates/extra.yaml';
    repo.write(`apps/demo/chart/${where}`, extra);
    repo.write(`lib/common/${where}`, extra.replace('.Values.extra', '.Values.also'));
    repo.write('apps/demo/chart/.helmignore', `# drafts\n${rule}\n`);
    repo.write('lib/common/.helmignore', `${rule}\n`);
    repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo/chart'));
    const [render] = await renderAll(repo);
    // Helm renders neither: a value only they read reaches nothing, and nothing in what it loads prints differently.
    expect(render!.resources.map((r) => r.name).sort()).toEqual(['own', 'shared']);
    expect(unusedValues({ extra: 'x', common: { also: 'y' } }, render!.chart!)).toEqual([{ path: ['extra'] }, { path: ['common', 'also'] }]);
    expect(render!.chart).toMatchObject({ repeatable: true });
  });

  it('refuses a file:// dependency outside the repository: the gate reads nothing there', async () => {
    const repo = umbrella('file://../../../../../../../../../../tmp');
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/builds its dependency common from file:.*outside the repository/),
    });
  });

  it("refuses a dependency that names the repository's root, which would package the whole checkout", async () => {
    const repo = umbrella('file://../../..');
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/builds its dependency common from the repository's root/),
    });
  });

  it('is not rendered where the build would fetch a dependency from a chart repository that charts:pull has not pulled, and says to', async () => {
    const repo = umbrella('https://charts.example.invalid');
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'not-rendered',
      message:
        'the chart at apps/demo/chart fetches its dependency common 0.1.0 from https://charts.example.invalid, not in the chart cache: run npm run charts:pull',
    });
  });
});
