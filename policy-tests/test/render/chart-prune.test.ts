/**
 * `charts:pull --prune`: what the lock does not pin leaves the chart cache (an old version's archive and its
 * unpackings, a chart no Application pins, unpackings other rules made), and what it pins, a scratch unpacking that
 * may be another run's, and anything the cache did not write stay.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create as tarCreate } from 'tar';
import { main as pullMain, pullCharts } from '../../../scripts/charts-pull.ts';
import { unpackedFolder, UNPACKING_RULES } from '../../render/chart-extract.ts';
import { cachedChartPath, CHART_LOCK_FILE, chartCacheDir, digestOf, formatLock, type ChartRef } from '../../render/charts.ts';
import { chartApp, fixtureRepo, type FixtureRepo } from '../../../test-support/render-fixtures.ts';

const REPO = 'https://charts.example.com';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'chart-prune-'));
  env = { ...process.env, HOMELAB_CACHE_DIR: join(dir, 'cache') };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A chart's archive made and put in the cache where charts:pull puts it; its digest. */
async function cached(ref: ChartRef): Promise<string> {
  const src = join(dir, `src-${ref.chart}-${ref.version}`);
  mkdirSync(join(src, ref.chart, 'templates'), { recursive: true });
  writeFileSync(join(src, ref.chart, 'Chart.yaml'), `apiVersion: v2\nname: ${ref.chart}\nversion: ${ref.version}\n`);
  const archive = cachedChartPath(ref, env);
  mkdirSync(dirname(archive), { recursive: true });
  await tarCreate({ gzip: true, cwd: src, file: archive, portable: true }, [ref.chart]);
  return digestOf(readFileSync(archive));
}

/** A repository pinning `refs`, its lock recording each cached archive's digest. */
async function pinning(refs: ChartRef[]): Promise<FixtureRepo> {
  const repo = fixtureRepo();
  const charts = [];
  for (const ref of refs) {
    repo.write(`apps/${ref.chart}/application.yaml`, chartApp(ref.chart, ref));
    charts.push({ ...ref, digest: await cached(ref) });
  }
  repo.write(CHART_LOCK_FILE, formatLock({ charts }));
  return repo;
}

/** `npm run charts:pull -- --prune` in `repo`, which must exit 0: the lines it says about what it pruned. */
async function prunedLines(repo: FixtureRepo): Promise<string[]> {
  const lines: string[] = [];
  const io = { stdout: (text: string) => void lines.push(...text.trimEnd().split('\n')), stderr: () => undefined };
  expect(await pullMain(['--prune'], { ...env, HOMELAB_REPO_ROOT: repo.root }, io)).toBe(0);
  return lines.filter((l) => l.startsWith('pruned'));
}

describe('charts:pull --prune', () => {
  it('removes what the lock does not pin, keeps what it pins, a scratch unpacking and what the cache did not write, and says what it freed', async () => {
    const old = { repoURL: REPO, chart: 'demo', version: '0.9.0' };
    const gone = { repoURL: REPO, chart: 'retired', version: '1.0.0' };
    const oldDigest = await cached(old);
    await cached(gone);
    // The old version was pinned once: its unpackings are in the cache too, by this gate's rules and by older ones.
    await pullCharts({ root: (await pinning([old])).root, env, updateLock: false, out: () => undefined });
    expect(existsSync(unpackedFolder(env, oldDigest, 'argocd'))).toBe(true);
    const cacheDir = chartCacheDir(env);
    const legacy = join(cacheDir, '.extracted', oldDigest.replace(/^sha256:/, ''));
    mkdirSync(join(legacy, 'demo'), { recursive: true });
    mkdirSync(unpackedFolder(env, oldDigest, 'helm-pull', 'helm-4.2.3-expand.0'), { recursive: true });
    const scratch = `${unpackedFolder(env, 'sha256:feed', 'argocd')}.partial-x`;
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(cacheDir, 'notes.txt'), 'mine\n');

    const current = { repoURL: REPO, chart: 'demo', version: '1.0.0' };
    const repo = await pinning([current]);
    const hex = oldDigest.replace(/^sha256:/, '');
    const pruned = await prunedLines(repo);
    expect(pruned.slice(0, -1).sort()).toEqual(
      [
        `pruned   .expanded/helm-4.2.3-expand.0`,
        `pruned   .extracted/${UNPACKING_RULES.argocd}/${hex}`,
        `pruned   .extracted/${hex}`,
        `pruned   charts.example.com/demo-0.9.0.tgz`,
        `pruned   charts.example.com/retired-1.0.0.tgz`,
      ].sort(),
    );
    expect(pruned.at(-1)).toMatch(/^pruned   5 items the lock does not pin, 0\.\d MiB$/);
    const currentDigest = digestOf(readFileSync(cachedChartPath(current, env)));
    expect(existsSync(cachedChartPath(current, env))).toBe(true);
    expect(existsSync(join(unpackedFolder(env, currentDigest, 'argocd'), 'demo/Chart.yaml'))).toBe(true);
    expect([existsSync(scratch), existsSync(join(cacheDir, 'notes.txt'))]).toEqual([true, true]);

    // Pruned again, nothing is left to take.
    expect(await prunedLines(repo)).toEqual(['pruned   0 items the lock does not pin, 0.0 MiB']);
  });
});
