/**
 * What the render tier's test files share: the real Helm and kustomize beside a chart repository on 127.0.0.1 (its
 * demo and widgets charts published) and a render cache of their own, made before a file's tests and taken down
 * after them; the fixture repository that renders both charts, and a render of it. The bindings are live: a file that
 * calls useRenderLab() reads them in its tests.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { schemaLayer } from '../policy-tests/gate/pipeline.ts';
import { loadRepo } from '../policy-tests/model/repository/repo.ts';
import { renderRepo } from '../policy-tests/render/render.ts';
import { startChartRepo, toolEnv, type ChartRepo } from './chart-repo.ts';
import { chartApp, DEMO_CHART, fixtureRepo, WIDGETS_CHART, type FixtureRepo } from './render-fixtures.ts';

export let env: NodeJS.ProcessEnv;
export let charts: ChartRepo;
export let cache: string;

/** The chart repository and the cache for the calling file's tests, started before them and removed after. */
export function useRenderLab(): void {
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
}

/** The demo app (its values from $values) and the widgets app, each from the lab's chart repository. */
export function demoRepo(helm: Record<string, unknown> = { valueFiles: ['$values/apps/demo/values.yaml'] }): FixtureRepo {
  const repo = fixtureRepo();
  repo.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '1.0.0' }, helm));
  repo.write('apps/demo/values.yaml', 'greeting: hello from values\nwidgetSize: 3\n');
  repo.write('apps/widgets/application.yaml', chartApp('widgets', { repoURL: charts.url, chart: 'widgets', version: '2.0.0' }, {}, 'widgets'));
  return repo;
}

/** A fixture repository rendered by the render tier with the lab's tools and cache. */
export async function rendered(repo: FixtureRepo, extraEnv: NodeJS.ProcessEnv = {}) {
  const plain = await loadRepo(repo.root);
  const layer = await schemaLayer();
  return renderRepo(plain, { builtinApiVersions: layer.builtinApiVersions(), env: { ...env, ...extraEnv } });
}

/**
 * The real tool behind a script that notes each call's arguments, each call in a file of its own (the render tools'
 * environment is hermetic: the paths are written into the script). One shared file lost calls under load: a line of
 * a hundred --api-versions is more than one write, and two renders side by side interleaved theirs.
 */
export function countingTool(dir: string, name: string, real: string): { bin: string; calls(): string[][] } {
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
