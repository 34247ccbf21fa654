/**
 * The chart repositories a chart's dependencies name, stood in for while the real `helm dependency build` runs, so
 * that Helm itself checks the Chart.lock against the Chart.yaml, archives the `file://` dependencies and lays out
 * `charts/` as it does in Argo CD's repo-server, while every archive it downloads is one the lock pins, from the cache.
 *
 * How Helm 4.2 finds a dependency's archive (pkg/downloader/manager.go `findChartURL`, `DownloadTo`): it looks the
 * repository's URL up in its repositories file, reads that repository's cached index (`--skip-refresh` leaves the
 * index as it is), and downloads the entry's first URL; an absolute one is used as it stands. So the repositories
 * file names each URL the chart names, each cached index lists the pinned version alone, and its URL is this
 * process's server on 127.0.0.1, which serves those archives' bytes and nothing else, until the build returns.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { stringify } from 'yaml';

export interface ServedChart {
  repoURL: string;
  /**
   * Whether Helm's repositories file names its repository. Argo CD names each https one before the build (reposerver
   * `getHelmDependencyRepos`), never a plain http one: a build from a Chart.lock then refuses the chart (Helm's
   * `hasAllRepos`: "no repository definition for ..."), as Argo CD's does; one with no Chart.lock reaches it all the
   * same (Helm's `Update` reads the index at its URL), so it is named here, to the same effect, offline.
   */
  named: boolean;
  chart: string;
  version: string;
  /** `sha256:<hex>`, as the lock records it. */
  digest: string;
  bytes: Buffer;
}

/**
 * Runs `build` with the flags that point Helm at repositories standing in for each chart's `repoURL`, under `dir`,
 * serving `charts`; the server is closed when `build` settles, however it settles.
 */
export async function withOfflineChartRepos<T>(dir: string, charts: readonly ServedChart[], build: (helmFlags: string[]) => Promise<T>): Promise<T> {
  const served = new Map<string, Buffer>();
  const server = createServer((req, res) => {
    const bytes = req.method === 'GET' ? served.get(req.url ?? '') : undefined;
    if (bytes) res.writeHead(200, { 'content-type': 'application/gzip', 'content-length': bytes.length }).end(bytes);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  try {
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const cache = join(dir, 'repository-cache');
    mkdirSync(cache, { recursive: true });
    const repoURLs = [...new Set(charts.map((c) => c.repoURL))];
    const repositories = repoURLs.map((url, i) => ({ name: `dependency-${i}`, url })).filter(({ url }) => charts.some((c) => c.repoURL === url && c.named));
    repositories.forEach(({ name, url }) => {
      const entries: Record<string, unknown[]> = {};
      for (const c of charts.filter((c) => c.repoURL === url)) {
        const path = `/${name}/${encodeURIComponent(c.chart)}-${encodeURIComponent(c.version)}.tgz`;
        served.set(path, c.bytes);
        (entries[c.chart] ??= []).push({
          apiVersion: 'v2',
          name: c.chart,
          version: c.version,
          digest: c.digest.replace(/^sha256:/, ''),
          urls: [`${base}${path}`],
        });
      }
      writeFileSync(join(cache, `${name}-index.yaml`), stringify({ apiVersion: 'v1', entries }));
    });
    const config = join(dir, 'repositories.yaml');
    writeFileSync(config, stringify({ apiVersion: '', repositories }));
    return await build(['--skip-refresh', '--repository-config', config, '--repository-cache', cache]);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
