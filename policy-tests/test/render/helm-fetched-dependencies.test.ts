/**
 * A chart at a path whose dependency comes from a chart repository (a wrapper chart), rendered as Argo CD renders it:
 * `helm template` fails on the missing dependency, the real `helm dependency build` fetches it, and the chart is
 * templated again. The gate pins what the build fetches in charts.lock.json, `charts:pull` pulls it, and the render
 * hands Helm's build that archive from the cache, offline; Helm itself checks the Chart.lock. How the render reads
 * the built chart (a warm run, the lock's archive over a local build, the wrapper's values, aliases):
 * helm-fetched-render.test.ts.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { snapshot } from '../../gate/snapshot.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { chartCache } from '../../render/chart-cache.ts';
import { readLock } from '../../render/charts.ts';
import { startChartRepo } from '../../../test-support/chart-repo.ts';
import { output } from '../../../test-support/exec.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { charts, common, configMap, dataByName, env, helmHomes, lines, pull, renderAll, useFetchedDepsLab, wrapper } from '../support/fetched-deps.ts';

useFetchedDepsLab();

describe('a chart whose dependency comes from a chart repository', () => {
  it('is pinned by charts:pull and rendered as the real Helm builds and templates it, the checkout untouched', async () => {
    const repo = wrapper(charts.url, '0.1.0');
    lines.length = 0;
    expect(await pull(repo)).toBe(0);
    expect(readLock(repo.root).charts).toEqual([expect.objectContaining({ repoURL: charts.url, chart: 'common', version: '0.1.0' })]);
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    // What Argo CD's repo-server does in its checkout: build the dependencies from the chart repository, then template.
    const copy = mkdtempSync(join(tmpdir(), 'fetched-deps-real-'));
    cpSync(join(repo.root, 'apps/demo/chart'), copy, { recursive: true });
    const helmEnv = helmHomes();
    await output(env.HELM_BIN!, ['dependency', 'build', copy], { env: helmEnv });
    const real = parseAllDocuments(await output(env.HELM_BIN!, ['template', copy, '--name-template', 'demo'], { env: helmEnv })).map((d) => d.toJS());
    expect(dataByName(render!.resources.map((r) => r.object))).toEqual(dataByName(real));
    expect(dataByName(real)).toEqual({ own: { value: 'wrapper' }, shared: { value: 'from 0.1.0' } });
    // The gate built in a scratch copy: nothing written into the checkout.
    expect(await loadRepo(repo.root).then((r) => r.files.has('apps/demo/chart/Chart.lock'))).toBe(false);
    // A values typo under the dependency's key is named: the fetched archive is read as the chart's subchart.
    expect(render!.chart!.subcharts.get('common')).toMatchObject({ defaults: { value: 'from 0.1.0' } });
    // The lock holds the fetched chart as it holds an Application's: its entry is no stale one, and without it,
    // chart-lock fails at the dependency.
    const lockFindings = () => checkFindings('chart-lock', { root: repo.root, env });
    expect(await lockFindings()).toEqual([]);
    repo.write('charts.lock.json', '{\n  "charts": []\n}\n');
    expect(await lockFindings()).toEqual([
      expect.stringMatching(
        /^apps\/demo\/chart\/Chart\.yaml:6 chart common 0\.1\.0 from .*, which Argo CD's helm dependency build fetches for the chart at apps\/demo\/chart, has no digest in charts\.lock\.json/,
      ),
    ]);
  });

  it('renders offline, from the archive the lock pins, once it is pulled; one the cache hands back as other bytes is refused', async () => {
    const own = await startChartRepo(env);
    const repo = wrapper(own.url, '0.2.0');
    try {
      await own.publish(common('0.2.0'));
      expect(await pull(repo)).toBe(0);
    } finally {
      await own.close();
    }
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    expect(render!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'from 0.2.0' });
    const archive = chartCache(env).path({ repoURL: own.url, chart: 'common', version: '0.2.0' });
    writeFileSync(archive, 'not the archive\n');
    repo.write('apps/demo/chart/templates/own.yaml', configMap('own', 'changed'));
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/^cached chart .*common-0\.2\.0\.tgz has digest sha256:[0-9a-f]{64}, but charts\.lock\.json records sha256:/),
    });
  });

  it("fetches the version its Chart.lock records, as Helm's build does, and fails as Argo CD fails where the lock is out of sync", async () => {
    // Over https, as Argo CD names a dependency's repository to Helm only then (getHelmDependencyRepos).
    const own = await startChartRepo(env, { https: true });
    const trusted = { ...env, SSL_CERT_FILE: own.certFile };
    const repo = wrapper(own.url, '>=0.1.0');
    try {
      // The lock a person committed when the repository served 0.1.0 alone; it serves a newer one since.
      await own.publish(common('0.1.0'));
      const copy = mkdtempSync(join(tmpdir(), 'fetched-deps-lock-'));
      cpSync(join(repo.root, 'apps/demo/chart'), copy, { recursive: true });
      await output(env.HELM_BIN!, ['dependency', 'update', copy], { env: { ...helmHomes(), SSL_CERT_FILE: own.certFile } });
      repo.write('apps/demo/chart/Chart.lock', readFileSync(join(copy, 'Chart.lock'), 'utf8'));
      await own.publish(common('0.2.0'));
      expect(await pull(repo, { env: trusted })).toBe(0);
    } finally {
      await own.close();
    }
    expect(readLock(repo.root).charts.map((c) => c.version)).toEqual(['0.1.0']);
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    expect(render!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'from 0.1.0' });
    // Chart.yaml asks for another version and the lock was not updated: Helm refuses the build, so Argo CD fails the app.
    repo.write('apps/demo/chart/Chart.yaml', readFileSync(join(repo.root, 'apps/demo/chart/Chart.yaml'), 'utf8').replace('>=0.1.0', '0.2.0'));
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/the lock file \(Chart\.lock\) is out of sync with the dependencies file \(Chart\.yaml\)/),
    });
  });

  it("fails, as Argo CD's build fails, where a Chart.lock pins a dependency from a plain http repository, which Argo CD never names to Helm", async () => {
    const repo = wrapper(charts.url, '0.1.0');
    const copy = mkdtempSync(join(tmpdir(), 'fetched-deps-http-'));
    cpSync(join(repo.root, 'apps/demo/chart'), copy, { recursive: true });
    await output(env.HELM_BIN!, ['dependency', 'update', copy], { env: helmHomes() });
    repo.write('apps/demo/chart/Chart.lock', readFileSync(join(copy, 'Chart.lock'), 'utf8'));
    expect(await pull(repo)).toBe(0);
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/no repository definition for http:\/\/127\.0\.0\.1:\d+/),
    });
  });

  it('refuses a dependency whose name is a path, in one line, and pulls the others; the render refuses it too', async () => {
    const repo = wrapper(charts.url, '0.1.0');
    repo.write(
      'apps/demo/chart/Chart.yaml',
      `apiVersion: v2\nname: wrapper\nversion: 1.0.0\ndependencies:\n  - {name: common, version: 0.1.0, repository: "${charts.url}"}\n  - {name: ../../../escape, version: 0.1.0, repository: "${charts.url}"}\n`,
    );
    lines.length = 0;
    expect(await pull(repo, { verifyIndex: true })).toBe(1);
    expect(lines).toEqual([
      expect.stringMatching(/^REFUSED {2}\.\.\/\.\.\/\.\.\/escape 0\.1\.0 from .*: chart name "\.\.\/\.\.\/\.\.\/escape" is not a chart name/),
      // The other is pulled, or found cached and vouched for by its index (an earlier test of this file pulled it).
      expect.stringMatching(/^(verified|cached {3})common 0\.1\.0 from /),
    ]);
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/chart name "\.\.\/\.\.\/\.\.\/escape" is not a chart name/),
    });
  });

  it("is an Application whose inputs, to the rendered diff, include the lock that pins what its chart's build fetches", async () => {
    const repo = wrapper('https://charts.example.invalid', '0.1.0');
    const inputs = async () => (await snapshot(repo.root, env)).unrendered?.get('demo');
    const before = await inputs();
    expect(before?.cause).toMatch(/fetches its dependency common 0\.1\.0 from https:\/\/charts\.example\.invalid, not in the chart cache/);
    repo.write(
      'charts.lock.json',
      `{"charts": [{"repoURL": "https://charts.example.invalid", "chart": "common", "version": "0.1.0", "digest": "sha256:${'a'.repeat(64)}"}]}\n`,
    );
    expect((await inputs())?.inputs).not.toBe(before!.inputs);
  });

  it.each([
    ['a range with no Chart.lock', (url: string) => wrapper(url, '^0.1.0'), /the range \^0\.1\.0 with no Chart\.lock, .*commit the Chart\.lock/],
    ['an OCI registry', () => wrapper('oci://registry.example.invalid/charts', '0.1.0'), /an OCI registry \(oci:\/\/registry\.example\.invalid\/charts\)/],
    ['a repository named in Argo CD', () => wrapper('@common-charts', '0.1.0'), /a repository named in Argo CD's settings \(@common-charts\)/],
  ])('is not rendered, and pins nothing, where the dependency comes from %s', async (_, make, why) => {
    const repo = make(charts.url);
    lines.length = 0;
    expect(await pull(repo)).toBe(0);
    expect(readLock(repo.root).charts).toEqual([]);
    expect((await renderAll(repo))[0]).toMatchObject({
      status: 'not-rendered',
      message: expect.stringMatching(new RegExp(`^the chart at apps/demo/chart fetches its dependency common from ${why.source}`)),
    });
  });

  it('pins nothing where charts/ vendors every dependency: Helm templates it as it is and Argo CD builds nothing', async () => {
    const repo = wrapper(charts.url, '^0.1.0');
    const helmEnv = helmHomes();
    mkdirSync(join(repo.root, 'apps/demo/chart/charts'));
    await output(env.HELM_BIN!, ['pull', 'common', '--repo', charts.url, '--version', '0.1.0', '--destination', join(repo.root, 'apps/demo/chart/charts')], {
      env: helmEnv,
    });
    expect(await pull(repo)).toBe(0);
    expect(readLock(repo.root).charts).toEqual([]);
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    expect(render!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'from 0.1.0' });
  });
});
