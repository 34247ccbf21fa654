/** Metrics on their own port, redacted logs, and the SIGTERM drain. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KEEP_ALIVE_TIMEOUT_MS } from '../src/server.ts';
import { liveServers, request, rss } from './harness.ts';
import { REPO_ROOT } from '../../policy-tests/model/repository/repo.ts';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { ROUTES } from '../src/routes/table.ts';

const LOGGING = fileURLToPath(new URL('../src/logging.ts', import.meta.url));

const live = liveServers();

describe('metrics', () => {
  it('serves prom-client metrics on METRICS_PORT only, with route templates and one label for unknown paths', async () => {
    const { api } = await live.withFeed((_req, res) =>
      res.writeHead(200).end(rss([{ title: 't', link: 'https://b.example/1', pubDate: 'Sun, 01 Nov 2026 09:00:00 +0000' }])),
    );
    await api.call('/api/v1/profile');
    await api.call('/api/v1/blog');
    for (const p of ['/wp-admin', '/.env', '/api/v1/../x', '/random/123']) await api.call(p);
    expect((await api.call('/metrics')).status).toBe(404);
    const text = await (await request(`http://127.0.0.1:${api.running.metricsPort}/metrics`)).text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/profile",status_code="200"\} 1/);
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="unmatched",status_code="404"\} 5/); // the four probes and /metrics asked of the public port
    expect(text).not.toContain('wp-admin');
    expect(text).toMatch(/blog_origin_fetches_total 1/);
    expect(text).toMatch(/blog_origin_fetch_failures_total 0/);
    expect(text).toContain('process_resident_memory_bytes');
  });
});

// The gate holds every httpGet probe of the API's containers to these paths (workload-image-needs).
describe("the image facts' servedPaths", () => {
  it('are every GET route and /metrics, each answered on one of the two ports, where any other path is a 404', async () => {
    const facts = parse(readFileSync(new URL('../deploy/facts/images.yaml', import.meta.url), 'utf8')) as { images: { servedPaths?: string[] }[] };
    const served = facts.images[0]!.servedPaths!;
    expect([...served].sort()).toEqual([...ROUTES.filter((r) => r.method === 'GET').map((r) => r.path), '/metrics'].sort());
    const { api } = await live.withFeed((_req, res) => res.writeHead(200).end(rss([])));
    const bases = [api.base, `http://127.0.0.1:${api.running.metricsPort}`];
    const answered = async (path: string) => (await Promise.all(bases.map(async (base) => (await request(`${base}${path}`)).status))).some((s) => s !== 404);
    for (const path of served) expect(await answered(path), path).toBe(true);
    for (const path of ['/', '/healthz', '/api/v1/health']) expect(await answered(path), path).toBe(false);
  });
});

describe('keep-alive', () => {
  it('keeps idle connections longer than the proxy in front (90 s), so the proxy always closes first', async () => {
    const api = await live.api();
    expect(api.running.api.keepAliveTimeout).toBe(KEEP_ALIVE_TIMEOUT_MS);
    expect(KEEP_ALIVE_TIMEOUT_MS).toBeGreaterThan(90_000);
  });
});

describe('logs', () => {
  it('are JSON lines with the authorization header redacted', async () => {
    const api = await live.api();
    await api.call('/api/v1/echo', {
      method: 'POST',
      body: '{}',
      headers: { authorization: 'Bearer test-key-0123456789', 'content-type': 'application/json' },
    });
    const line = api.logs.find((l) => l.msg === 'request' && l.path === '/api/v1/echo')!;
    expect(line).toMatchObject({ level: 'info', method: 'POST', status: 200, route: '/api/v1/echo', headers: { authorization: '[REDACTED]' } });
    expect(JSON.stringify(api.logs)).not.toContain('test-key-0123456789');
  });

  it('are batched per turn of the event loop, and all written before the server exits, however slow the reader', async () => {
    // 20,000 lines (1.4 MB: several full batches and a partial one). The reader starts only once they are all
    // logged, so the pipe is full and the rest waits in the writer: a process.exit straight after logging lost
    // most of them. The server's exit waits for flushLogs.
    const script = `const { createLogger, flushLogs } = await import(${JSON.stringify(LOGGING)}); const log = createLogger(); for (let i = 0; i < 20000; i++) log.info('n', { i }); process.stderr.write('logged\\n'); await flushLogs(); process.exit(0);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pause();
    let out = '';
    child.stderr.once('data', () =>
      child.stdout
        .setEncoding('utf8')
        .on('data', (chunk: string) => (out += chunk))
        .resume(),
    );
    const [code] = (await once(child, 'close')) as [number | null];
    expect(code).toBe(0);
    expect(
      out
        .trimEnd()
        .split('\n')
        .map((l) => (JSON.parse(l) as { i: number }).i),
    ).toEqual(Array.from({ length: 20000 }, (_, i) => i));
  });
});

describe('SIGTERM', () => {
  it('fails readiness, lets in-flight requests finish, then closes within 10 s', async () => {
    // The feed answers only when the test says so: the blog request is in flight for as long as needed.
    let answerFeed = () => {};
    let feedAsked = () => {};
    const asked = new Promise<void>((r) => (feedAsked = r));
    const { api } = await live.withFeed((_req, res) => {
      answerFeed = () => res.writeHead(200).end(rss([]));
      feedAsked();
    });
    const inflight = api.call('/api/v1/blog');
    await asked;
    const closed = api.running.shutdown();
    // New connections are refused once draining starts; the probe sees the pod going away.
    await expect(request(`${api.base}/api/health`)).rejects.toThrow();
    answerFeed();
    expect((await inflight).status).toBe(200);
    await closed;
    // Drained, not cut off: the 10 s deadline never had to close a connection.
    expect(api.logs.some((l) => String(l.msg).startsWith('shutting down'))).toBe(true);
    expect(api.logs.some((l) => String(l.msg).startsWith('drain deadline reached'))).toBe(false);
  });

  it('closes an idle keep-alive connection when draining starts: the next request on it is refused, never answered', async () => {
    const api = await live.api();
    const { request } = await import('node:http');
    const { Agent } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<number>((resolve, reject) => {
        request(`${api.base}/api/health`, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        })
          .on('error', reject)
          .end();
      });
    expect(await get()).toBe(200);
    const closing = api.running.shutdown();
    // One answer only: the connection is gone (a client retries elsewhere), not a 503 and not a 200.
    await expect(get()).rejects.toThrow(/socket hang up|ECONNRESET|ECONNREFUSED/);
    agent.destroy();
    await closing;
  });
});

describe('starting on a port that is taken', () => {
  it('says so in one line, naming the address, and exits 1', async () => {
    const { createServer } = await import('node:net');
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const child = spawn(process.execPath, ['portfolio-api/src/server.ts'], {
        cwd: REPO_ROOT,
        env: { PATH: process.env.PATH, PORT: String(port), METRICS_PORT: '0', HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        // A hang guard only: the server refuses the taken port at once.
        timeout: 10 * 60_000,
        killSignal: 'SIGKILL',
      });
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c));
      const [code] = (await once(child, 'exit')) as [number];
      expect({ code, stderr }).toEqual({
        code: 1,
        stderr: `portfolio-api: cannot start: the address 127.0.0.1:${port} is already in use (another process listens there; set PORT or METRICS_PORT)\n`,
      });
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('health while draining', () => {
  it('answers 503 to a request the server takes once readiness has failed', async () => {
    const { createServer } = await import('node:http');
    const { createHandler } = await import('../src/app.ts');
    const { loadConfig } = await import('../src/config.ts');
    const { createMetrics } = await import('../src/metrics.ts');
    const { createLogger } = await import('../src/logging.ts');
    let ready = true;
    const server = createServer(
      createHandler({ config: loadConfig({}), metrics: createMetrics(), logger: createLogger(() => undefined), isReady: () => ready }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api/health`;
      expect((await fetch(url)).status).toBe(200);
      ready = false;
      expect((await fetch(url)).status).toBe(503);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
