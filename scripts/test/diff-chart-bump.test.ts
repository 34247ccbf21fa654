/**
 * A chart bump in the rendered diff: both sides rendered from a chart
 * repository of the test's own on 127.0.0.1 (real Helm), and what no rendered
 * line shows: the defaults that moved where this repository sets nothing, and
 * the keys it sets that the new version no longer reads.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { output } from '../../test-support/exec.ts';
import { startChartRepo, toolEnv, type ChartRepo } from '../../test-support/chart-repo.ts';
import { chartApp, fixtureRepo, repoApp, type FixtureRepo } from '../../test-support/render-fixtures.ts';
import { pullCharts } from '../charts-pull.ts';
import { main } from '../diff/command.ts';

const TEMPLATE =
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-cfg\n  namespace: {{ .Release.Namespace }}\ndata:\n  mode: {{ .Values.mode | quote }}\n  size: {{ .Values.sizing.size | quote }}\n';

let env: NodeJS.ProcessEnv;
let charts: ChartRepo;
let cache: string;

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'bump-cache-'));
  env = await toolEnv({ HOMELAB_CACHE_DIR: cache });
  charts = await startChartRepo(env);
  // 1.0.0 reads `legacy`; 1.1.0 drops it, changes two defaults and adds one.
  await charts.publish({
    name: 'gizmo',
    version: '1.0.0',
    values: { mode: 'safe', sizing: { size: 1, burst: 2 }, legacy: 'on', keep: 'same' },
    files: { 'templates/cm.yaml': TEMPLATE.replace('data:\n', 'data:\n  legacy: {{ .Values.legacy | quote }}\n') },
  });
  await charts.publish({
    name: 'gizmo',
    version: '1.1.0',
    values: { mode: 'fast', sizing: { size: 1, burst: 4 }, keep: 'same', fresh: true },
    files: { 'templates/cm.yaml': TEMPLATE },
  });
  await charts.publish({ name: 'gizmo', version: '2.0.0', values: { mode: 'fast', sizing: { size: 1, burst: 4 } }, files: { 'templates/cm.yaml': TEMPLATE } });
});

afterAll(async () => {
  await charts?.close();
  rmSync(cache, { recursive: true, force: true });
});

const git = (root: string, ...args: string[]) =>
  output('git', ['-c', 'user.email=t@example.net', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...args], { cwd: root });

const quiet = () => undefined;

/** charts:pull on the fixture, as CI pulls: what the lock records, and a version it lacks as the index publishes it. */
async function pulled(repo: FixtureRepo): Promise<void> {
  expect(await pullCharts({ root: repo.root, env, updateLock: false, verifyIndex: true, out: quiet })).toBe(0);
}

/** The fixture pulled and committed as main: the base the diff reads. */
async function committedBase(repo: FixtureRepo): Promise<void> {
  await pulled(repo);
  await git(repo.root, 'init', '-q', '-b', 'main');
  await git(repo.root, 'add', '-A');
  await git(repo.root, 'commit', '-q', '-m', 'base');
}

interface Report {
  chartBumps: unknown[];
  risks: { flag: string; reason: string; level: string }[];
}

/** The working tree pulled, and diffed against HEAD as JSON. */
async function diffed(repo: FixtureRepo): Promise<{ code: number; report: Report }> {
  await pulled(repo);
  let stdout = '';
  const code = await main(['HEAD', '-o', 'json'], { ...env, HOMELAB_REPO_ROOT: repo.root }, { stdout: (t) => void (stdout += t), stderr: quiet });
  return { code, report: JSON.parse(stdout) as Report };
}

describe('a chart bump in the rendered diff', () => {
  it('shows the defaults that moved where the repository sets nothing, and the keys it sets that the new version no longer reads', async () => {
    const repo = fixtureRepo();
    const app = (version: string) => chartApp('gizmo', { repoURL: charts.url, chart: 'gizmo', version }, { valueFiles: ['$values/apps/gizmo/values.yaml'] });
    repo.write('apps/gizmo/application.yaml', app('1.0.0'));
    // The repository sets the size and the legacy switch; the mode and the burst are the chart's.
    repo.write('apps/gizmo/values.yaml', 'sizing:\n  size: 3\nlegacy: off\n');
    await committedBase(repo);
    repo.write('apps/gizmo/application.yaml', app('1.1.0'));
    const { report } = await diffed(repo);
    expect(report.chartBumps).toEqual([
      {
        app: 'gizmo',
        chart: 'gizmo',
        from: '1.0.0',
        to: '1.1.0',
        defaults: [
          { path: 'fresh', to: 'true' },
          { path: 'mode', from: '"safe"', to: '"fast"' },
          { path: 'sizing.burst', from: '2', to: '4' },
        ],
        unread: ['legacy'],
      },
    ]);
    let md = '';
    await main(['HEAD', '-o', 'markdown'], { ...env, HOMELAB_REPO_ROOT: repo.root }, { stdout: (t) => void (md += t), stderr: quiet });
    expect(md).toContain(
      '<summary><code>gizmo</code>: gizmo 1.0.0 → 1.1.0: 3 default(s) changed where this repository sets nothing, 1 key(s) it sets no longer read</summary>',
    );
    expect(md).toContain('- **no longer read**: `legacy`');
    expect(md).toContain('- `mode`: `"safe"` → `"fast"`');
  });

  it("shows a wrapper chart's dependency bump the same way, under the dependency's key, and a major as a version to review", async () => {
    const repo = fixtureRepo();
    const chart = (version: string) =>
      `apiVersion: v2\nname: wrapper\nversion: 1.0.0\ndependencies:\n  - name: gizmo\n    version: ${version}\n    repository: ${charts.url}\n`;
    repo.write('apps/gizmo/chart/Chart.yaml', chart('1.0.0'));
    repo.write('apps/gizmo/chart/values.yaml', 'gizmo:\n  sizing:\n    size: 3\n  legacy: off\n');
    repo.write('apps/gizmo/application.yaml', repoApp('gizmo', '    path: apps/gizmo/chart'));
    await committedBase(repo);
    const bumped = async (version: string) => {
      repo.write('apps/gizmo/chart/Chart.yaml', chart(version));
      return diffed(repo);
    };
    const { code, report } = await bumped('1.1.0');
    expect(report.chartBumps).toEqual([
      expect.objectContaining({ app: 'gizmo', chart: 'gizmo', dependencyOf: 'apps/gizmo/chart', from: '1.0.0', to: '1.1.0', unread: ['legacy'] }),
    ]);
    expect(report.risks.filter((r) => r.flag === 'version')).toEqual([
      expect.objectContaining({ level: 'note', reason: 'Application gizmo: chart gizmo, a dependency of the chart at apps/gizmo/chart, 1.0.0 -> 1.1.0' }),
    ]);
    expect(code).toBe(0);
    // The next major: a version a person reviews (exit 3), as an Application's own chart; and where the wrapper's
    // Application says its chart upgrades one minor at a time, a step the chart does not take, as for its own chart.
    await git(repo.root, 'commit', '-q', '-am', '1.1.0');
    const annotated = repoApp('gizmo', '    path: apps/gizmo/chart').replace(
      '  namespace: argocd\n',
      "  namespace: argocd\n  annotations:\n    gate.homelab-gitops/upgrades-one-minor-at-a-time: gizmo's guide starts from the minor before\n",
    );
    repo.write('apps/gizmo/application.yaml', annotated);
    await git(repo.root, 'commit', '-q', '-am', 'one minor at a time');
    const major = await bumped('2.0.0');
    expect(major.report.risks.filter((r) => r.flag === 'version' || r.flag === 'upgrade')).toEqual([
      expect.objectContaining({
        flag: 'upgrade',
        level: 'review',
        reason:
          "Application gizmo: chart gizmo, a dependency of the chart at apps/gizmo/chart, 1.1.0 -> 2.0.0 moves to another major, and this chart upgrades one minor at a time (gizmo's guide starts from the minor before)",
      }),
      expect.objectContaining({
        flag: 'version',
        level: 'review',
        reason: 'Application gizmo: chart gizmo, a dependency of the chart at apps/gizmo/chart, 1.1.0 -> 2.0.0 (a major version)',
      }),
    ]);
    expect(major.code).toBe(3);
  });

  it('shows a bump of one of two aliases of a chart, under its alias, where the other stays', async () => {
    const repo = fixtureRepo();
    const dependency = (alias: string, version: string) => `  - name: gizmo\n    version: ${version}\n    repository: ${charts.url}\n    alias: ${alias}\n`;
    const chart = (b: string) => `apiVersion: v2\nname: wrapper\nversion: 1.0.0\ndependencies:\n${dependency('small', '1.0.0')}${dependency('large', b)}`;
    repo.write('apps/gizmo/chart/Chart.yaml', chart('1.0.0'));
    repo.write('apps/gizmo/chart/values.yaml', 'small:\n  sizing:\n    size: 1\nlarge:\n  sizing:\n    size: 9\n');
    repo.write('apps/gizmo/application.yaml', repoApp('gizmo', '    path: apps/gizmo/chart'));
    await committedBase(repo);
    repo.write('apps/gizmo/chart/Chart.yaml', chart('1.1.0'));
    const { report } = await diffed(repo);
    expect(report.chartBumps).toEqual([expect.objectContaining({ chart: 'gizmo', alias: 'large', from: '1.0.0', to: '1.1.0' })]);
    expect(report.risks.filter((r) => r.flag === 'version').map((r) => r.reason)).toEqual([
      'Application gizmo: chart gizmo (as large), a dependency of the chart at apps/gizmo/chart, 1.0.0 -> 1.1.0',
    ]);
  });
});
