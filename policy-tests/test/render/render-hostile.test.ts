/**
 * The render tier under a hostile pull request, with the real Helm and
 * kustomize: every file a kustomization can read is part of its render key;
 * paths and symlinks that leave the repository (or the chart) are refused as
 * Argo CD refuses them; a template loop is killed at the time limit; alias
 * bombs and oversized archives are refused in one line.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { kustomizeInputs } from '../../model/argocd/kustomize.ts';
import { cachedChartPath, CHART_LOCK_FILE, digestOf, formatLock } from '../../render/charts.ts';
import { renderToolEnv } from '../../render/context.ts';
import { extractedChart, loadedFiles, unpackedFolder, UNPACKING_RULES } from '../../render/chart-extract.ts';
import { renderRepo } from '../../render/render.ts';
import { splitRendered } from '../../render/output.ts';
import { toolEnv, writeChart } from '../../../test-support/chart-repo.ts';
import { output } from '../../../test-support/exec.ts';
import { create as tarCreate, Header } from 'tar';
import { fixtureRepo, REPO_URL, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

let env: NodeJS.ProcessEnv;
let cache: string;
let outsideDir: string;
const SECRET = 'PRIVATE-KEY-PLANTED-OUTSIDE-THE-CHECKOUT';

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'hostile-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
  outsideDir = mkdtempSync(join(tmpdir(), 'outside-'));
  writeFileSync(join(outsideDir, 'id_ed25519'), `${SECRET}\n`);
  writeFileSync(join(outsideDir, 'values.yaml'), `greeting: ${SECRET}\n`);
});

afterAll(() => {
  for (const dir of [cache, outsideDir]) if (dir) rmSync(dir, { recursive: true, force: true });
});

async function render(repo: FixtureRepo, extra: NodeJS.ProcessEnv = {}) {
  const layer = await schemaLayer();
  return renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env: { ...env, ...extra } });
}

const app = (name: string, source: string) => repoApp(name, source);

const CM_TEMPLATE = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: greeting\ndata:\n  greeting: {{ .Values.greeting | quote }}\n';

/** A repository with a chart at a path of its own (apps/demo/chart), rendered by an Application with these helm options. */
function localChartRepo(
  helm: string,
  files: Record<string, string> = { 'templates/cm.yaml': CM_TEMPLATE },
  values: Record<string, unknown> = { greeting: 'hi' },
): FixtureRepo {
  const repo = fixtureRepo();
  writeChart(join(repo.root, 'apps/demo'), { name: 'chart', version: '1.0.0', values, files });
  repo.write('apps/demo/application.yaml', app('demo', `    path: apps/demo/chart\n    helm:\n${helm}`));
  return repo;
}

describe('kustomize: every file the build reads is in its render key', () => {
  const RB =
    'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: reader\n  namespace: demo\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: placeholder\nsubjects:\n  - kind: ServiceAccount\n    name: app\n    namespace: demo\n';
  const SOURCE =
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: roles\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  reader: view\n  admin: cluster-admin\n';
  const replacement = (field: string) =>
    `- source: { kind: ConfigMap, name: roles, fieldPath: data.${field} }\n  targets:\n    - select: { kind: RoleBinding, name: reader }\n      fieldPaths: [roleRef.name]\n`;

  // One case per field that names a file: the kustomization, the file's first text, and its second.
  const cases: [string, string, Record<string, [string, string]>][] = [
    [
      'replacements[].path',
      'resources: [rb.yaml, source.yaml]\nreplacements:\n  - path: replacements.yaml\n',
      { 'apps/demo/replacements.yaml': [replacement('reader'), replacement('admin')] },
    ],
    [
      'transformers',
      'resources: [rb.yaml]\ntransformers: [labels.yaml]\n',
      {
        'apps/demo/labels.yaml': [
          'apiVersion: builtin\nkind: LabelTransformer\nmetadata: { name: team }\nlabels: { team: a }\nfieldSpecs: [{ path: metadata/labels, create: true }]\n',
          'apiVersion: builtin\nkind: LabelTransformer\nmetadata: { name: team }\nlabels: { team: b }\nfieldSpecs: [{ path: metadata/labels, create: true }]\n',
        ],
      },
    ],
    [
      'generators',
      'resources: [rb.yaml]\ngenerators: [gen.yaml]\n',
      {
        'apps/demo/gen.yaml': [
          'apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: { name: gen, namespace: demo }\nliterals: [a=1]\noptions: { disableNameSuffixHash: true }\n',
          'apiVersion: builtin\nkind: ConfigMapGenerator\nmetadata: { name: gen, namespace: demo }\nliterals: [a=2]\noptions: { disableNameSuffixHash: true }\n',
        ],
      },
    ],
    [
      'configurations',
      'resources: [rb.yaml]\ncommonLabels: { team: a }\nconfigurations: [conf.yaml]\n',
      {
        'apps/demo/conf.yaml': [
          'commonLabels:\n  - path: metadata/annotations\n    create: true\n',
          'commonLabels:\n  - path: metadata/labels\n    create: true\n',
        ],
      },
    ],
    [
      'patchesJson6902[].path',
      'resources: [rb.yaml]\npatchesJson6902:\n  - target: { group: rbac.authorization.k8s.io, version: v1, kind: RoleBinding, name: reader }\n    path: patch.yaml\n',
      { 'apps/demo/patch.yaml': ['- op: replace\n  path: /roleRef/name\n  value: view\n', '- op: replace\n  path: /roleRef/name\n  value: cluster-admin\n'] },
    ],
    [
      'configMapGenerator[].envs',
      'resources: [rb.yaml]\nconfigMapGenerator:\n  - name: env\n    envs: [vars.env]\n    options: { disableNameSuffixHash: true }\n',
      { 'apps/demo/vars.env': ['A=1\n', 'A=2\n'] },
    ],
  ];

  it.each(cases)('%s: a change to the file changes the render, with a warm cache', async (_field, kustomization, files) => {
    const repo = fixtureRepo();
    repo.write('apps/demo/application.yaml', app('demo', '    path: apps/demo'));
    repo.write('apps/demo/kustomization.yaml', `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: demo\n${kustomization}`);
    repo.write('apps/demo/rb.yaml', RB);
    repo.write('apps/demo/source.yaml', SOURCE);
    for (const [file, [first]] of Object.entries(files)) repo.write(file, first);
    const before = await render(repo);
    expect(before.renders[0]!.status, before.renders[0]!.message).toBe('rendered');
    for (const [file, [, second]] of Object.entries(files)) repo.write(file, second);
    const after = await render(repo);
    expect(after.renders[0]!.status, after.renders[0]!.message).toBe('rendered');
    expect(JSON.stringify(after.renders[0]!.resources.map((r) => r.object))).not.toBe(JSON.stringify(before.renders[0]!.resources.map((r) => r.object)));
  });

  it("builds a component outside the manifest roots, inside the repository, as Argo CD's kustomize does, its files in the key", async () => {
    const repo = fixtureRepo();
    repo.write('apps/demo/application.yaml', app('demo', '    path: apps/demo'));
    repo.write('apps/demo/kustomization.yaml', 'resources: [rb.yaml]\ncomponents: [../../lib/common]\n');
    repo.write('apps/demo/rb.yaml', RB);
    const component = (team: string) => `apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {team: ${team}}\n`;
    repo.write('lib/common/kustomization.yaml', component('a'));
    const labels = async () => {
      const r = (await render(repo)).renders[0]!;
      expect(r.status, r.message).toBe('rendered');
      return (r.resources[0]!.object.metadata as { labels?: unknown }).labels;
    };
    expect(await labels()).toEqual({ team: 'a' });
    repo.write('lib/common/kustomization.yaml', component('b'));
    expect(await labels()).toEqual({ team: 'b' });
  });

  it("edits a kustomization outside the manifest roots with the Application's options, and its optional component", async () => {
    const repo = fixtureRepo();
    repo.write('lib/app/kustomization.yaml', 'resources: [rb.yaml]\n');
    repo.write('lib/app/rb.yaml', RB);
    repo.write('lib/extra/kustomization.yaml', 'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\ncommonLabels: {extra: "yes"}\n');
    repo.write(
      'apps/demo/application.yaml',
      app('demo', '    path: lib/app\n    kustomize:\n      namePrefix: x-\n      components: [../extra, ../absent]\n      ignoreMissingComponents: true'),
    );
    const r = (await render(repo)).renders[0]!;
    expect(r.status, r.message).toBe('rendered');
    expect(r.resources.map((x) => [x.name, (x.object.metadata as { labels?: unknown }).labels])).toEqual([['x-reader', { extra: 'yes' }]]);
  });

  it("keys a chart outside the manifest roots on its files too: a template change is a new render, never the cache's", async () => {
    const repo = fixtureRepo();
    repo.write('charts/demo/Chart.yaml', 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
    const template = (v: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  v: "${v}"\n`;
    repo.write('charts/demo/templates/cm.yaml', template('1'));
    repo.write('apps/demo/application.yaml', app('demo', '    path: charts/demo'));
    const data = async () => (await render(repo)).renders[0]!.resources.map((r) => r.object.data);
    expect(await data()).toEqual([{ v: '1' }]);
    repo.write('charts/demo/templates/cm.yaml', template('2'));
    expect(await data()).toEqual([{ v: '2' }]);
  });

  it('openapi.path, and every file under a visited folder, are keys too', () => {
    const view = {
      files: new Set(['apps/demo/kustomization.yaml', 'apps/demo/rb.yaml', 'apps/demo/notes.txt', 'apps/schemas/crd.json']),
      dataFiles: new Map([
        [
          'apps/demo/kustomization.yaml',
          { file: '', data: { resources: ['rb.yaml'], openapi: { path: '../schemas/crd.json' } }, positions: { at: () => ({ line: 1, col: 1 }) }, errors: [] },
        ],
      ]),
    };
    expect(kustomizeInputs(view, 'apps/demo').keyFiles).toEqual([
      'apps/demo/kustomization.yaml',
      'apps/demo/notes.txt',
      'apps/demo/rb.yaml',
      'apps/schemas/crd.json',
    ]);
  });
});

describe('confinement: nothing outside the repository is read', () => {
  const refused = async (repo: FixtureRepo, pattern: RegExp) => {
    const result = await render(repo);
    const r = result.renders[0]!;
    expect(r.status).toBe('failed');
    expect(r.message).toMatch(pattern);
    expect(r.message!.split('\n')).toHaveLength(1);
    expect(JSON.stringify(result.renders)).not.toContain(SECRET);
  };

  it('a values file that climbs out with ..', async () => {
    await refused(
      localChartRepo(`      valueFiles: ["../../../../../../../..${outsideDir}/values.yaml"]\n`),
      /value file .* leaves the repository; Argo CD refuses it/,
    );
  });

  it('a file parameter that climbs out with ..', async () => {
    await refused(
      localChartRepo(`      fileParameters: [{ name: greeting, path: "../../../../../../../..${outsideDir}/id_ed25519" }]\n`),
      /file parameter greeting .* leaves the repository/,
    );
  });

  it('a values file that is a symlink out of the repository', async () => {
    const repo = localChartRepo('      valueFiles: [../extra.yaml]\n');
    symlinkSync(join(outsideDir, 'values.yaml'), join(repo.root, 'apps/demo/extra.yaml'));
    await refused(repo, /value file \.\.\/extra\.yaml resolves outside .*a symlink to/);
  });

  it('a symlink inside a local chart that .Files.Get would read', async () => {
    const repo = localChartRepo('      valueFiles: []\n', {
      'templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: key\ndata:\n  key: {{ .Files.Get "key.pem" | quote }}\n',
    });
    symlinkSync(join(outsideDir, 'id_ed25519'), join(repo.root, 'apps/demo/chart/key.pem'));
    await refused(repo, /chart at apps\/demo\/chart: key\.pem is a symlink out of/);
  });

  it('a kustomization naming a file outside the repository', async () => {
    const kust = fixtureRepo();
    kust.write('apps/demo/application.yaml', app('demo', '    path: apps/demo'));
    kust.write('apps/demo/kustomization.yaml', `resources: ["../../../../../../..${outsideDir}/id_ed25519"]\n`);
    await refused(kust, /leaves the repository/);
  });

  it('a chart name or version that would name a file outside the chart cache', () => {
    expect(() => cachedChartPath({ repoURL: 'https://charts.example.com', chart: '../../../etc/passwd', version: '1.0.0' }, env)).toThrow(
      /is not a chart name/,
    );
    expect(() => cachedChartPath({ repoURL: 'https://charts.example.com', chart: 'demo', version: '1.0.0/../../x' }, env)).toThrow(/is not a version/);
  });
});

describe('limits', () => {
  it('a template loop is killed at the time limit, in one line', async () => {
    const repo = localChartRepo('      valueFiles: []\n', { 'templates/loop.yaml': '{{- range $i := until 2000000000 }}{{- end }}\n' });
    const result = await render(repo, { HOMELAB_RENDER_TIMEOUT: '0.3' });
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toBe('helm did not finish within 0.3 s, the render time limit (HOMELAB_RENDER_TIMEOUT); killed');
  });

  it('a render whose output passes the cap is killed, in one line', async () => {
    const repo = localChartRepo('      valueFiles: []\n', {
      'templates/big.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  big: "{{ range until 40000 }}${'x'.repeat(64)}{{ end }}"\n`,
    });
    const result = await render(repo, { HOMELAB_RENDER_MAX_OUTPUT_MIB: '1' });
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toBe('helm printed more than 1 MiB, the render output limit (HOMELAB_RENDER_MAX_OUTPUT_MIB); killed');
  });

  it('a values file over the size cap is refused in one line', async () => {
    const repo = localChartRepo('      valueFiles: [big-values.yaml]\n');
    repo.write('apps/demo/chart/big-values.yaml', `greeting: ${'x'.repeat(2 * 1024 * 1024)}\n`);
    const result = await render(repo, { HOMELAB_RENDER_MAX_VALUES_MIB: '1' });
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toBe('value file big-values.yaml is 2.0 MiB, over the 1 MiB limit (HOMELAB_RENDER_MAX_VALUES_MIB)');
  });

  it('an alias bomb in a values file is refused in one line', async () => {
    const bomb = [
      'a: &a ["x","x","x","x","x","x","x","x","x"]',
      ...Array.from(
        { length: 9 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)},*${String.fromCharCode(97 + i)}]`,
      ),
    ].join('\n');
    const repo = localChartRepo('      valueFiles: [bomb-values.yaml]\n');
    repo.write('apps/demo/chart/bomb-values.yaml', `${bomb}\n`);
    const result = await render(repo);
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toMatch(/^value file .*bomb-values\.yaml.* does not parse: .*[Ee]xcessive alias count/);
  });

  /**
   * A chart archive in the cache, locked, for an Application that pulls it: packaged by Helm, or (`byHand`) tarred as
   * it stands, its `links` (path to target) kept as symbolic links and its `hardLinks` as hard links, as any other
   * tool may pack one.
   */
  async function cachedArchive(
    files: Record<string, string | Buffer>,
    o: { byHand?: boolean; links?: Record<string, string>; hardLinks?: Record<string, string>; top?: string } = {},
  ): Promise<FixtureRepo> {
    const repo = fixtureRepo();
    const ref = { repoURL: 'https://charts.example.com', chart: 'big', version: '1.0.0' };
    const src = mkdtempSync(join(tmpdir(), 'big-chart-'));
    writeChart(src, { name: 'big', version: '1.0.0', files: { 'templates/cm.yaml': CM_TEMPLATE } });
    for (const [path, data] of Object.entries(files)) {
      mkdirSync(dirname(join(src, 'big', path)), { recursive: true });
      writeFileSync(join(src, 'big', path), data);
    }
    for (const [path, target] of Object.entries(o.links ?? {})) symlinkSync(target, join(src, 'big', path));
    for (const [path, target] of Object.entries(o.hardLinks ?? {})) linkSync(join(src, 'big', target), join(src, 'big', path));
    if (o.top) renameSync(join(src, 'big'), join(src, o.top));
    if (o.byHand) await tarCreate({ gzip: true, cwd: src, file: join(src, 'big-1.0.0.tgz'), portable: true }, [o.top ?? 'big']);
    else await output(env.HELM_BIN!, ['package', join(src, 'big'), '--destination', src], { env });
    const target = cachedChartPath(ref, env);
    mkdirSync(dirname(target), { recursive: true });
    const archive = (await import('node:fs')).readFileSync(join(src, 'big-1.0.0.tgz'));
    writeFileSync(target, archive);
    repo.write(CHART_LOCK_FILE, formatLock({ charts: [{ ...ref, digest: digestOf(archive) }] }));
    repo.write(
      'apps/big/application.yaml',
      app('big', `    chart: big\n    repoURL: ${ref.repoURL}\n    targetRevision: 1.0.0`).replace(`    repoURL: ${REPO_URL}\n    targetRevision: main\n`, ''),
    );
    rmSync(src, { recursive: true, force: true });
    return repo;
  }

  it('an archive over the size limit is refused in one line', async () => {
    const repo = await cachedArchive({ 'files/noise.bin': randomBytes(2 * 1024 * 1024) });
    const result = await render(repo, { HOMELAB_RENDER_MAX_CHART_MIB: '1' });
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toMatch(
      /^chart archive big 1\.0\.0 from https:\/\/charts\.example\.com is \d\.\d MiB, over the 1 MiB limit \(HOMELAB_RENDER_MAX_CHART_MIB\)$/,
    );
  });

  /** The names of what a render printed, by kind. */
  const printed = (result: Awaited<ReturnType<typeof render>>) =>
    result.renders[0]!.resources.map((r) => `${String(r.object.kind)}/${String((r.object.metadata as { name?: unknown }).name)}`).sort();
  const EVIL = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: evil\n';

  it('renders an archive as Argo CD does once it has extracted it: through a link inside the chart, by its .helmignore, without dot files in templates/, without hard links', async () => {
    const repo = await cachedArchive(
      {
        'files/evil.txt': EVIL,
        // Helm drops a dot file in templates/ from a folder, and what the chart's .helmignore names.
        'templates/.hidden.yaml': CM_TEMPLATE.replace(/name: .*/, 'name: hidden'),
        'templates/ignored.yaml': CM_TEMPLATE.replace(/name: .*/, 'name: ignored'),
        '.helmignore': 'templates/ignored.yaml\n',
      },
      // From the archive Helm reads a link as an empty file; extracted, it reads what the link names.
      { byHand: true, links: { 'templates/evil.yaml': '../files/evil.txt' }, hardLinks: { 'templates/twin.yaml': 'templates/cm.yaml' } },
    );
    const result = await render(repo);
    expect(result.renders[0]!.status).toBe('rendered');
    // Argo CD's untar writes no hard link (its switch has no case for one), so the twin is never rendered.
    expect(printed(result)).toEqual(['ConfigMap/greeting', 'Namespace/evil']);
  });

  it('fails an archive holding a link out of the chart, as Argo CD fails its extraction, in one line', async () => {
    const repo = await cachedArchive({}, { byHand: true, links: { 'templates/evil.yaml': '../../../../etc/hostname' } });
    const result = await render(repo);
    expect(result.renders[0]).toMatchObject({
      status: 'failed',
      message: 'chart archive big-1.0.0.tgz holds a link out of the chart (big/templates/evil.yaml); Argo CD fails the source: illegal filepath in symlink',
    });
  });

  it("reads an absolute link as Argo CD's untar joins it, inside the chart: here it names nothing, and the load fails", async () => {
    const repo = await cachedArchive({}, { byHand: true, links: { 'templates/evil.yaml': '/etc/hostname' } });
    const result = await render(repo);
    expect(result.renders[0]).toMatchObject({ status: 'failed', message: 'chart big: templates/evil.yaml is a link to nothing, which Helm cannot load' });
  });

  it("fails an archive whose top folder is not the Application's chart name, as Argo CD's render of the extracted folder fails", async () => {
    const repo = await cachedArchive({}, { byHand: true, top: 'other' });
    const result = await render(repo);
    expect(result.renders[0]).toMatchObject({
      status: 'failed',
      message:
        'chart archive big 1.0.0 from https://charts.example.com unpacks to other/, not big/: Argo CD renders the folder its chart name gives, and fails the source (path not found)',
    });
  });

  it('an archive Helm packaged, its .helmignore in it, renders as it stands, from one extraction for every run', async () => {
    const repo = await cachedArchive({ '.helmignore': 'files/\nREADME.md\n', 'README.md': '# big\n' });
    // What a run killed while it extracted left: swept once it is old enough to be nobody's, kept while it may be.
    const folder = join(env.HOMELAB_CACHE_DIR!, 'charts', '.extracted', UNPACKING_RULES.argocd);
    mkdirSync(join(folder, 'abandoned.partial-1'), { recursive: true });
    mkdirSync(join(folder, 'under-way.partial-2'), { recursive: true });
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    utimesSync(join(folder, 'abandoned.partial-1'), twoHoursAgo, twoHoursAgo);
    expect((await render(repo)).renders[0]!.status).toBe('rendered');
    const extracted = readdirSync(folder);
    expect(extracted.filter((name) => name.includes('.partial-'))).toEqual(['under-way.partial-2']);
    expect((await render(repo)).renders[0]!.status).toBe('rendered');
    expect(readdirSync(folder)).toEqual(extracted);
  });

  it('never reads an extraction other unpacking rules made: the folder, and every render key read from it, name the rules', async () => {
    // An archive no other test made, so no extraction of it exists yet.
    const repo = await cachedArchive({ 'README.md': `# ${randomBytes(8).toString('hex')}\n` });
    const digest = digestOf(readFileSync(cachedChartPath({ repoURL: 'https://charts.example.com', chart: 'big', version: '1.0.0' }, env)));
    // What a gate of other rules left in the cache for this archive.
    const other = unpackedFolder(env, digest, 'argocd', 'argocd-3.5.1-untar.1');
    mkdirSync(join(other, 'big/templates'), { recursive: true });
    writeFileSync(join(other, 'big/Chart.yaml'), 'apiVersion: v2\nname: big\nversion: 1.0.0\n');
    writeFileSync(join(other, 'big/templates/other.yaml'), EVIL);
    // Extracted afresh by this gate's rules, and rendered from that.
    expect(printed(await render(repo))).toEqual(['ConfigMap/greeting']);
    expect(existsSync(join(unpackedFolder(env, digest, 'argocd'), 'big/templates/cm.yaml'))).toBe(true);
  });

  it('a small archive that unpacks past the limit is refused in one line', async () => {
    // Helm packages no file over 5 MiB: five of 4 MiB each, zeros, which compress to almost nothing.
    const repo = await cachedArchive(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`files/zeros-${i}.bin`, Buffer.alloc(4 * 1024 * 1024)])));
    const result = await render(repo, { HOMELAB_RENDER_MAX_CHART_MIB: '1' });
    expect(result.renders[0]!.status).toBe('failed');
    expect(result.renders[0]!.message).toMatch(/^chart archive big-1\.0\.0\.tgz unpacks to more than 8 MiB, the limit/);
  });

  it('a bad limit in the environment is one line, not a render', async () => {
    const result = await render(localChartRepo('      valueFiles: []\n'), { HOMELAB_RENDER_TIMEOUT: 'soon' });
    expect(result.renders[0]!.message).toBe('HOMELAB_RENDER_TIMEOUT must be a positive number, got "soon"');
  });
});

describe("the render tools' environment", () => {
  it('passes a proxy and a CA bundle through when set, and nothing else of the caller; Go collects only past 512 MiB', () => {
    const env = renderToolEnv({
      PATH: '/usr/bin',
      HOME: '/home/op',
      HTTPS_PROXY: 'http://proxy.lan:3128',
      no_proxy: '.lan,10.0.0.0/8',
      SSL_CERT_FILE: '/etc/ssl/lab-ca.pem',
      GITHUB_TOKEN: 'ghp_secret',
      AWS_SECRET_ACCESS_KEY: 'x',
      HTTP_PROXY: '',
    });
    expect(env).toMatchObject({ HTTPS_PROXY: 'http://proxy.lan:3128', no_proxy: '.lan,10.0.0.0/8', SSL_CERT_FILE: '/etc/ssl/lab-ca.pem', PATH: '/usr/bin' });
    expect(env).toMatchObject({ GOGC: 'off', GOMEMLIMIT: '512MiB' });
    expect(Object.keys(env).sort()).toEqual([
      'GOGC',
      'GOMEMLIMIT',
      'HELM_CACHE_HOME',
      'HELM_CONFIG_HOME',
      'HELM_DATA_HOME',
      'HOME',
      'HTTPS_PROXY',
      'KUBECONFIG',
      'PATH',
      'SSL_CERT_FILE',
      'no_proxy',
    ]);
  });
});

describe('rendered output Argo CD cannot track', () => {
  it('fails the source, in its words, where a template writes an annotation that is not a string', () => {
    const out = splitRendered(
      '---\n# Source: demo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n  namespace: apps\n  annotations:\n    checksum: 12\n---\n# Source: demo/templates/ok.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n',
    );
    expect(out.docs.map((d) => d.object.metadata)).toEqual([{ name: 'ok' }]);
    expect(out.problems.map((p) => p.message)).toEqual([
      'demo/templates/cm.yaml: Argo CD fails the whole source, applying none of it: failed to set app instance tracking info on manifest: failed to get annotations for /v1, Kind=ConfigMap apps/demo: .metadata.annotations accessor error: contains non-string value in the map under key "checksum": 12 is of the type int64, expected string',
    ]);
  });
});

/** An archive of `files` (a string is a file's text, `{ link }` a symbolic link, `under` a folder they sit in), made with tar in `dir`. */
async function archiveOf(dir: string, name: string, files: Record<string, string | { link: string }>, under = ''): Promise<string> {
  const src = join(dir, `${name}-src`);
  for (const [path, what] of Object.entries(files)) {
    mkdirSync(dirname(join(src, under, path)), { recursive: true });
    if (typeof what === 'string') writeFileSync(join(src, under, path), what);
    else symlinkSync(what.link, join(src, under, path));
  }
  const archive = join(dir, `${name}.tgz`);
  await tarCreate({ gzip: true, cwd: src, file: archive, portable: true }, readdirSync(src));
  return archive;
}

describe('a chart archive unpacked as Argo CD extracts it and as helm pull --untar expands it', () => {
  /** An archive made by hand: two top folders, a link, a hard link and a byte-order mark, as no `helm package` makes one. */
  async function oddArchive(): Promise<{ dir: string; archive: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'odd-chart-'));
    const src = join(dir, 'src');
    mkdirSync(join(src, 'a/templates'), { recursive: true });
    mkdirSync(join(src, 'b/templates'), { recursive: true });
    writeFileSync(join(src, 'a/Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
    writeFileSync(join(src, 'a/templates/x.yaml'), '\uFEFFkind: ConfigMap\n');
    writeFileSync(join(src, 'b/templates/y.yaml'), 'kind: Secret\n');
    symlinkSync('/etc/hostname', join(src, 'a/templates/link.yaml'));
    // Archived after x.yaml (tar names files in order), so the archive holds it as a hard link.
    linkSync(join(src, 'a/templates/x.yaml'), join(src, 'a/templates/z-twin.yaml'));
    const archive = join(dir, 'odd.tgz');
    await tarCreate({ gzip: true, cwd: src, file: archive, portable: true }, ['a', 'b']);
    return { dir, archive };
  }
  const listed = (root: string) =>
    readdirSync(root, { recursive: true, withFileTypes: true })
      .filter((e) => !e.isDirectory())
      .map((e) => `${relative(root, join(e.parentPath, e.name))}${e.isSymbolicLink() ? ` -> ${readlinkSync(join(e.parentPath, e.name))}` : ''}`)
      .sort();

  it("expands as Helm's archive loader reads it: every top folder's files under the folder Chart.yaml names, a link and a hard link empty, the mark dropped", async () => {
    const { dir, archive } = await oddArchive();
    try {
      const env = { HOMELAB_CACHE_DIR: dir };
      const expanded = await extractedChart(env, { archive, digest: 'sha256:odd' }, { unpackedLimit: Infinity, how: 'helm-pull' });
      expect(listed(expanded)).toEqual([
        'demo/Chart.yaml',
        'demo/templates/link.yaml',
        'demo/templates/x.yaml',
        'demo/templates/y.yaml',
        'demo/templates/z-twin.yaml',
      ]);
      expect(readFileSync(join(expanded, 'demo/templates/link.yaml'), 'utf8')).toBe('');
      expect(readFileSync(join(expanded, 'demo/templates/z-twin.yaml'), 'utf8')).toBe('');
      expect(readFileSync(join(expanded, 'demo/templates/x.yaml'), 'utf8')).toBe('kind: ConfigMap\n');
      // Argo CD's untar keeps the archive as it stands: both top folders, the link joined to its folder and made
      // relative (an absolute name is joined too), no hard link, the mark kept.
      const extracted = await extractedChart(env, { archive, digest: 'sha256:odd' }, { unpackedLimit: Infinity });
      expect(listed(extracted)).toEqual(['a/Chart.yaml', 'a/templates/link.yaml -> etc/hostname', 'a/templates/x.yaml', 'b/templates/y.yaml']);
      expect(readFileSync(join(extracted, 'a/templates/x.yaml'), 'utf8')).toBe('\uFEFFkind: ConfigMap\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("unpacks entry by entry in the archive's order, as untar does: a file after a link to a folder is written through it, and Helm reads it there", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'through-link-'));
    try {
      // No tool archives a file under a link's name, so the archive is written header by header.
      const blocks: Buffer[] = [];
      const entry = (path: string, type: 'Directory' | 'File' | 'SymbolicLink', text = '', linkpath?: string) => {
        const data = Buffer.from(text);
        const header = new Header({ path, type, linkpath, size: data.length, mode: type === 'File' ? 0o644 : 0o755, mtime: new Date(0) });
        header.encode();
        blocks.push(header.block!, data, Buffer.alloc((512 - (data.length % 512)) % 512));
      };
      entry('demo/', 'Directory');
      entry('demo/Chart.yaml', 'File', 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
      entry('demo/kept/', 'Directory');
      entry('demo/templates', 'SymbolicLink', '', 'kept');
      entry('demo/templates/cm.yaml', 'File', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: through-the-link\n');
      const archive = join(dir, 'through.tgz');
      writeFileSync(archive, gzipSync(Buffer.concat([...blocks, Buffer.alloc(1024)])));
      const folder = await extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive, digest: 'sha256:through' }, { unpackedLimit: Infinity });
      // The file is in the folder the link names (the listing reads on through the link, as Helm's loader does).
      expect(listed(folder)).toEqual(['demo/Chart.yaml', 'demo/kept/cm.yaml', 'demo/templates -> kept', 'demo/templates/cm.yaml']);
      expect(loadedFiles(join(folder, 'demo')).map(([name]) => name)).toEqual(['Chart.yaml', 'kept/cm.yaml', 'templates/cm.yaml']);
      expect(await output(env.HELM_BIN!, ['template', 'x', join(folder, 'demo')], { env })).toContain('name: through-the-link');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts what an archive unpacks to as its tar stream does, headers too: many empty files reach the limit, either way it is unpacked', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'many-files-'));
    try {
      const empties = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`demo/files/${i}`, '']));
      const archive = await archiveOf(dir, 'many', { 'demo/Chart.yaml': 'apiVersion: v2\nname: demo\nversion: 1.0.0\n', ...empties });
      for (const how of ['argocd', 'helm-pull'] as const)
        await expect(extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive, digest: `sha256:many-${how}` }, { unpackedLimit: 100 * 1024, how })).rejects.toThrow(
          'chart archive many.tgz unpacks to more than 100 KiB, the limit (HOMELAB_RENDER_MAX_CHART_MIB, times 8)',
        );
      // Within the limit, it unpacks.
      const folder = await extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive, digest: 'sha256:many' }, { unpackedLimit: 1024 * 1024 });
      expect(readdirSync(join(folder, 'demo/files'))).toHaveLength(300);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what Helm refuses, in one line: a file outside any folder, no chart name, a name that is a path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'odd-chart-'));
    try {
      const cases: [Record<string, string>, RegExp][] = [
        [{ 'Chart.yaml': 'name: demo\n' }, /chart illegally contains content outside the base directory: "Chart\.yaml"/],
        [{ 'a/Chart.yaml': 'version: 1.0.0\n' }, /chart name not specified/],
        [{ 'a/Chart.yaml': 'name: ..\n' }, /chart name "\.\." is not allowed/],
      ];
      for (const [i, [files, why]] of cases.entries()) {
        const archive = await archiveOf(dir, `case-${i}`, files);
        const failure = extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive, digest: `sha256:case${i}` }, { unpackedLimit: Infinity, how: 'helm-pull' });
        await expect(failure).rejects.toThrow(why);
        await expect(failure).rejects.toThrow(/^chart archive case-\d\.tgz: .*; helm pull --untar refuses it, so kustomize's inflation fails$/);
      }
      // Nothing half-made is left behind.
      expect(readdirSync(join(dir, 'charts', '.expanded', UNPACKING_RULES['helm-pull']))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a chart folder's files as Helm's loader walks it", () => {
  it('follows links, drops what .helmignore names and dot files in templates/, and fails on a link to nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loaded-chart-'));
    try {
      const chart = join(dir, 'demo');
      mkdirSync(join(chart, 'templates'), { recursive: true });
      mkdirSync(join(chart, 'common'), { recursive: true });
      writeFileSync(join(chart, 'Chart.yaml'), 'apiVersion: v2\nname: demo\nversion: 1.0.0\n');
      writeFileSync(join(chart, '.helmignore'), 'templates/ignored.yaml\n');
      writeFileSync(join(chart, 'templates/ignored.yaml'), 'kind: ConfigMap\n');
      writeFileSync(join(chart, 'templates/.hidden.yaml'), 'kind: ConfigMap\n');
      writeFileSync(join(chart, 'common/cm.yaml'), 'kind: ConfigMap\n');
      symlinkSync('../common', join(chart, 'templates/linked'));
      expect(loadedFiles(chart).map(([rel]) => rel)).toEqual(['.helmignore', 'Chart.yaml', 'common/cm.yaml', 'templates/linked/cm.yaml']);
      symlinkSync('nowhere.yaml', join(chart, 'templates/dangling.yaml'));
      expect(() => loadedFiles(chart)).toThrow('chart demo: templates/dangling.yaml is a link to nothing, which Helm cannot load');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the unpackings held to their upstream tests (Argo CD 3.5.1's TestUntgz, Helm 4.2.3's TestExpandError)", () => {
  it("untgz: unpacks testdata/app with its link relativized (../README.md), and refuses testdata/symlink-exploit's link to ../../tar_test.go", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'upstream-untgz-'));
    try {
      const app = await archiveOf(dir, 'app', {
        'README.md': '# app\n',
        'applicationset/latest/kustomization.yaml': 'resources: []\n',
        'applicationset/stable/kustomization.yaml': 'resources: []\n',
        'applicationset/readme-symlink': { link: '../README.md' },
      });
      const folder = await extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive: app, digest: 'sha256:app' }, { unpackedLimit: Infinity });
      expect(readlinkSync(join(folder, 'applicationset/readme-symlink'))).toBe('../README.md');
      expect(readdirSync(folder, { recursive: true }).map(String).sort()).toEqual([
        'README.md',
        'applicationset',
        'applicationset/latest',
        'applicationset/latest/kustomization.yaml',
        'applicationset/readme-symlink',
        'applicationset/stable',
        'applicationset/stable/kustomization.yaml',
      ]);
      const exploit = await archiveOf(dir, 'exploit', { tar_test_symlink: { link: '../../tar_test.go' } });
      await expect(extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive: exploit, digest: 'sha256:exploit' }, { unpackedLimit: Infinity })).rejects.toThrow(
        'illegal filepath in symlink',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['dot name', '.', 'not allowed'],
    ['dotdot name', '..', 'not allowed'],
    ['slash in name', 'a/../b', 'must not contain path separators'],
  ])('expand: %s', async (_case, chartName, wantErr) => {
    const dir = mkdtempSync(join(tmpdir(), 'upstream-expand-'));
    try {
      const archive = await archiveOf(
        dir,
        'chart',
        { 'Chart.yaml': `apiVersion: v3\nname: ${chartName}\ndescription: A Helm chart for Kubernetes\n` },
        'named',
      );
      await expect(
        extractedChart({ HOMELAB_CACHE_DIR: dir }, { archive, digest: 'sha256:chart' }, { unpackedLimit: Infinity, how: 'helm-pull' }),
      ).rejects.toThrow(wantErr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
