/**
 * A wrapper chart's render, its dependency fetched by Helm's build as Argo CD's: a warm run runs no Helm, the build
 * starts from the lock's archive and never from what a local build left in charts/, a key of the wrapper's values that
 * its dependency neither declares nor reads is named, and a dependency taken twice under two aliases renders each
 * with its own values. How it is pinned and pulled: helm-fetched-dependencies.test.ts.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRepo } from '../../model/repository/repo.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { renderRepo } from '../../render/render.ts';
import { startChartRepo } from '../../../test-support/chart-repo.ts';
import { output } from '../../../test-support/exec.ts';
import { checkFindings } from '../../../test-support/gate-findings.ts';
import { chartApp, fixtureRepo, repoApp } from '../../../test-support/render-fixtures.ts';
import { charts, common, configMap, dataByName, env, helmHomes, pull, renderAll, useFetchedDepsLab, wrapper } from '../support/fetched-deps.ts';

useFetchedDepsLab();

describe('the render of a chart whose dependency comes from a chart repository', () => {
  it('builds only when the render is not in the cache: a warm run runs no helm at all', async () => {
    const repo = wrapper(charts.url, '0.1.0');
    // A chart no other test of this file renders: the first render is not in the cache they share.
    repo.write('apps/demo/chart/templates/own.yaml', configMap('own', 'warm'));
    expect(await pull(repo)).toBe(0);
    // Helm, wrapped to say what it was asked to do.
    const dir = mkdtempSync(join(tmpdir(), 'fetched-deps-helm-log-'));
    const log = join(dir, 'calls');
    const wrapped = join(dir, 'helm');
    writeFileSync(wrapped, `#!/bin/sh\necho "$1 $2" >> '${log}'\nexec '${env.HELM_BIN}' "$@"\n`, { mode: 0o755 });
    const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []);
    const rendered = async () => {
      const layer = await schemaLayer();
      const { renders } = await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env: { ...env, HELM_BIN: wrapped } });
      return renders[0]!;
    };
    expect(await rendered()).toMatchObject({ status: 'rendered' });
    expect(calls()).toContain('dependency build');
    rmSync(log);
    expect(await rendered()).toMatchObject({ status: 'rendered' });
    expect(calls().filter((c) => c !== 'version --template')).toEqual([]);
  });

  it("renders from the lock's archive, as Argo CD's clean checkout builds it, never from what a local build left in charts/, which git ignores", async () => {
    const repo = wrapper(charts.url, '0.1.0');
    expect(await pull(repo)).toBe(0);
    repo.write('apps/demo/chart/.gitignore', 'charts/\n');
    const git = (...args: string[]) =>
      output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: repo.root });
    await git('init', '-q', '-b', 'main');
    await git('add', '-A');
    await git('commit', '-q', '-m', 'wrapper');
    // A person's own `helm dependency update` of another day: 0.2.0 in charts/, which git ignores.
    mkdirSync(join(repo.root, 'apps/demo/chart/charts'));
    await output(env.HELM_BIN!, ['pull', 'common', '--repo', charts.url, '--version', '0.2.0', '--destination', join(repo.root, 'apps/demo/chart/charts')], {
      env: helmHomes(),
    });
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    expect(render!.resources.find((r) => r.name === 'shared')!.object.data).toEqual({ value: 'from 0.1.0' });
  });

  it("names a key of the wrapper's values.yaml that its dependency neither declares nor reads, where Helm ignores it", async () => {
    const repo = wrapper(charts.url, '0.1.0');
    repo.write('apps/demo/chart/values.yaml', 'common:\n  value: kept\n  valeu: typo\nown: true\n');
    expect(await pull(repo)).toBe(0);
    const findings = await checkFindings('helm-values-unused', { root: repo.root, env });
    expect(findings).toEqual([
      'apps/demo/chart/values.yaml:3 common.valeu: the common chart, a dependency of wrapper (chart at apps/demo/chart), neither declares this key in its values nor reads it in any template, so Helm ignores it (did you mean "value"?)',
    ]);
  });

  it('renders a chart it depends on twice under two aliases, each with the values under its own key, and names a typo under the second', async () => {
    const own = await startChartRepo(env, { https: true });
    const repo = fixtureRepo();
    const dependency = (alias: string) => `  - name: common\n    version: 0.3.0\n    repository: "${own.url}"\n    alias: ${alias}\n`;
    repo.write('apps/demo/chart/Chart.yaml', `apiVersion: v2\nname: wrapper\nversion: 1.0.0\ndependencies:\n${dependency('one')}${dependency('two')}`);
    repo.write('apps/demo/chart/values.yaml', 'one:\n  value: first\ntwo:\n  value: second\n  valeu: typo\n');
    repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo/chart'));
    try {
      // Helm names each copy by its alias (.Chart.Name), and its lock lists the dependency twice, in order.
      await own.publish({ ...common('0.3.0'), files: { 'templates/shared.yaml': configMap('{{ .Chart.Name }}', '{{ .Values.value | quote }}') } });
      const copy = mkdtempSync(join(tmpdir(), 'fetched-deps-alias-'));
      cpSync(join(repo.root, 'apps/demo/chart'), copy, { recursive: true });
      await output(env.HELM_BIN!, ['dependency', 'update', copy], { env: { ...helmHomes(), SSL_CERT_FILE: own.certFile } });
      repo.write('apps/demo/chart/Chart.lock', readFileSync(join(copy, 'Chart.lock'), 'utf8'));
      expect(await pull(repo, { env: { ...env, SSL_CERT_FILE: own.certFile } })).toBe(0);
    } finally {
      await own.close();
    }
    const [render] = await renderAll(repo);
    expect(render, render?.message).toMatchObject({ status: 'rendered' });
    expect(dataByName(render!.resources.map((r) => r.object))).toEqual({ one: { value: 'first' }, two: { value: 'second' } });
    expect(await checkFindings('helm-values-unused', { root: repo.root, env })).toEqual([
      'apps/demo/chart/values.yaml:5 two.valeu: the common chart, a dependency of wrapper (chart at apps/demo/chart), neither declares this key in its values nor reads it in any template, so Helm ignores it (did you mean "value"?)',
    ]);
  });

  it('fails a value file the chart archive lacks, as Argo CD does, and leaves one it holds not rendered (the gate reads values from this repository)', async () => {
    const repo = fixtureRepo();
    const app = (name: string, helm: Record<string, unknown>) =>
      repo.write(`apps/${name}/application.yaml`, chartApp(name, { repoURL: charts.url, chart: 'common', version: '0.1.0' }, helm));
    app('missing', { valueFiles: ['values-prod.yaml'] });
    app('held', { valueFiles: ['values.yaml'] });
    app('ignored', { valueFiles: ['values-prod.yaml'], ignoreMissingValueFiles: true });
    expect(await pull(repo)).toBe(0);
    const byApp = Object.fromEntries((await renderAll(repo)).map((r) => [r.app.name, r]));
    expect(byApp.missing).toMatchObject({
      status: 'failed',
      message: expect.stringContaining('value file values-prod.yaml is neither a file of this repository'),
    });
    expect(byApp.held).toMatchObject({ status: 'not-rendered', message: expect.stringContaining('lies inside the chart archive') });
    expect(byApp.ignored, byApp.ignored?.message).toMatchObject({ status: 'rendered' });
  });
});
