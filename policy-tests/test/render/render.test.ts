/**
 * The render tier against a chart repository on 127.0.0.1, with the real
 * Helm 4 and kustomize: pulls, the lock, --mirror, Argo CD's flags, CRDs
 * that one app renders and another uses, and what reaches the two layers.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { c as createTar } from 'tar';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allFindings, runGate } from '../../gate/gate.ts';
import { parseKubernetesFlag } from '../../gate/cli.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { withRendered } from '../../model/argocd/rendered.ts';
import { cachedChartPath, digestOf, formatLock, readLock } from '../../render/charts.ts';
import { calledFunctions, mayPrintDifferently, mayReadApiVersions } from '../../render/chart-traits.ts';
import { unpackedFolder, UNPACKING_RULES } from '../../render/chart-extract.ts';
import { renderRepo } from '../../render/render.ts';
import { main as pullMain, pullCharts } from '../../../scripts/charts-pull.ts';
import { pullArgs } from '../../render/chart-pull.ts';
import { startChartRepo, toolEnv, type ChartRepo } from '../../../test-support/chart-repo.ts';
import { chartApp, DEMO_CHART, fixtureRepo, WIDGETS_CHART, type FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';

let env: NodeJS.ProcessEnv;
let charts: ChartRepo;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
  charts = await startChartRepo(env);
  await charts.publish(DEMO_CHART);
  await charts.publish(WIDGETS_CHART);
});

afterAll(async () => {
  await charts?.close();
  if (cache) rmSync(cache, { recursive: true, force: true });
});

function demoRepo(helm: Record<string, unknown> = { valueFiles: ['$values/apps/demo/values.yaml'] }): FixtureRepo {
  const repo = fixtureRepo();
  repo.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '1.0.0' }, helm));
  repo.write('apps/demo/values.yaml', 'greeting: hello from values\nwidgetSize: 3\n');
  repo.write('apps/widgets/application.yaml', chartApp('widgets', { repoURL: charts.url, chart: 'widgets', version: '2.0.0' }, {}, 'widgets'));
  return repo;
}

const lines: string[] = [];
const out = (line: string) => lines.push(line);

async function rendered(repo: FixtureRepo, extraEnv: NodeJS.ProcessEnv = {}) {
  const plain = await loadRepo(repo.root);
  const layer = await schemaLayer();
  return renderRepo(plain, { builtinApiVersions: layer.builtinApiVersions(), env: { ...env, ...extraEnv } });
}

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

describe('charts:pull and the lock', () => {
  it('--frozen refuses a chart the lock does not record and never writes the lock, as CI runs it', async () => {
    const repo = demoRepo();
    const frozenCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, frozen: true, out })).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(/^REFUSED  demo 1\.0\.0 from .*: not in charts\.lock\.json, and --frozen records nothing/),
      expect.stringMatching(/^REFUSED  widgets 2\.0\.0/),
    ]);
    expect(readLock(repo.root).charts).toEqual([]);
    // Once a person has locked them, --frozen pulls them, checked against the lock.
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, out })).toBe(0);
    // Each chart held to the lock is extracted beside the archives, as the render tier renders it (chart-extract.ts).
    const locked = readLock(repo.root).charts;
    expect(locked).toHaveLength(2);
    const extractions = join(frozenCache, 'charts', '.extracted', UNPACKING_RULES.argocd);
    expect(readdirSync(extractions).sort()).toEqual(locked.map((c) => c.digest.replace(/^sha256:/, '')).sort());
    for (const c of locked) expect(existsSync(join(extractions, c.digest.replace(/^sha256:/, ''), c.chart, 'Chart.yaml'))).toBe(true);
    rmSync(join(frozenCache, 'charts'), { recursive: true, force: true });
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, frozen: true, out })).toBe(0);
    rmSync(frozenCache, { recursive: true, force: true });
  });

  it('--verify-index records a version the lock lacks only when its archive is the digest its repository publishes, and refuses other bytes', async () => {
    const repo = demoRepo();
    const cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    try {
      lines.length = 0;
      expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, verifyIndex: true, out })).toBe(0);
      expect(lines).toEqual([expect.stringMatching(/^verified demo 1\.0\.0 from .* sha256:/), expect.stringMatching(/^verified widgets 2\.0\.0/)]);
      expect(readLock(repo.root).charts.map((c) => c.chart)).toEqual(['demo', 'widgets']);
      // The same version served with other bytes than its index publishes (a compromised host): refused, never recorded.
      const tampered = fixtureRepo();
      tampered.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '1.0.0' }, {}));
      const archive = join(charts.dir, 'demo-1.0.0.tgz');
      const genuine = readFileSync(archive);
      writeFileSync(archive, readFileSync(join(charts.dir, 'widgets-2.0.0.tgz')));
      const fresh = mkdtempSync(join(tmpdir(), 'render-cache-'));
      try {
        lines.length = 0;
        expect(await pullCharts({ root: tampered.root, env: { ...env, HOMELAB_CACHE_DIR: fresh }, updateLock: false, verifyIndex: true, out })).toBe(1);
        expect(lines).toEqual([
          expect.stringMatching(
            /^REFUSED  demo 1\.0\.0 from .*: its archive has digest sha256:\w+, but its repository's index\.yaml publishes sha256:\w+: the bytes served are not the ones published$/,
          ),
        ]);
        expect(readLock(tampered.root).charts).toEqual([]);
      } finally {
        writeFileSync(archive, genuine);
        rmSync(fresh, { recursive: true, force: true });
      }
      // A version its repository does not list is refused too, in one line.
      const unknown = fixtureRepo();
      unknown.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '9.9.9' }, {}));
      lines.length = 0;
      expect(await pullCharts({ root: unknown.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, verifyIndex: true, out })).toBe(1);
      expect(lines).toEqual([expect.stringMatching(/^(?:FAILED|REFUSED) +demo 9\.9\.9 .*not found/)]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('names a pending chart in one line under --frozen, and a pull with network records its digest and drops the pending line', async () => {
    const repo = demoRepo();
    const cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const demo = { repoURL: charts.url, chart: 'demo', version: '1.0.0' };
    repo.write('charts.lock.json', formatLock({ charts: [], pending: [{ ...demo, reason: 'its index was not readable offline' }] }));
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, frozen: true, out })).toBe(2);
    expect(lines[0]).toMatch(
      /^PENDING  demo 1\.0\.0 from .*: charts\.lock\.json has no digest for it yet \(its index was not readable offline\); a person with network runs npm run charts:pull -- --update-lock/,
    );
    expect(readLock(repo.root).pending).toHaveLength(1);
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: true, out })).toBe(0);
    const lock = readLock(repo.root);
    expect(lock.pending).toBeUndefined();
    expect(lock.charts.map((c) => c.chart)).toEqual(['demo', 'widgets']);
    rmSync(cache, { recursive: true, force: true });
  });

  it('records each digest on first pull, keeps cached charts, refuses a changed archive, and re-records with --update-lock', async () => {
    const repo = demoRepo();
    expect(await pullCharts({ root: repo.root, env, updateLock: false, out })).toBe(0);
    const lock = readLock(repo.root);
    expect(lock.charts.map((c) => `${c.chart}@${c.version}`)).toEqual(['demo@1.0.0', 'widgets@2.0.0']);
    expect(lock.charts[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env, updateLock: false, out })).toBe(0);
    expect(lines.every((l) => l.startsWith('cached'))).toBe(true);

    // The same version published again with other content: refused, and the cache keeps the locked archive.
    const otherCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    await charts.publish({ ...WIDGETS_CHART, values: { changed: true } });
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: otherCache }, updateLock: false, out })).toBe(1);
    expect(lines.find((l) => l.startsWith('REFUSED'))).toMatch(
      /widgets 2\.0\.0 .* its archive has digest sha256:\w+, but charts\.lock\.json records sha256:\w+/,
    );
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: otherCache }, updateLock: true, out })).toBe(0);
    expect(readLock(repo.root).charts[1]!.digest).not.toBe(lock.charts[1]!.digest);
    await charts.publish(WIDGETS_CHART);
    rmSync(otherCache, { recursive: true, force: true });
  });

  it('--mirror pulls every chart by name and version from one repository when the repoURLs cannot be reached', async () => {
    const repo = fixtureRepo();
    // Port 9 (discard) on loopback: nothing listens, so only the mirror can serve the chart.
    repo.write('apps/demo/application.yaml', chartApp('demo', { repoURL: 'http://127.0.0.1:9/charts', chart: 'demo', version: '1.0.0' }));
    const mirrorCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const mirrorEnv = { ...env, HOMELAB_CACHE_DIR: mirrorCache };
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: mirrorEnv, updateLock: false, out })).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^FAILED   demo 1\.0\.0 from http:\/\/127\.0\.0\.1:9\/charts: helm pull: Error: .*connection refused/)]);
    expect(await pullCharts({ root: repo.root, env: mirrorEnv, mirror: charts.url, updateLock: false, out })).toBe(0);
    expect(readLock(repo.root).charts).toEqual([expect.objectContaining({ repoURL: 'http://127.0.0.1:9/charts', chart: 'demo', version: '1.0.0' })]);
    const result = await rendered(repo, { HOMELAB_CACHE_DIR: mirrorCache });
    expect(result.renders.map((r) => r.status)).toEqual(['rendered']);
    rmSync(mirrorCache, { recursive: true, force: true });
  });
});

describe('npm run charts:pull', () => {
  it('--help exits 0, a wrong flag exits 2 in one line', async () => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    expect(await pullMain(['--help'], env, io)).toBe(0);
    expect(stdout).toMatch(/^usage: charts:pull \[--mirror URL\] \[--update-lock \| --frozen \| --verify-index\]/);
    expect(await pullMain(['--mirrors', 'x'], env, io)).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^charts:pull: Unknown option '--mirrors'/)]);
    stderr = '';
    expect(await pullMain(['--frozen', '--verify-index'], env, io)).toBe(2);
    expect(stderr).toMatch(/^charts:pull: --frozen and --verify-index contradict each other \(usage: [^\n]*\)\n$/);
  });
});

describe('pull arguments', () => {
  const ref = { repoURL: 'https://charts.example.org/stable', chart: 'demo', version: '1.0.0' };
  it('pulls from a chart repository over HTTP by name, and from an OCI registry by reference', () => {
    expect(pullArgs(ref, '/tmp/d')).toEqual(['pull', 'demo', '--repo', 'https://charts.example.org/stable', '--version', '1.0.0', '--destination', '/tmp/d']);
    expect(pullArgs({ ...ref, repoURL: 'oci://ghcr.io/example/charts' }, '/tmp/d')).toEqual([
      'pull',
      'oci://ghcr.io/example/charts/demo',
      '--version',
      '1.0.0',
      '--destination',
      '/tmp/d',
    ]);
    // Argo CD also names an OCI repository without its scheme.
    expect(pullArgs({ ...ref, repoURL: 'ghcr.io/example/charts' }, '/tmp/d')[1]).toBe('oci://ghcr.io/example/charts/demo');
    expect(pullArgs(ref, '/tmp/d', 'oci://mirror.lan/charts/')[1]).toBe('oci://mirror.lan/charts/demo');
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

/**
 * The real tool behind a script that notes each call's arguments, each call in a file of its own (the render tools'
 * environment is hermetic: the paths are written into the script). One shared file lost calls under load: a line of
 * a hundred --api-versions is more than one write, and two renders side by side interleaved theirs.
 */
function countingTool(dir: string, name: string, real: string): { bin: string; calls(): string[][] } {
  const prefix = `${name}.call.`;
  const bin = join(dir, name);
  writeFileSync(bin, `#!/bin/bash\n(IFS=$'\\t'; echo "$*") > ${join(dir, prefix)}$$-$RANDOM$RANDOM\nexec ${real} "$@"\n`, { mode: 0o755 });
  return {
    bin,
    calls: () =>
      readdirSync(dir)
        .filter((file) => file.startsWith(prefix))
        .map((file) => readFileSync(join(dir, file), 'utf8').trim().split('\t')),
  };
}

describe('a cold render cache', () => {
  const PROBE_CHART = {
    name: 'probe',
    version: '1.0.0',
    files: {
      // Reads the API versions, but only for an API nothing here adds: the same output in every pass.
      'templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
data:
  nope: {{ .Capabilities.APIVersions.Has "nothing.example.com/v1/Nope" | quote }}
`,
    },
  };
  const TPL_CHART = {
    name: 'tpl',
    version: '1.0.0',
    values: { text: 'plain' },
    // Never names the capabilities itself: whatever a values string hands to tpl does.
    files: {
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  text: {{ tpl .Values.text . | quote }}\n',
    },
  };

  it('renders each source twice when its output did not change, a source that changed three times, never four, and one that cannot print differently once a pass; the determinism check is paid by the pass that settles; Helm is asked its version once', async () => {
    await charts.publish(PROBE_CHART);
    await charts.publish(TPL_CHART);
    const repo = demoRepo();
    const widget = '{{ .Capabilities.APIVersions.Has "example.com/v1/Widget" }}';
    repo.write('apps/probe/application.yaml', chartApp('probe', { repoURL: charts.url, chart: 'probe', version: '1.0.0' }));
    repo.write('apps/tpl-plain/application.yaml', chartApp('tpl-plain', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }));
    repo.write(
      'apps/tpl-widget/application.yaml',
      chartApp('tpl-widget', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }, { valuesObject: { text: widget } }),
    );
    // The attack: a values-only change whose tpl-rendered text reaches the API versions without naming them.
    const split = '{{ toYaml (index . (print "Capa" "bilities")) | contains (print "example.com/v1/" "Widget") }}';
    repo.write(
      'apps/tpl-split/application.yaml',
      chartApp('tpl-split', { repoURL: charts.url, chart: 'tpl', version: '1.0.0' }, { valuesObject: { text: split } }),
    );
    const cold = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const helm = countingTool(cold, 'helm', env.HELM_BIN!);
    const coldEnv = { HOMELAB_CACHE_DIR: cold, HELM_BIN: helm.bin };
    await pullCharts({ root: repo.root, env: { ...env, ...coldEnv }, updateLock: false, out });
    const result = await rendered(repo, coldEnv);
    const counts = Object.fromEntries(['demo', 'widgets', 'probe', 'tpl-plain', 'tpl-widget', 'tpl-split'].map((n) => [n, 0]));
    for (const args of helm.calls()) if (args[0] === 'template') counts[args[args.indexOf('--name-template') + 1]!]!++;
    // Pass one renders each once, deferring the determinism check. The widgets CRD grows the API versions, so pass two
    // renders again whatever reads them: tpl-plain prints the same text (two prints alike: checked), demo, tpl-widget
    // and tpl-split print a Widget now, so the settling pass prints them a third time to check them. A chart that uses
    // tpl counts as reading them: tpl-split reaches them without naming them. Probe and widgets call nothing random,
    // nothing of the clock and no tpl: one print each is checked, so widgets (which cannot read the API versions: its
    // key is the same in pass two) prints once, and probe once a pass, as its key grows with the API versions.
    expect(counts).toEqual({ demo: 3, widgets: 1, probe: 2, 'tpl-plain': 2, 'tpl-widget': 3, 'tpl-split': 3 });
    const text = (app: string) => result.renders.find((r) => r.app.name === app)!.resources[0]!.object.data;
    expect([text('tpl-widget'), text('tpl-split'), text('tpl-plain'), text('probe')]).toEqual([
      { text: 'true' },
      { text: 'true' },
      { text: 'plain' },
      { nope: 'false' },
    ]);
    expect(result.renders.every((r) => r.nondeterministic.length === 0)).toBe(true);
    // The same repository in another folder (a diff's base worktree is a new one each run) starts from the API
    // versions this run settled at: every render is a cache hit, and Helm renders nothing.
    const templates = () => helm.calls().filter((args) => args[0] === 'template').length;
    const printed = templates();
    const worktree = mkdtempSync(join(tmpdir(), 'render-worktree-'));
    cpSync(repo.root, worktree, { recursive: true });
    await rendered({ ...repo, root: worktree }, coldEnv);
    expect(templates()).toBe(printed);
    rmSync(worktree, { recursive: true, force: true });
    // A second cache in the same process: the binary is not asked its version again.
    const other = mkdtempSync(join(tmpdir(), 'render-cache-'));
    await rendered(repo, { ...coldEnv, HOMELAB_CACHE_DIR: other, HOMELAB_CHART_CACHE: join(cold, 'charts') });
    expect(helm.calls().filter((args) => args[0] === 'version')).toHaveLength(1);
    rmSync(other, { recursive: true, force: true });
    rmSync(cold, { recursive: true, force: true });
  });

  it('tells the files that can read the API versions from those that cannot', () => {
    const reads = [
      '{{ .Capabilities.APIVersions.Has "x/v1" }}',
      '{{ toYaml .Capabilities }}',
      '{{ include "h" (dict "caps" $.Capabilities) }}',
      '{{ index . "Capabilities" }}',
    ];
    // tpl renders a values string with the chart's whole context: a chart that uses it can reach the API versions.
    expect(mayReadApiVersions('templates/cm.yaml', 'text: {{ tpl .Values.text . | quote }}')).toBe(true);
    const cannot = [
      '{{ .Capabilities.KubeVersion.Version }}',
      '{{ .Capabilities.HelmVersion.Version }}',
      'allowedCapabilities: []',
      'capabilities:\n  add: [NET_ADMIN]',
    ];
    expect(reads.map((text) => mayReadApiVersions('templates/x.yaml', text))).toEqual(reads.map(() => true));
    expect(cannot.map((text) => mayReadApiVersions('templates/x.yaml', text))).toEqual(cannot.map(() => false));
    // A packed subchart that reaches here was not read in (chart-files.ts reads a whole one): it counts as reading them.
    expect(mayReadApiVersions('charts/sub-1.0.0.tgz', '')).toBe(true);
  });

  it('tells the templates that may print differently from the same inputs from those that cannot, by the functions they call', () => {
    // Calls are the bare names of an action, outside strings and comments; fields and variables are not calls.
    expect([
      ...calledFunctions(
        '{{- /* randAlphaNum in a comment */ -}}\nname: {{ include "x.now" . | quote }}\n{{ $keys := .Values.keys }}{{ .Values.now }}{{ `{{ uuidv4 }}` }}\nnow and keys as text',
      ),
    ]).toEqual(['include', 'quote']);
    expect([...calledFunctions('{{ print "}}" | randAlphaNum }}{{if (keys .)}}{{end}}')].sort()).toEqual(['end', 'if', 'keys', 'print', 'randAlphaNum']);
    const differ = [
      'password: {{ randAlphaNum 16 | b64enc }}',
      'at: {{ now | date "2006" }}',
      'at: {{ date "2006-01-02" .Values.when }}',
      'first: {{ first (keys .Values.m) }}',
      '{{ $ca := genCA "x" 365 }}',
      'text: {{ tpl .Values.text . }}',
      'auth: {{ htpasswd "u" "p" }}',
      'data: {{ (.Files.Glob "files/**").AsConfig | nindent 2 }}',
    ];
    expect(differ.map((text) => mayPrintDifferently('templates/x.yaml', text))).toEqual(differ.map(() => true));
    // The same texts are data outside templates/ (a file only a tpl call would run), and a subchart's templates count.
    expect(differ.map((text) => mayPrintDifferently('files/x.yaml', text))).toEqual(differ.map(() => false));
    expect(mayPrintDifferently('charts/sub/templates/x.yaml', differ[0]!)).toBe(true);
    expect(mayPrintDifferently('templates/x.yaml', 'names: {{ keys .Values.m | sortAlpha | join "," }}')).toBe(true);
    expect(mayPrintDifferently('templates/x.yaml', 'data: {{ toYaml .Values.m | nindent 2 }}{{ lookup "v1" "Secret" "a" "b" }}')).toBe(false);
    expect(mayPrintDifferently('charts/sub-1.0.0.tgz', '')).toBe(true);
  });
});

describe('kustomize', () => {
  it('renders a kustomization with a component and a patch, with the real kustomize', async () => {
    const repo = fixtureRepo();
    repo.write('apps/components/backup/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cronjob.yaml\n');
    repo.write(
      'apps/components/backup/cronjob.yaml',
      `apiVersion: batch/v1
kind: CronJob
metadata:
  name: backup
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
            - name: backup
              image: busybox:1.37
`,
    );
    repo.write(
      'apps/sonarr/kustomization.yaml',
      `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: media
resources:
  - configmap.yaml
components:
  - ../components/backup
patches:
  - target: { kind: CronJob, name: backup }
    patch: |-
      - op: replace
        path: /metadata/name
        value: sonarr-backup
      - op: replace
        path: /spec/schedule
        value: "15 3 * * *"
`,
    );
    repo.write('apps/sonarr/configmap.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sonarr-settings\ndata:\n  a: "1"\n');
    repo.write(
      'apps/sonarr/application.yaml',
      `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: sonarr
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/example/lab.git
    targetRevision: main
    path: apps/sonarr
  destination:
    server: https://kubernetes.default.svc
    namespace: media
`,
    );
    const plain = await loadRepo(repo.root);
    const cold = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const kubectl = countingTool(cold, 'kubectl', env.KUSTOMIZE_BIN!);
    const result = await rendered(repo, { HOMELAB_CACHE_DIR: cold, KUSTOMIZE_BIN: kubectl.bin });
    const sonarr = result.renders[0]!;
    expect(sonarr.status, sonarr.message).toBe('rendered');
    // Local files only, no Helm, no plugins: its output is a function of its key, so the determinism check renders it once.
    expect(kubectl.calls().filter((args) => args[0] === 'kustomize')).toHaveLength(1);
    rmSync(cold, { recursive: true, force: true });
    expect(sonarr.consumedFiles).toEqual([
      'apps/components/backup/cronjob.yaml',
      'apps/components/backup/kustomization.yaml',
      'apps/sonarr/configmap.yaml',
      'apps/sonarr/kustomization.yaml',
    ]);
    const { repo: full } = withRendered(plain, result.renders);
    const cron = full.resources.find((r) => r.kind === 'CronJob')!;
    expect(cron).toMatchObject({ name: 'sonarr-backup', namespace: 'media', object: { spec: { schedule: '15 3 * * *' } } });
    // The ConfigMap kustomize passed through keeps its own file and positions; the template it renamed is gone.
    const cm = full.resources.find((r) => r.kind === 'ConfigMap' && r.name === 'sonarr-settings')!;
    expect(cm).toMatchObject({ file: 'apps/sonarr/configmap.yaml', namespace: 'media' });
    expect(cm.rendered).toBeUndefined();
    expect(full.resources.filter((r) => r.name === 'backup')).toEqual([]);
  });
});

describe("an Application's kustomize options, as Argo CD applies them", () => {
  const app = (kustomize: string) => `apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: web
  namespace: argocd
spec:
  project: default
  source:
    repoURL: https://github.com/example/lab.git
    targetRevision: main
    path: apps/web
    kustomize:
${kustomize}
  destination:
    server: https://kubernetes.default.svc
    namespace: web
`;
  /** argocd-cm's kustomize.buildOptions, as the repository's argocd-cm patch sets them for every build. */
  const withBuildOptions = (repo: FixtureRepo, options: string) =>
    repo.write(
      'apps/platform/argocd/patches/argocd-cm.yaml',
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: argocd-cm\n  namespace: argocd\ndata:\n  kustomize.buildOptions: ${options}\n`,
    );
  function webRepo(kustomize: string): FixtureRepo {
    const repo = fixtureRepo();
    repo.write(
      'apps/web/kustomization.yaml',
      'resources:\n  - deployment.yaml\nimages:\n  - name: ghcr.io/example/web\n    newTag: 1.0.0\ncommonLabels:\n  team: web\n',
    );
    repo.write(
      'apps/web/deployment.yaml',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n        - name: web\n          image: ghcr.io/example/web\n',
    );
    repo.write('apps/components/debug/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - cm.yaml\n');
    repo.write('apps/components/debug/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: debug\ndata:\n  level: trace\n');
    repo.write('apps/web/application.yaml', app(kustomize));
    return repo;
  }

  it('renders namePrefix, images, replicas, labels, annotations, namespace, patches and components into what the cluster gets', async () => {
    const repo = webRepo(
      [
        '      namePrefix: lab-',
        '      images: [ghcr.io/example/web=ghcr.io/example/web-hardened:2.0.0]',
        '      replicas: [{name: web, count: 3}]',
        '      commonLabels: {tier: front}',
        '      commonAnnotations: {owner: ops}',
        '      namespace: web-prod',
        '      components: [../components/debug]',
        '      patches:',
        '        - target: {kind: Deployment, name: web}',
        '          patch: |-',
        '            - op: add',
        '              path: /spec/template/spec/hostPID',
        '              value: true',
      ].join('\n'),
    );
    const result = await rendered(repo);
    const web = result.renders[0]!;
    expect(web.status, web.message).toBe('rendered');
    const deployment = web.resources.find((r) => r.kind === 'Deployment')!;
    expect(deployment).toMatchObject({
      name: 'lab-web',
      namespace: 'web-prod',
      object: {
        metadata: { labels: { team: 'web', tier: 'front' }, annotations: { owner: 'ops' } },
        spec: { replicas: 3, template: { spec: { hostPID: true, containers: [{ image: 'ghcr.io/example/web-hardened:2.0.0' }] } } },
      },
    });
    expect(web.resources.find((r) => r.kind === 'ConfigMap')).toMatchObject({ name: 'lab-debug', namespace: 'web-prod' });
    // The hostPID the Application's patch adds is judged like any other: the gate sees it.
    const findings = allFindings(await runGate({ root: repo.root, cwd: repo.root, env }));
    expect(findings.map((f) => f.message).join('\n')).toMatch(/hostPID/);
  });

  it("substitutes Argo CD's build environment where its Build does: labels and images always, annotations only when asked", async () => {
    const result = await rendered(
      webRepo(
        [
          "      commonLabels: {owner: '${ARGOCD_APP_NAME}'}",
          "      commonAnnotations: {project: '$ARGOCD_APP_PROJECT_NAME', literal: '$ARGOCD_APP_NAME'}",
          "      images: ['ghcr.io/example/web=ghcr.io/example/${ARGOCD_APP_NAME}:2.0.0']",
        ].join('\n'),
      ),
    );
    const deployment = result.renders[0]!.resources.find((r) => r.kind === 'Deployment')!;
    expect(deployment.object).toMatchObject({
      metadata: { labels: { owner: 'web' }, annotations: { project: '$ARGOCD_APP_PROJECT_NAME', literal: '$ARGOCD_APP_NAME' } },
      spec: { template: { spec: { containers: [{ image: 'ghcr.io/example/web:2.0.0' }] } } },
    });
    const substituted = await rendered(webRepo("      commonAnnotations: {project: '$ARGOCD_APP_PROJECT_NAME'}\n      commonAnnotationsEnvsubst: true"));
    expect(substituted.renders[0]!.resources.find((r) => r.kind === 'Deployment')!.object).toMatchObject({ metadata: { annotations: { project: 'default' } } });
    const revision = await rendered(webRepo("      images: ['ghcr.io/example/web:$ARGOCD_APP_REVISION_SHORT_8']"));
    expect(revision.renders[0]).toMatchObject({ status: 'not-rendered', message: expect.stringMatching(/names the revision Argo CD syncs/) });
  });

  it("builds with argocd-cm's load restrictor, as Argo CD adds kustomize.buildOptions to every build", async () => {
    const outside = (repo: FixtureRepo) => {
      repo.write('apps/common/cm.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: common\ndata:\n  a: "1"\n');
      repo.write('apps/web/kustomization.yaml', 'resources:\n  - deployment.yaml\n  - ../common/cm.yaml\n');
      return repo;
    };
    const refused = await rendered(outside(webRepo('      namePrefix: lab-')));
    expect(refused.renders[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/is not in or below/) });
    const allowed = outside(webRepo('      namePrefix: lab-'));
    withBuildOptions(allowed, '--load-restrictor LoadRestrictionsNone --enable-helm');
    const built = await rendered(allowed);
    expect(built.renders[0]!.status, built.renders[0]!.message).toBe('rendered');
    expect(built.renders[0]!.resources.map((r) => r.name).sort()).toEqual(['lab-common', 'lab-web']);
  });

  it("inflates a kustomization's Helm charts under argocd-cm's --enable-helm, from the chart cache and the lock, and fails without it as kustomize does", async () => {
    const inflating = (repo: FixtureRepo) => {
      repo.write(
        'apps/web/kustomization.yaml',
        `resources: [deployment.yaml]\nhelmCharts:\n  - name: demo\n    repo: ${charts.url}\n    version: 1.0.0\n    releaseName: lab\n    namespace: web\n    valuesInline: {greeting: inflated}\n`,
      );
      return repo;
    };
    const refused = await rendered(inflating(webRepo('      namePrefix: lab-')));
    expect(refused.renders[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/does not pass --enable-helm: kustomize refuses the build \("must specify --enable-helm"\)/),
    });
    const enabled = inflating(webRepo('      namePrefix: lab-'));
    withBuildOptions(enabled, '--enable-helm');
    // Not pulled yet: not rendered, with the command that pulls it; charts:pull reads kustomize's charts too.
    const cold = mkdtempSync(join(tmpdir(), 'inflate-cache-'));
    try {
      expect((await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]).toMatchObject({
        status: 'not-rendered',
        message: expect.stringMatching(/not in the chart cache: run npm run charts:pull/),
      });
      expect(await pullCharts({ root: enabled.root, env: { ...env, HOMELAB_CACHE_DIR: cold }, updateLock: true, out })).toBe(0);
      // The pull expands it as kustomize's helm pull --untar would, so the first build finds it expanded.
      const { digest } = readLock(enabled.root).charts.find((c) => c.chart === 'demo')!;
      expect(existsSync(join(unpackedFolder({ HOMELAB_CACHE_DIR: cold }, digest, 'helm-pull'), 'demo/Chart.yaml'))).toBe(true);
      const built = (await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(built.status, built.message).toBe('rendered');
      // The chart's objects with the kustomization's values, the Application's prefix, the cluster's version for Helm.
      expect(built.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'inflated', kube: 'v1.36.3' } });
      expect(existsSync(join(enabled.root, 'apps/web/charts'))).toBe(false);
      // A values file beside the kustomization's folder (the load restrictor off) is copied into the build too.
      const besideFolder = inflating(webRepo('      namePrefix: lab-'));
      withBuildOptions(besideFolder, '--enable-helm --load-restrictor LoadRestrictionsNone');
      besideFolder.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
      besideFolder.write('apps/common-values.yaml', 'greeting: from a file\n');
      besideFolder.write(
        'apps/web/kustomization.yaml',
        readFileSync(join(besideFolder.root, 'apps/web/kustomization.yaml'), 'utf8').replace(
          '    valuesInline: {greeting: inflated}\n',
          '    valuesFile: ../common-values.yaml\n',
        ),
      );
      const fromFile = (await rendered(besideFolder, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(fromFile.status, fromFile.message).toBe('rendered');
      expect(fromFile.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'from a file' } });
      // The Application's own Kubernetes version and API versions for what it inflates (kustomize.kubeVersion,
      // kustomize.apiVersions: BuildOpts), the version parsed as the repo-server parses it; one it cannot parse fails the source.
      const versioned = inflating(webRepo('      namePrefix: lab-\n      kubeVersion: v1.31.2-gke.1\n      apiVersions: [example.com/v1]'));
      withBuildOptions(versioned, '--enable-helm');
      versioned.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
      const own = (await rendered(versioned, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
      expect(own.status, own.message).toBe('rendered');
      expect(own.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { kube: 'v1.31.2' } });
      versioned.write('apps/web/application.yaml', app('      kubeVersion: "1"'));
      expect((await rendered(versioned, { HOMELAB_CACHE_DIR: cold })).renders[0]).toMatchObject({
        status: 'failed',
        message: expect.stringContaining('could not parse kubernetes version 1: illegal version string "1"'),
      });
      // An archive that holds a link is expanded as kustomize's `helm pull --untar` expands it: the link an empty
      // file, nothing read through it (Helm's archive loader reads a link's own content, which is none).
      const ref = { repoURL: charts.url, chart: 'demo', version: '1.0.0' };
      const archive = cachedChartPath(ref, { ...env, HOMELAB_CACHE_DIR: cold });
      const original = readFileSync(archive);
      const evil = mkdtempSync(join(tmpdir(), 'linked-chart-'));
      try {
        mkdirSync(join(evil, 'demo/templates'), { recursive: true });
        writeFileSync(join(evil, 'demo/Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
        writeFileSync(join(evil, 'demo/values.yaml'), '{}\n');
        symlinkSync('/etc/hostname', join(evil, 'demo/templates/leak.yaml'));
        await createTar({ gzip: true, file: archive, cwd: evil }, ['demo']);
        const lock = readLock(enabled.root);
        enabled.write('charts.lock.json', formatLock({ ...lock, charts: lock.charts.map((c) => ({ ...c, digest: digestOf(readFileSync(archive)) })) }));
        const linked = (await rendered(enabled, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
        expect(linked.status, linked.message).toBe('rendered');
        // The kustomization's own Deployment, and nothing of the chart's link.
        expect(linked.resources.map((r) => `${r.kind}/${r.name}`)).toEqual(['Deployment/lab-web']);
        expect(JSON.stringify(linked.resources)).not.toContain(readFileSync('/etc/hostname', 'utf8').trim());
      } finally {
        writeFileSync(archive, original);
        enabled.write(
          'charts.lock.json',
          formatLock({ ...readLock(enabled.root), charts: readLock(enabled.root).charts.map((c) => ({ ...c, digest: digestOf(original) })) }),
        );
        rmSync(evil, { recursive: true, force: true });
      }
      // A chart home out of the repository is refused before anything is unpacked there.
      for (const home of ['../../../../escape', '/tmp/escape']) {
        const hostile = inflating(webRepo('      namePrefix: lab-'));
        withBuildOptions(hostile, '--enable-helm');
        hostile.write('charts.lock.json', readFileSync(join(enabled.root, 'charts.lock.json'), 'utf8'));
        hostile.write(
          'apps/web/kustomization.yaml',
          `${readFileSync(join(enabled.root, 'apps/web/kustomization.yaml'), 'utf8')}helmGlobals: {chartHome: ${home}}\n`,
        );
        const refused = (await rendered(hostile, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
        expect(refused, home).toMatchObject({ status: 'failed', message: expect.stringMatching(/leaves the repository/) });
        expect(existsSync(join(hostile.root, '..', 'escape')) || existsSync('/tmp/escape'), home).toBe(false);
      }
      // The lock holds the inflated chart as it holds an Application's; without its entry, chart-lock fails at the entry.
      const lockFindings = () => checkFindings('chart-lock', { root: enabled.root, env: { ...env, HOMELAB_CACHE_DIR: cold } });
      expect(await lockFindings()).toEqual([]);
      enabled.write('charts.lock.json', '{\n  "charts": []\n}\n');
      expect(await lockFindings()).toEqual([
        expect.stringMatching(
          /^apps\/web\/kustomization\.yaml:5 chart demo 1\.0\.0 from .*, which apps\/web\/kustomization\.yaml inflates, has no digest in charts\.lock\.json/,
        ),
      ]);
    } finally {
      rmSync(cold, { recursive: true, force: true });
    }
  });

  it('prints a kustomization once where no chart it inflates can print differently, and twice where one can', async () => {
    const vendoring = (template: string) => {
      const repo = webRepo('      namePrefix: lab-');
      withBuildOptions(repo, '--enable-helm');
      repo.write('apps/web/kustomization.yaml', 'resources: [deployment.yaml]\nhelmCharts:\n  - name: calm\n    version: 1.0.0\n    releaseName: lab\n');
      // With a version and no repository, kustomize reads the chart at <chartHome>/<name>, its values.yaml required.
      repo.write('apps/web/charts/calm/Chart.yaml', 'apiVersion: v2\nname: calm\nversion: 1.0.0\n');
      repo.write('apps/web/charts/calm/values.yaml', '{}\n');
      repo.write('apps/web/charts/calm/templates/cm.yaml', `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: calm\ndata:\n  value: ${template}\n`);
      return repo;
    };
    for (const [template, prints] of [
      ['{{ .Release.Name | quote }}', 1],
      ['{{ randAlphaNum 8 | quote }}', 2],
    ] as const) {
      const cold = mkdtempSync(join(tmpdir(), 'inflate-prints-'));
      try {
        const helm = countingTool(cold, 'helm', env.HELM_BIN!);
        const built = (await rendered(vendoring(template), { HOMELAB_CACHE_DIR: cold, HELM_BIN: helm.bin })).renders[0]!;
        expect(built.status, built.message).toBe('rendered');
        expect(
          helm.calls().filter((args) => args[0] === 'template'),
          template,
        ).toHaveLength(prints);
        expect(built.nondeterministic.length > 0, template).toBe(prints === 2);
      } finally {
        rmSync(cold, { recursive: true, force: true });
      }
    }
  });

  it('fails as Argo CD does on a label the kustomization already sets without force, and refuses a kustomize version it does not run', async () => {
    const clash = await rendered(webRepo('      commonLabels: {team: other}'));
    expect(clash.renders[0]).toMatchObject({ status: 'failed', message: expect.stringMatching(/label team already in kustomization file/) });
    const forced = await rendered(webRepo('      commonLabels: {team: other}\n      forceCommonLabels: true'));
    expect(forced.renders[0]!.resources.find((r) => r.kind === 'Deployment')!.object).toMatchObject({ metadata: { labels: { team: 'other' } } });
    const version = await rendered(webRepo('      version: v4.5.7'));
    expect(version.renders[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/kustomize\.version asks Argo CD for another kustomize binary/),
    });
  });
});
