/**
 * The render tier against a chart repository on 127.0.0.1, with the real Helm 4: Argo CD's flags and files, CRDs
 * that one app renders and another uses, what reaches the two layers, and the render cache cold. The chart lock and
 * its pulls: chart-lock.test.ts; kustomize: render-kustomize.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { withRendered } from '../../model/argocd/rendered.ts';
import { renderRepo } from '../../render/render.ts';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import { chartApp, fixtureRepo, type FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { charts, demoRepo, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';

useRenderLab();

const lines: string[] = [];
const out = (line: string) => lines.push(line);

describe('a chart archive that holds a source parameter file', () => {
  it("is refused, not rendered: Argo CD's repo-server merges the file the chart's author wrote into the source as it renders the extracted chart", async () => {
    await charts.publish({
      name: 'planted',
      version: '1.0.0',
      values: { replicas: 1 },
      files: {
        'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: planted\ndata:\n  replicas: {{ .Values.replicas | quote }}\n',
        '.argocd-source.yaml': 'helm:\n  parameters:\n    - name: replicas\n      value: "9"\n',
      },
    });
    const repo = fixtureRepo();
    repo.write('apps/planted/application.yaml', chartApp('planted', { repoURL: charts.url, chart: 'planted', version: '1.0.0' }));
    expect(await pullCharts({ root: repo.root, env, updateLock: false, verifyIndex: true, out })).toBe(0);
    const [render] = (await rendered(repo)).renders;
    expect(render).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(
        /^chart archive planted 1\.0\.0 from .* holds \.argocd-source\.yaml beside its Chart\.yaml, which Argo CD's repo-server merges into the source of Application planted/,
      ),
    });
  });
});

describe('rendering as Argo CD 3 does', () => {
  let repo: FixtureRepo;
  beforeAll(async () => {
    repo = demoRepo();
    await pullCharts({ root: repo.root, env, updateLock: false, out });
  });

  it('honours $values files, --kube-version, lookup without a cluster, hooks, and CRDs another app renders', async () => {
    const result = await rendered(repo);
    const demo = result.renders.find((r) => r.app.name === 'demo')!;
    expect(demo.status, demo.message).toBe('rendered');
    const cm = demo.resources.find((r) => r.kind === 'ConfigMap')!;
    expect(cm.name).toBe('demo-greeting');
    expect(cm.namespace).toBe('demo');
    expect(cm.object.data).toEqual({ greeting: 'hello from values', kube: 'v1.36.3', modern: 'true', found: 'no' });
    expect(cm.rendered).toMatchObject({ app: 'demo', template: 'demo/templates/cm.yaml' });
    expect(demo.resources.find((r) => r.kind === 'Job')!.rendered!.hook).toBe(true);
    // The Widget exists only because the widgets app renders its CRD: the API versions grew, and demo rendered again.
    expect(demo.resources.find((r) => r.kind === 'Widget')?.object.spec).toEqual({ size: 3 });
    expect(result.apiVersions).toContain('example.com/v1/Widget');
    expect(result.apiVersions).toContain('apps/v1/Deployment');
  });

  it('renders for --kubernetes-version when the gate is given one, not only for the facts', async () => {
    const result = await runGate({ root: repo.root, cwd: repo.root, env, kubernetesVersion: parseKubernetesFlag('1.35.0') });
    const cm = result.resources.find((r) => r.kind === 'ConfigMap' && r.name === 'demo-greeting');
    expect(cm, 'the demo ConfigMap is judged').toBeDefined();
    const plain = await loadRepo(repo.root);
    const layer = await schemaLayer();
    const at135 = await renderRepo(plain, { builtinApiVersions: layer.builtinApiVersions(), env, kubernetesVersion: '1.35.0' });
    const demo = at135.renders.find((r) => r.app.name === 'demo')!;
    expect(demo.resources.find((r) => r.kind === 'ConfigMap')!.object.data).toMatchObject({ kube: 'v1.35.0' });
  });

  it('points a finding on a rendered value at the values file key that set it, else at the chart source', async () => {
    const plain = await loadRepo(repo.root);
    const result = await rendered(repo);
    const { repo: full } = withRendered(plain, result.renders);
    const cm = full.resources.find((r) => r.kind === 'ConfigMap' && r.name === 'demo-greeting')!;
    expect(cm.positions.at(['data', 'greeting'], 'value')).toEqual({ file: 'apps/demo/values.yaml', line: 1, col: 11 });
    // No values key set the version: the finding goes to the chart source in application.yaml.
    expect(cm.positions.at(['data', 'kube'], 'value')).toEqual({ line: 11, col: 14 });
  });

  it('validates a custom resource against the CRD another app renders, strictly', async () => {
    repo.write('apps/demo/values.yaml', 'greeting: hello from values\nwidgetSize: big\n');
    const findings = allFindings(await runGate({ root: repo.root, cwd: repo.root, env }));
    const schema = findings.filter((f) => f.check === 'schema');
    expect(schema.map((f) => `${f.file}:${f.line} ${f.message}`)).toEqual([
      expect.stringMatching(
        /^apps\/demo\/values\.yaml:2 example\.com\/v1\/Widget: \/spec\/size: must be integer \(rendered by demo from demo\/templates\/cm\.yaml\)$/,
      ),
    ]);
    repo.write('apps/demo/values.yaml', 'greeting: hello from values\nwidgetSize: 3\n');
  });

  it('sees randAlphaNum: two renders differ, naming the object and its template', async () => {
    repo.write('apps/demo/values.yaml', 'greeting: hello\nrandomPassword: true\n');
    const demo = (await rendered(repo)).renders.find((r) => r.app.name === 'demo')!;
    expect(demo.nondeterministic).toEqual([{ kind: 'Secret', name: 'demo-admin', template: 'demo/templates/secret.yaml' }]);
    repo.write('apps/demo/values.yaml', 'greeting: hello from values\nwidgetSize: 3\n');
  });

  it('fails a source whose values file is missing, and counts a chart that is not cached as not rendered', async () => {
    const broken = demoRepo({ valueFiles: ['$values/apps/demo/missing.yaml'] });
    await pullCharts({ root: broken.root, env, updateLock: false, out });
    const result = await rendered(broken);
    const demo = result.renders.find((r) => r.app.name === 'demo')!;
    expect(demo.status).toBe('failed');
    expect(demo.message).toMatch(/value file \$values\/apps\/demo\/missing\.yaml does not exist/);
    // Through the gate: a render finding at the chart source of the Application.
    const findings = allFindings(await runGate({ root: broken.root, cwd: broken.root, env })).filter((f) => f.check === 'render');
    expect(findings.map((f) => `${f.file}:${f.line}`)).toEqual(['apps/demo/application.yaml:11']);
    const empty = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const offline = await rendered(repo, { HOMELAB_CACHE_DIR: empty });
    expect(offline.renders.map((r) => [r.status, r.message])).toEqual([
      ['not-rendered', 'not in the chart cache: run npm run charts:pull'],
      ['not-rendered', 'not in the chart cache: run npm run charts:pull'],
    ]);
    rmSync(empty, { recursive: true, force: true });
  });

  it('renders with the files a values glob matches, later ones over earlier, and fails one that matches nothing, as Argo CD 3.5 does', async () => {
    // doublestar orders names by their bytes: `values-size.yaml` ('-') before `values.yaml` ('.'), which Helm reads last.
    const globbed = demoRepo({ valueFiles: ['$values/apps/demo/values*.yaml'] });
    globbed.write('apps/demo/values.yaml', 'greeting: hello from values\n');
    globbed.write('apps/demo/values-size.yaml', 'greeting: overridden\nwidgetSize: 9\n');
    await pullCharts({ root: globbed.root, env, updateLock: false, out });
    const demo = (await rendered(globbed)).renders.find((r) => r.app.name === 'demo')!;
    expect(demo.status).toBe('rendered');
    expect(demo.resources.find((r) => r.kind === 'ConfigMap')!.object.data).toMatchObject({ greeting: 'hello from values' });
    expect(demo.resources.find((r) => r.kind === 'Widget')!).toMatchObject({ object: { spec: { size: 9 } } });
    const none = demoRepo({ valueFiles: ['$values/apps/demo/env-*.yaml'] });
    await pullCharts({ root: none.root, env, updateLock: false, out });
    const failed = (await rendered(none)).renders.find((r) => r.app.name === 'demo')!;
    expect([failed.status, failed.message]).toEqual(['failed', 'values file glob "$values/apps/demo/env-*.yaml" matched no files']);
  });

  it('passes parameters, valuesObject and releaseName the way Argo CD does', async () => {
    const custom = demoRepo({
      releaseName: 'custom',
      valueFiles: ['$values/apps/demo/values.yaml'],
      valuesObject: { greeting: 'from valuesObject' },
      parameters: [{ name: 'widgetSize', value: '7' }],
    });
    await pullCharts({ root: custom.root, env, updateLock: false, out });
    const demo = (await rendered(custom)).renders.find((r) => r.app.name === 'demo')!;
    expect(demo.resources.find((r) => r.kind === 'ConfigMap')!.object.data).toMatchObject({ greeting: 'from valuesObject' });
    expect(demo.resources.find((r) => r.kind === 'Widget')!).toMatchObject({ name: 'custom-widget', object: { spec: { size: 7 } } });
  });

  it("substitutes Argo CD's build environment in a parameter's value, and leaves one that names the revision not rendered", async () => {
    const named = demoRepo({
      valueFiles: ['$values/apps/demo/values.yaml'],
      parameters: [{ name: 'greeting', value: 'from ${ARGOCD_APP_NAME} in $ARGOCD_APP_NAMESPACE for $$5' }],
    });
    await pullCharts({ root: named.root, env, updateLock: false, out });
    const demo = (await rendered(named)).renders.find((r) => r.app.name === 'demo')!;
    expect(demo.resources.find((r) => r.kind === 'ConfigMap')!.object.data).toMatchObject({ greeting: 'from demo in demo for $5' });
    const revision = demoRepo({ valueFiles: ['$values/apps/demo/values.yaml'], parameters: [{ name: 'greeting', value: '$ARGOCD_APP_REVISION_SHORT' }] });
    await pullCharts({ root: revision.root, env, updateLock: false, out });
    expect((await rendered(revision)).renders.find((r) => r.app.name === 'demo')).toMatchObject({
      status: 'not-rendered',
      message: expect.stringMatching(/helm parameter greeting names the revision Argo CD syncs, known only at sync time/),
    });
  });
});
