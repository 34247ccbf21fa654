/**
 * charts:pull and the chart lock against a chart repository on 127.0.0.1, with the real Helm 4: the lock's digests,
 * --frozen, --verify-index against the published index, --mirror, and the command's contract.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatLock, readLock } from '../../render/charts.ts';
import { UNPACKING_RULES } from '../../render/chart-extract.ts';
import { main as pullMain, pullCharts } from '../../../scripts/charts-pull.ts';
import { pullArgs } from '../../render/chart-pull.ts';
import { chartApp, fixtureRepo, WIDGETS_CHART } from '../../../test-support/render-fixtures.ts';
import { charts, demoRepo, env, rendered, useRenderLab } from '../../../test-support/render-lab.ts';

useRenderLab();

const lines: string[] = [];
const out = (line: string) => lines.push(line);

describe('charts:pull and the lock', () => {
  it('--frozen refuses a chart the lock does not record and never writes the lock, as CI runs it', async () => {
    const repo = demoRepo();
    const frozenCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, frozen: true, out })).toBe(2);
    expect(lines).toEqual([
      expect.stringMatching(/^REFUSED  demo 1\.0\.0 from .*: not in charts\.lock\.json, and --frozen records nothing/),
      expect.stringMatching(/^REFUSED  widgets 2\.0\.0/),
    ]);
    expect(readLock(repo.root).charts).toEqual([]);
    // Once a person has locked them, --frozen pulls them, checked against the lock.
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, out })).toBe(0);
    // Each chart held to the lock is extracted beside the archives, as the render tier renders it (chart-extract.ts).
    const locked = readLock(repo.root).charts;
    expect(locked).toHaveLength(2);
    const extractions = join(frozenCache, 'charts', '.extracted', UNPACKING_RULES.argocd);
    expect(readdirSync(extractions).sort()).toEqual(locked.map((c) => c.digest.replace(/^sha256:/, '')).sort());
    for (const c of locked) expect(existsSync(join(extractions, c.digest.replace(/^sha256:/, ''), c.chart, 'Chart.yaml'))).toBe(true);
    rmSync(join(frozenCache, 'charts'), { recursive: true, force: true });
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: frozenCache }, updateLock: false, frozen: true, out })).toBe(0);
    rmSync(frozenCache, { recursive: true, force: true });
  });

  it('--verify-index records a version the lock lacks only when its archive is the digest its repository publishes, and refuses other bytes', async () => {
    const repo = demoRepo();
    const cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    try {
      lines.length = 0;
      expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, verifyIndex: true, out })).toBe(0);
      expect(lines).toEqual([expect.stringMatching(/^verified demo 1\.0\.0 from .* sha256:/), expect.stringMatching(/^verified widgets 2\.0\.0/)]);
      expect(readLock(repo.root).charts.map((c) => c.chart)).toEqual(['demo', 'widgets']);
      // The same version served with other bytes than its index publishes (a compromised host): refused, never recorded.
      const tampered = fixtureRepo();
      tampered.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '1.0.0' }, {}));
      const archive = join(charts.dir, 'demo-1.0.0.tgz');
      const genuine = readFileSync(archive);
      writeFileSync(archive, readFileSync(join(charts.dir, 'widgets-2.0.0.tgz')));
      const fresh = mkdtempSync(join(tmpdir(), 'render-cache-'));
      try {
        lines.length = 0;
        expect(await pullCharts({ root: tampered.root, env: { ...env, HOMELAB_CACHE_DIR: fresh }, updateLock: false, verifyIndex: true, out })).toBe(1);
        expect(lines).toEqual([
          expect.stringMatching(
            /^REFUSED  demo 1\.0\.0 from .*: its archive has digest sha256:\w+, but its repository's index\.yaml publishes sha256:\w+: the bytes served are not the ones published$/,
          ),
        ]);
        expect(readLock(tampered.root).charts).toEqual([]);
      } finally {
        writeFileSync(archive, genuine);
        rmSync(fresh, { recursive: true, force: true });
      }
      // A version its repository does not list is refused too, in one line.
      const unknown = fixtureRepo();
      unknown.write('apps/demo/application.yaml', chartApp('demo', { repoURL: charts.url, chart: 'demo', version: '9.9.9' }, {}));
      lines.length = 0;
      expect(await pullCharts({ root: unknown.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, verifyIndex: true, out })).toBe(1);
      expect(lines).toEqual([expect.stringMatching(/^(?:FAILED|REFUSED) +demo 9\.9\.9 .*not found/)]);
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
  });

  it('names a pending chart in one line under --frozen, and a pull with network records its digest and drops the pending line', async () => {
    const repo = demoRepo();
    const cache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const demo = { repoURL: charts.url, chart: 'demo', version: '1.0.0' };
    repo.write('charts.lock.json', formatLock({ charts: [], pending: [{ ...demo, reason: 'its index was not readable offline' }] }));
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: false, frozen: true, out })).toBe(2);
    expect(lines[0]).toMatch(
      /^PENDING  demo 1\.0\.0 from .*: charts\.lock\.json has no digest for it yet \(its index was not readable offline\); a person with network runs npm run charts:pull -- --update-lock/,
    );
    expect(readLock(repo.root).pending).toHaveLength(1);
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: cache }, updateLock: true, out })).toBe(0);
    const lock = readLock(repo.root);
    expect(lock.pending).toBeUndefined();
    expect(lock.charts.map((c) => c.chart)).toEqual(['demo', 'widgets']);
    rmSync(cache, { recursive: true, force: true });
  });

  it('records each digest on first pull, keeps cached charts, refuses a changed archive, and re-records with --update-lock', async () => {
    const repo = demoRepo();
    expect(await pullCharts({ root: repo.root, env, updateLock: false, out })).toBe(0);
    const lock = readLock(repo.root);
    expect(lock.charts.map((c) => `${c.chart}@${c.version}`)).toEqual(['demo@1.0.0', 'widgets@2.0.0']);
    expect(lock.charts[0]!.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env, updateLock: false, out })).toBe(0);
    expect(lines.every((l) => l.startsWith('cached'))).toBe(true);

    // The same version published again with other content: refused, and the cache keeps the locked archive.
    const otherCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    await charts.publish({ ...WIDGETS_CHART, values: { changed: true } });
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: otherCache }, updateLock: false, out })).toBe(1);
    expect(lines.find((l) => l.startsWith('REFUSED'))).toMatch(
      /widgets 2\.0\.0 .* its archive has digest sha256:\w+, but charts\.lock\.json records sha256:\w+/,
    );
    expect(await pullCharts({ root: repo.root, env: { ...env, HOMELAB_CACHE_DIR: otherCache }, updateLock: true, out })).toBe(0);
    expect(readLock(repo.root).charts[1]!.digest).not.toBe(lock.charts[1]!.digest);
    await charts.publish(WIDGETS_CHART);
    rmSync(otherCache, { recursive: true, force: true });
  });

  it('--mirror pulls every chart by name and version from one repository when the repoURLs cannot be reached', async () => {
    const repo = fixtureRepo();
    // Port 9 (discard) on loopback: nothing listens, so only the mirror can serve the chart.
    repo.write('apps/demo/application.yaml', chartApp('demo', { repoURL: 'http://127.0.0.1:9/charts', chart: 'demo', version: '1.0.0' }));
    const mirrorCache = mkdtempSync(join(tmpdir(), 'render-cache-'));
    const mirrorEnv = { ...env, HOMELAB_CACHE_DIR: mirrorCache };
    lines.length = 0;
    expect(await pullCharts({ root: repo.root, env: mirrorEnv, updateLock: false, out })).toBe(1);
    expect(lines).toEqual([expect.stringMatching(/^FAILED   demo 1\.0\.0 from http:\/\/127\.0\.0\.1:9\/charts: helm pull: Error: .*connection refused/)]);
    expect(await pullCharts({ root: repo.root, env: mirrorEnv, mirror: charts.url, updateLock: false, out })).toBe(0);
    expect(readLock(repo.root).charts).toEqual([expect.objectContaining({ repoURL: 'http://127.0.0.1:9/charts', chart: 'demo', version: '1.0.0' })]);
    const result = await rendered(repo, { HOMELAB_CACHE_DIR: mirrorCache });
    expect(result.renders.map((r) => r.status)).toEqual(['rendered']);
    rmSync(mirrorCache, { recursive: true, force: true });
  });
});

describe('npm run charts:pull', () => {
  it('--help exits 0, a wrong flag exits 2 in one line', async () => {
    let stdout = '';
    let stderr = '';
    const io = { stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t) };
    expect(await pullMain(['--help'], env, io)).toBe(0);
    expect(stdout).toMatch(/^usage: charts:pull \[--mirror URL\] \[--update-lock \| --frozen \| --verify-index\]/);
    expect(await pullMain(['--mirrors', 'x'], env, io)).toBe(2);
    expect(stderr.trim().split('\n')).toEqual([expect.stringMatching(/^charts:pull: Unknown option '--mirrors'/)]);
    stderr = '';
    expect(await pullMain(['--frozen', '--verify-index'], env, io)).toBe(2);
    expect(stderr).toMatch(/^charts:pull: --frozen and --verify-index contradict each other \(usage: [^\n]*\)\n$/);
  });
});

describe('pull arguments', () => {
  const ref = { repoURL: 'https://charts.example.org/stable', chart: 'demo', version: '1.0.0' };
  it('pulls from a chart repository over HTTP by name, and from an OCI registry by reference', () => {
    expect(pullArgs(ref, '/tmp/d')).toEqual(['pull', 'demo', '--repo', 'https://charts.example.org/stable', '--version', '1.0.0', '--destination', '/tmp/d']);
    expect(pullArgs({ ...ref, repoURL: 'oci://ghcr.io/example/charts' }, '/tmp/d')).toEqual([
      'pull',
      'oci://ghcr.io/example/charts/demo',
      '--version',
      '1.0.0',
      '--destination',
      '/tmp/d',
    ]);
    // Argo CD also names an OCI repository without its scheme.
    expect(pullArgs({ ...ref, repoURL: 'ghcr.io/example/charts' }, '/tmp/d')[1]).toBe('oci://ghcr.io/example/charts/demo');
    expect(pullArgs(ref, '/tmp/d', 'oci://mirror.lan/charts/')[1]).toBe('oci://mirror.lan/charts/demo');
  });
});
