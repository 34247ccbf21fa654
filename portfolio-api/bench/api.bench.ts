/**
 * Benchmark of the API (not a test): npm run bench -w portfolio-api
 *
 * With autocannon on loopback: req/s and p99 for each GET route, against a
 * bare node:http server returning the same bytes (measured in the same run);
 * origin fetches during a 30 s cold-cache blog load; RSS before and after
 * 100k requests. The servers run in their own processes so autocannon does
 * not share their event loop.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { entryArgs } from '../src/entry-args.ts';

entryArgs(
  'npm run bench -w portfolio-api',
  `Benchmarks the API with autocannon on loopback: req/s and p99 of each GET route against a bare node:http
server returning the same bytes, a 30 s cold-cache blog load, and RSS before and after 100k requests (about 3 minutes).
Environment: BENCH_SECONDS (per route), BENCH_COLD_SECONDS (the cold load), ROUTES (a comma-separated subset).`,
);

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 32;

interface Child {
  proc: ChildProcess;
  port: number;
  metricsPort?: number;
}

function startChild(args: string[], env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffer = '';
    const onData = (d: Buffer) => {
      buffer += d.toString();
      const line = buffer.split('\n').find((l) => l.includes('"listening"'));
      if (!line) return;
      const { api, metrics } = JSON.parse(line) as { api: string; metrics?: string };
      proc.stdout!.off('data', onData);
      proc.stdout!.resume(); // access logs go nowhere; a paused pipe would block the server
      resolve({ proc, port: Number(api.split(':')[1]), metricsPort: metrics ? Number(metrics.split(':')[1]) : undefined });
    };
    proc.stdout!.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`child exited with ${code}`)));
  });
}

// The production build, as the container runs it (no TypeScript loader in the measured process).
const DIST = `${ROOT}.bench-dist`;
const build = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url)), '-p', `${ROOT}tsconfig.build.json`, '--outDir', DIST],
  { stdio: 'inherit' },
);
if (build.status !== 0) throw new Error('tsc build failed');

const startApi = (extra: Record<string, string> = {}) =>
  startChild([`${DIST}/server.js`], {
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    BASE_URL: 'http://127.0.0.1',
    STATUS_FILE: '/nonexistent/status.json',
    ...extra,
  });

/** A bare node:http server answering each path with the bytes and headers the API gave. */
const BARE_SERVER = `
const { createServer } = require('node:http');
const routes = JSON.parse(process.env.ROUTES);
const server = createServer((req, res) => {
  const r = routes[req.url];
  if (!r) { res.writeHead(404).end(); return; }
  res.writeHead(200, r.headers).end(r.body);
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ msg: 'listening', api: '127.0.0.1:' + server.address().port })));
`;

async function load(url: string, options: Partial<autocannon.Options> = {}) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, ...options });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function rss(child: Child): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${child.metricsPort}/metrics`)).text();
  return Number(/process_resident_memory_bytes (\d+)/.exec(text)![1]) / 1024 / 1024;
}

const stop = (c: Child) =>
  new Promise<void>((resolve) => {
    c.proc.once('exit', () => resolve());
    c.proc.kill('SIGTERM');
  });

// A blog origin on loopback that counts its fetches.
let originHits = 0;
const feed = `<?xml version="1.0"?><rss version="2.0"><channel><title>b</title>${Array.from({ length: 8 }, (_, i) => `<item><title>Post ${i}</title><link>https://blog.example.net/${i}</link><pubDate>Sun, 0${i + 1} Nov 2026 09:00:00 +0000</pubDate></item>`).join('')}</channel></rss>`;
const origin = createServer((_req, res) => {
  originHits++;
  setTimeout(() => res.writeHead(200, { 'content-type': 'application/rss+xml' }).end(feed), 300);
});
await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
const feedUrl = `http://127.0.0.1:${(origin.address() as { port: number }).port}/rss.xml`;

const paths = ['/api/health', '/api/v1', '/api/v1/openapi.json', '/api/v1/profile', '/api/v1/infra', '/api/v1/blog'];
const api = await startApi({ BLOG_FEED_URL: feedUrl });
const base = `http://127.0.0.1:${api.port}`;
const captured: Record<string, { headers: Record<string, string>; body: string }> = {};
for (const p of paths) {
  const r = await fetch(base + p);
  captured[p] = {
    headers: { 'content-type': r.headers.get('content-type')!, 'cache-control': r.headers.get('cache-control')!, 'access-control-allow-origin': '*' },
    body: await r.text(),
  };
}
const bare = await startChild(['-e', BARE_SERVER], { ROUTES: JSON.stringify(captured) });

/**
 * Rounds per route, the API and the bare server in turn: a busy spell of the machine (the load generator shares its
 * cores) then weighs on both sides of a round alike, and the median round is printed. One run of each swung a route's
 * ratio from 0.44 to 1.12 between two runs of the benchmark.
 */
const ROUNDS = 3;
const medianBy = <T>(xs: T[], by: (x: T) => number): T => [...xs].sort((x, y) => by(x) - by(y))[xs.length >> 1]!;
console.log(
  `autocannon: ${CONNECTIONS} connections, ${SECONDS} s per run, ${ROUNDS} rounds of API then bare (the median round), loopback; Node ${process.version}`,
);
console.log('route                    API req/s  API p99   bare req/s  bare p99   ratio');
for (const p of paths) {
  await load(base + p, { duration: 1 }); // warm-up
  const rounds: { a: Awaited<ReturnType<typeof load>>; b: Awaited<ReturnType<typeof load>> }[] = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push({ a: await load(base + p), b: await load(`http://127.0.0.1:${bare.port}${p}`) });
  const { a, b } = medianBy(rounds, (r) => r.a.rps / r.b.rps);
  const errors = rounds.reduce((n, r) => n + r.a.errors, 0);
  console.log(
    `${p.padEnd(24)} ${a.rps.toFixed(0).padStart(9)} ${`${a.p99} ms`.padStart(8)} ${b.rps.toFixed(0).padStart(11)} ${`${b.p99} ms`.padStart(8)} ${(a.rps / b.rps).toFixed(2).padStart(7)}${errors ? `  (${errors} errors)` : ''}`,
  );
}

const before = await rss(api);
await autocannon({ url: `${base}/api/v1/profile`, connections: CONNECTIONS, amount: 100_000 });
const after = await rss(api);
console.log(`RSS before / after 100k requests: ${before.toFixed(1)} MiB / ${after.toFixed(1)} MiB`);
await stop(api);
await stop(bare);

// Cold cache: a fresh process, the origin slow, everyone asking at once for 30 s.
originHits = 0;
const cold = await startApi({ BLOG_FEED_URL: feedUrl });
const coldLoad = await load(`http://127.0.0.1:${cold.port}/api/v1/blog`, { duration: Number(process.env.BENCH_COLD_SECONDS ?? 30) });
console.log(`blog, 30 s cold-cache load: ${coldLoad.rps.toFixed(0)} req/s, origin fetches: ${originHits} (must be 1)`);
await stop(cold);
origin.close();
