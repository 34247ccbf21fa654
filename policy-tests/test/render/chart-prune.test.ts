/**
 * `charts:pull --prune`: what the lock does not pin leaves the chart cache (an old version's archive and its
 * unpackings, a chart no Application pins, unpackings other rules made), and what it pins, a scratch unpacking that
 * may be another run's, and anything the cache did not write stay.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { create as tarCreate } from 'tar';
import { main as pullMain, pullCharts } from '../../../scripts/charts-pull.ts';
import { unpackedFolder, UNPACKING_RULES } from '../../render/chart-extract.ts';
import { cachedChartPath, CHART_LOCK_FILE, chartCacheDir, digestOf, formatLock, type ChartRef } from '../../render/charts.ts';
import { chartApp, fixtureRepo, type FixtureRepo } from '../../../test-support/render-fixtures.ts';
import { toolEnv } from '../../../test-support/chart-repo.ts';
import { exec } from '../../../test-support/exec.ts';
import { schemaLayer } from '../../gate/pipeline.ts';
import { loadRepo, REPO_ROOT } from '../../model/repository/repo.ts';
import { renderRepo } from '../../render/render.ts';

const REPO = 'https://charts.example.com';
const hexOf = (digest: string) => digest.replace(/^sha256:/, '');
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
  // One time for every entry, so the same chart made twice is the same bytes, however slow the machine.
  await tarCreate({ gzip: true, cwd: src, file: archive, portable: true, mtime: new Date(0) }, [ref.chart]);
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
async function prunedLinesIn(repo: FixtureRepo, inEnv: NodeJS.ProcessEnv): Promise<string[]> {
  const lines: string[] = [];
  const io = { stdout: (text: string) => void lines.push(...text.trimEnd().split('\n')), stderr: () => undefined };
  expect(await pullMain(['--prune'], { ...inEnv, HOMELAB_REPO_ROOT: repo.root }, io)).toBe(0);
  return lines.filter((l) => l.startsWith('pruned'));
}
const prunedLines = (repo: FixtureRepo) => prunedLinesIn(repo, env);

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
    const legacy = join(cacheDir, '.extracted', hexOf(oldDigest));
    mkdirSync(join(legacy, 'demo'), { recursive: true });
    mkdirSync(unpackedFolder(env, oldDigest, 'helm-pull', 'helm-4.2.3-expand.0'), { recursive: true });
    const scratch = `${unpackedFolder(env, 'sha256:feed', 'argocd')}.partial-x`;
    mkdirSync(scratch, { recursive: true });
    writeFileSync(join(cacheDir, 'notes.txt'), 'mine\n');
    // The first layout's extractions, under the cache root, which no gate reads any more.
    mkdirSync(join(dir, 'cache/extracted', hexOf(oldDigest), 'demo'), { recursive: true });
    writeFileSync(join(dir, 'cache/extracted', hexOf(oldDigest), 'demo/Chart.yaml'), 'name: demo\n');
    mkdirSync(join(dir, 'cache/extracted', hexOf(digestOf(Buffer.from('other'))), 'demo'), { recursive: true });

    const current = { repoURL: REPO, chart: 'demo', version: '1.0.0' };
    const repo = await pinning([current]);
    const hex = hexOf(oldDigest);
    const pruned = await prunedLines(repo);
    expect(pruned.slice(0, -1).sort()).toEqual(
      [
        `pruned   .expanded/helm-4.2.3-expand.0`,
        `pruned   .extracted/${UNPACKING_RULES.argocd}/${hex}`,
        `pruned   .extracted/${hex}`,
        `pruned   charts.example.com/demo-0.9.0.tgz`,
        `pruned   charts.example.com/retired-1.0.0.tgz`,
        `pruned   extracted/: 2 entries, chart extractions of an older gate's layout, which no gate reads`,
      ].sort(),
    );
    expect(pruned.at(-1)).toMatch(/^pruned   7 items in all, 0\.\d MiB$/);
    expect(existsSync(join(dir, 'cache/extracted'))).toBe(false);
    const currentDigest = digestOf(readFileSync(cachedChartPath(current, env)));
    expect(existsSync(cachedChartPath(current, env))).toBe(true);
    expect(existsSync(join(unpackedFolder(env, currentDigest, 'argocd'), 'demo/Chart.yaml'))).toBe(true);
    expect([existsSync(scratch), existsSync(join(cacheDir, 'notes.txt'))]).toEqual([true, true]);

    // Pruned again, nothing is left to take.
    expect(await prunedLines(repo)).toEqual(['pruned   0 items in all, 0.0 MiB']);
  });

  it("leaves what the older gate did not write in a folder of its name: a cache root that is a folder of the user's loses nothing", async () => {
    const home = join(dir, 'home');
    mkdirSync(join(home, 'extracted/holiday'), { recursive: true });
    writeFileSync(join(home, 'extracted/holiday/beach.jpg'), 'jpeg\n');
    writeFileSync(join(home, 'extracted/notes.txt'), 'mine\n');
    mkdirSync(join(home, 'extracted', hexOf(digestOf(Buffer.from('chart'))), 'demo'), { recursive: true });
    const lines = await prunedLinesIn(await pinning([]), { ...env, HOMELAB_CACHE_DIR: home });
    expect(lines).toEqual([
      `pruned   extracted/: 1 entry, chart extractions of an older gate's layout, which no gate reads`,
      expect.stringMatching(/^pruned   1 item in all/),
    ]);
    expect(readdirSync(join(home, 'extracted')).sort()).toEqual(['holiday', 'notes.txt']);
    expect(readFileSync(join(home, 'extracted/holiday/beach.jpg'), 'utf8')).toBe('jpeg\n');
  });

  it("takes out of the render tier's caches what no run has read for 30 days, and a run's read marks what it reads", async () => {
    const renderEnv = await toolEnv({ HOMELAB_CACHE_DIR: join(dir, 'render-cache') });
    const repo = await pinning([{ repoURL: REPO, chart: 'probe', version: '1.0.0' }]);
    // The chart renders one ConfigMap; the chart's archive is in this cache too.
    writeFileSync(join(dir, 'src-probe-1.0.0/probe/templates/cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe\n');
    await tarCreate({ gzip: true, cwd: join(dir, 'src-probe-1.0.0'), file: join(dir, 'probe.tgz'), portable: true }, ['probe']);
    const ref = { repoURL: REPO, chart: 'probe', version: '1.0.0' };
    mkdirSync(dirname(cachedChartPath(ref, renderEnv)), { recursive: true });
    writeFileSync(cachedChartPath(ref, renderEnv), readFileSync(join(dir, 'probe.tgz')));
    repo.write(CHART_LOCK_FILE, formatLock({ charts: [{ ...ref, digest: digestOf(readFileSync(join(dir, 'probe.tgz'))) }] }));
    const layer = await schemaLayer();
    const result = await renderRepo(await loadRepo(repo.root), { builtinApiVersions: layer.builtinApiVersions(), env: renderEnv });
    expect(result.renders.map((r) => r.status)).toEqual(['rendered']);
    const entries = (folder: string) => readdirSync(join(dir, 'render-cache', folder)).map((name) => join(dir, 'render-cache', folder, name));
    const written = [...entries('renders'), ...entries('scopes')];
    expect(written.length).toBeGreaterThan(1);
    // Left unread 31 days, then read by a run: marked read, so kept.
    const monthAgo = new Date(Date.now() - 31 * 24 * 60 * 60 * 1000);
    for (const file of written) utimesSync(file, monthAgo, monthAgo);
    // A run in a process of its own (this one keeps what it read in memory) renders the same and reads them from disk.
    const here = (path: string) => JSON.stringify(join(REPO_ROOT, 'policy-tests', path));
    const run = await exec(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { renderRepo } = await import(${here('render/render.ts')});
         const { loadRepo } = await import(${here('model/repository/repo.ts')});
         const { schemaLayer } = await import(${here('gate/pipeline.ts')});
         const layer = await schemaLayer();
         const result = await renderRepo(await loadRepo(process.env.PRUNED_REPO), { builtinApiVersions: layer.builtinApiVersions(), env: process.env });
         console.log(result.renders.map((r) => r.status).join(' '));`,
      ],
      { env: { ...renderEnv, PRUNED_REPO: repo.root } },
    );
    expect(run.stdout.trim(), run.stderr).toBe('rendered');
    for (const file of written) expect(statSync(file).mtimeMs, file).toBeGreaterThan(monthAgo.getTime() + 1000);
    // Left unread 31 days again, with an entry of a render no lock pins any more beside them: all of them go.
    writeFileSync(join(dir, 'render-cache/renders/0ld.json'), '{}');
    for (const file of [...written, join(dir, 'render-cache/renders/0ld.json')]) utimesSync(file, monthAgo, monthAgo);
    const fresh = join(dir, 'render-cache/scopes/fresh.json');
    writeFileSync(fresh, '{}');
    const lines = await prunedLinesIn(repo, renderEnv);
    const said = (folder: string, n: number) => `pruned   ${folder}/: ${n} ${n === 1 ? 'entry' : 'entries'} no run read for 30 days`;
    expect(lines.filter((l) => l.includes('no run read'))).toEqual([
      said('renders', written.filter((f) => f.includes('/renders/')).length + 1),
      said('scopes', written.filter((f) => f.includes('/scopes/')).length),
    ]);
    expect(entries('renders')).toEqual([]);
    expect(entries('scopes')).toEqual([fresh]);
  });
});
