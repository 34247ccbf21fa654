/**
 * The lab of the wrapper-chart tests (render/helm-fetched-*.test.ts): a chart repository serving `common` 0.1.0 and
 * 0.2.0, a chart cache and the render tools, a wrapper chart at a path whose dependency it serves, and the pulls and
 * renders the tests run on it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { pullCharts } from '../../../scripts/charts-pull.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';
import { startChartRepo, toolEnv, type ChartRepo, type ChartSpec } from '../../../test-support/chart-repo.ts';
import { fixtureRepo, repoApp, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

/** The lab's tool environment, chart cache and chart repository (common 0.1.0 and 0.2.0), set before a file's tests. */
export let env: NodeJS.ProcessEnv;
export let cache: string;
export let charts: ChartRepo;

export const configMap = (name: string, value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: ${value}\n`;

export const common = (version: string): ChartSpec => ({
  name: 'common',
  version,
  values: { value: `from ${version}` },
  files: { 'templates/shared.yaml': configMap('shared', '{{ .Values.value | quote }}') },
});

/** The lab for the file that calls it: started before its tests, removed after them. */
export function useFetchedDepsLab(): void {
  beforeAll(async () => {
    cache = mkdtempSync(join(tmpdir(), 'fetched-deps-cache-'));
    env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
    charts = await startChartRepo(env);
    await charts.publish(common('0.1.0'));
    await charts.publish(common('0.2.0'));
  });

  afterAll(async () => {
    await charts?.close();
    rmSync(cache, { recursive: true, force: true });
  });
}

/** A wrapper chart at apps/demo/chart whose one dependency, common, comes from `repository` at `version`. */
export function wrapper(repository: string, version: string): FixtureRepo {
  const repo = fixtureRepo();
  repo.write(
    'apps/demo/chart/Chart.yaml',
    `apiVersion: v2\nname: wrapper\nversion: 1.0.0\ndependencies:\n  - name: common\n    version: "${version}"\n    repository: "${repository}"\n`,
  );
  repo.write('apps/demo/chart/templates/own.yaml', configMap('own', 'wrapper'));
  repo.write('apps/demo/application.yaml', repoApp('demo', '    path: apps/demo/chart'));
  return repo;
}

export const lines: string[] = [];
export const pull = (repo: FixtureRepo, o: { updateLock?: boolean; verifyIndex?: boolean; env?: NodeJS.ProcessEnv } = {}) =>
  pullCharts({ root: repo.root, env: o.env ?? env, updateLock: o.updateLock ?? false, verifyIndex: o.verifyIndex, out: (l) => lines.push(l) });

export async function renderAll(repo: FixtureRepo) {
  const layer = await schemaLayer();
  const { renders } = await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env });
  return renders;
}

export const dataByName = (objects: { metadata?: { name?: string }; data?: unknown }[]) =>
  Object.fromEntries(objects.map((o) => [o.metadata?.name, o.data]).sort(([a], [b]) => String(a).localeCompare(String(b))));

/** Helm's own homes for a run of the real tool outside the gate: never the user's. */
export function helmHomes(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'fetched-deps-helm-'));
  return { ...env, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') };
}
