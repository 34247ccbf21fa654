/**
 * The render tier's part of npm run bench:validate: the full gate on a
 * repository with every chart cached, cold (an empty render cache: every
 * source rendered twice with the real Helm, for the determinism check) and
 * warm (every render served from the cache), beside a parse-only load of
 * the same tree. Needs the charts in the cache (npm run charts:pull); it
 * says so and measures nothing when any is missing.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runGate, clearParseCache, loadRepo, charts, render } from '../policy-tests/index.ts';

async function ms(fn: () => Promise<unknown>): Promise<number> {
  clearParseCache();
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function renderSection(root: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const repo = await loadRepo(root);
  const pinned = charts.pinnedCharts(repo);
  const missing = pinned.filter((c) => !existsSync(charts.cachedChartPath(c, env)));
  if (missing.length) {
    console.log(`render tier: skipped, ${missing.length} of ${pinned.length} charts are not cached (npm run charts:pull)`);
    return;
  }
  const { helm, kubectl } = await render.pinnedBinaries(env);
  const cache = mkdtempSync(join(tmpdir(), 'bench-render-'));
  try {
    cpSync(charts.chartCacheDir(env), join(cache, 'charts'), { recursive: true });
    const benchEnv = { ...env, HOMELAB_CACHE_DIR: cache, HOMELAB_CHART_CACHE: '', HELM_BIN: helm, KUSTOMIZE_BIN: kubectl };
    const gate = (render: boolean) => runGate({ root, cwd: root, env: benchEnv, render });
    await gate(false); // warm-up: JIT, field trees, validators
    const parse = await ms(() => loadRepo(root));
    const files = await ms(() => gate(false));
    const cold = await ms(() => gate(true));
    const warm: number[] = [];
    for (let i = 0; i < 5; i++) warm.push(await ms(() => gate(true)));
    const w = warm.sort((a, b) => a - b)[2]!;
    const result = await gate(true);
    console.log(
      `render tier: ${pinned.length} charts cached, ${result.resources.length} resources checked (${result.summary.notRendered} sources not rendered)`,
    );
    console.log(`  parse only:                         ${parse.toFixed(0).padStart(6)} ms`);
    console.log(`  gate without rendering (--no-render): ${files.toFixed(0).padStart(4)} ms  ${(files / parse).toFixed(2)}x parse`);
    console.log(`  gate, cold render cache:            ${cold.toFixed(0).padStart(6)} ms  ${(cold / parse).toFixed(2)}x parse`);
    console.log(`  gate, warm render cache (median 5): ${w.toFixed(0).padStart(6)} ms  ${(w / parse).toFixed(2)}x parse`);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
}
