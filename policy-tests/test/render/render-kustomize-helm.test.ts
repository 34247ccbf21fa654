/**
 * The Helm charts a kustomization inflates (`helmCharts:`), with the real kustomize and Helm: only under argocd-cm's
 * --enable-helm, as Argo CD builds it; from the chart cache and the lock, as an Application's chart; expanded as
 * kustomize's `helm pull --untar` expands it; printed once where the chart cannot print otherwise.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { c as createTar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cachedChartPath, digestOf, formatLock, readLock } from '../../render/charts.ts';
import { unpackedFolder } from '../../render/chart-extract.ts';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import type { FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { charts, countingTool, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';
import { kustomizeApp, webRepo, withBuildOptions } from '../support/kustomize-app.ts';

useRenderLab();

/** The web app's kustomization inflating the lab's demo chart, its values inline. */
const inflating = (repo: FixtureRepo) => {
  repo.write(
    'apps/web/kustomization.yaml',
    `resources: [deployment.yaml]\nhelmCharts:\n  - name: demo\n    repo: ${charts.url}\n    version: 1.0.0\n    releaseName: lab\n    namespace: web\n    valuesInline: {greeting: inflated}\n`,
  );
  return repo;
};

/** The web app inflating the demo chart under --enable-helm (and any other build options), with the pulled chart's lock. */
const enabledRepo = (kustomize = '      namePrefix: lab-', options = '--enable-helm') => {
  const repo = inflating(webRepo(kustomize));
  withBuildOptions(repo, options);
  if (pulledLock) repo.write('charts.lock.json', pulledLock);
  return repo;
};

/** The chart cache the demo chart is pulled into once for the file, and the lock that pull wrote. */
let cold = '';
let pulledLock: string | undefined;
let pulling: Promise<void> | undefined;
const pulled = () =>
  (pulling ??= (async () => {
    const repo = enabledRepo();
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cold }, updateLock: true, out: () => {} })).toBe(0);
    pulledLock = readFileSync(join(repo.root, 'charts.lock.json'), 'utf8');
  })());
/** The web app's render with the file's chart cache, once the chart is pulled. */
const built = async (repo: FixtureRepo) => {
  await pulled();
  return (await rendered(repo, { HOMELAB_CACHE_DIR: cold })).renders[0]!;
};

beforeAll(() => {
  cold = mkdtempSync(join(tmpdir(), 'inflate-cache-'));
});
afterAll(() => rmSync(cold, { recursive: true, force: true }));

describe("a kustomization's Helm charts", () => {
  it('fails without --enable-helm as kustomize does', async () => {
    const refused = await rendered(inflating(webRepo('      namePrefix: lab-')));
    expect(refused.renders[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/does not pass --enable-helm: kustomize refuses the build \("must specify --enable-helm"\)/),
    });
  });

  it('is not rendered until charts:pull pulls it, then inflated from the cache with the kustomization values', async () => {
    // Not pulled yet: not rendered, with the command that pulls it; charts:pull reads kustomize's charts too.
    const empty = mkdtempSync(join(tmpdir(), 'inflate-empty-'));
    try {
      expect((await rendered(enabledRepo(), { HOMELAB_CACHE_DIR: empty })).renders[0]).toMatchObject({
        status: 'not-rendered',
        message: expect.stringMatching(/not in the chart cache: run npm run charts:pull/),
      });
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    await pulled();
    // The pull expands it as kustomize's helm pull --untar would, so the first build finds it expanded.
    const { digest } = JSON.parse(pulledLock!).charts.find((c: { chart: string }) => c.chart === 'demo') as { digest: string };
    expect(existsSync(join(unpackedFolder({ HOMELAB_CACHE_DIR: cold }, digest, 'helm-pull'), 'demo/Chart.yaml'))).toBe(true);
    const repo = enabledRepo();
    const web = await built(repo);
    expect(web.status, web.message).toBe('rendered');
    // The chart's objects with the kustomization's values, the Application's prefix, the cluster's version for Helm.
    expect(web.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'inflated', kube: 'v1.36.3' } });
    expect(existsSync(join(repo.root, 'apps/web/charts'))).toBe(false);
  });

  it('copies a values file beside the folder into the build when the load restrictor is off', async () => {
    await pulled();
    const besideFolder = enabledRepo('      namePrefix: lab-', '--enable-helm --load-restrictor LoadRestrictionsNone');
    besideFolder.write('apps/common-values.yaml', 'greeting: from a file\n');
    besideFolder.write(
      'apps/web/kustomization.yaml',
      readFileSync(join(besideFolder.root, 'apps/web/kustomization.yaml'), 'utf8').replace(
        '    valuesInline: {greeting: inflated}\n',
        '    valuesFile: ../common-values.yaml\n',
      ),
    );
    const fromFile = await built(besideFolder);
    expect(fromFile.status, fromFile.message).toBe('rendered');
    expect(fromFile.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { greeting: 'from a file' } });
  });

  it("inflates with the Application's own Kubernetes and API versions, parsed as the repo-server parses them", async () => {
    // kustomize.kubeVersion, kustomize.apiVersions: BuildOpts; a version it cannot parse fails the source.
    await pulled();
    const versioned = enabledRepo('      namePrefix: lab-\n      kubeVersion: v1.31.2-gke.1\n      apiVersions: [example.com/v1]');
    const own = await built(versioned);
    expect(own.status, own.message).toBe('rendered');
    expect(own.resources.find((r) => r.name === 'lab-lab-greeting')?.object).toMatchObject({ data: { kube: 'v1.31.2' } });
    versioned.write('apps/web/application.yaml', kustomizeApp('      kubeVersion: "1"'));
    expect(await built(versioned)).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('could not parse kubernetes version 1: illegal version string "1"'),
    });
  });

  it("expands an archive that holds a link as kustomize's helm pull --untar does: the link an empty file, nothing read through it", async () => {
    // Helm's archive loader reads a link's own content, which is none.
    await pulled();
    const enabled = enabledRepo();
    const archive = cachedChartPath({ repoURL: charts.url, chart: 'demo', version: '1.0.0' }, { ...env, HOMELAB_CACHE_DIR: cold });
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
      const linked = await built(enabled);
      expect(linked.status, linked.message).toBe('rendered');
      // The kustomization's own Deployment, and nothing of the chart's link.
      expect(linked.resources.map((r) => `${r.kind}/${r.name}`)).toEqual(['Deployment/lab-web']);
      expect(JSON.stringify(linked.resources)).not.toContain(readFileSync('/etc/hostname', 'utf8').trim());
    } finally {
      writeFileSync(archive, original);
      rmSync(evil, { recursive: true, force: true });
    }
  });

  it('refuses a chart home out of the repository before anything is unpacked there', async () => {
    await pulled();
    for (const home of ['../../../../escape', '/tmp/escape']) {
      const hostile = enabledRepo();
      hostile.write(
        'apps/web/kustomization.yaml',
        `${readFileSync(join(hostile.root, 'apps/web/kustomization.yaml'), 'utf8')}helmGlobals: {chartHome: ${home}}\n`,
      );
      const refused = await built(hostile);
      expect(refused, home).toMatchObject({ status: 'failed', message: expect.stringMatching(/leaves the repository/) });
      expect(existsSync(join(hostile.root, '..', 'escape')) || existsSync('/tmp/escape'), home).toBe(false);
    }
  });

  it("holds the inflated chart in the lock as an Application's: without its entry, chart-lock fails at the entry", async () => {
    await pulled();
    const enabled = enabledRepo();
    const lockFindings = () => checkFindings('chart-lock', { root: enabled.root, env: { ...env, HOMELAB_CACHE_DIR: cold } });
    expect(await lockFindings()).toEqual([]);
    enabled.write('charts.lock.json', '{\n  "charts": []\n}\n');
    expect(await lockFindings()).toEqual([
      expect.stringMatching(
        /^apps\/web\/kustomization\.yaml:5 chart demo 1\.0\.0 from .*, which apps\/web\/kustomization\.yaml inflates, has no digest in charts\.lock\.json/,
      ),
    ]);
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
});
