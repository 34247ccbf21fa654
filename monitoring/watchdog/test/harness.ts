/**
 * Runs the worker in workerd through miniflare, with KV persisted to a temp
 * directory (so a "restart" is a new runtime on the same state), a local
 * capture server standing in for the chat webhook, and local sites.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { Miniflare } from 'miniflare';
import { parse as parseToml } from 'smol-toml';
import { afterAll, afterEach, beforeEach } from 'vitest';

export const TOKEN = 'heartbeat-token-0123456789';
/** A minute of the scheduled events' clock, in ms. */
export const MIN = 60_000;

/**
 * The worker as `wrangler deploy` ships it (wrangler.toml): its entry module, compatibility date and KV bindings. The
 * tests run that, so a binding renamed there, which the code still reads by its old name, or a date workerd does not
 * know yet, fails here as it would once deployed.
 */
export const DEPLOYED = parseToml(readFileSync(new URL('../wrangler.toml', import.meta.url), 'utf8')) as {
  main?: string;
  compatibility_date?: string;
  kv_namespaces?: { binding?: string }[];
};

let bundle: Promise<string> | undefined;
/** The worker compiled as Cloudflare would: one ES module, from the entry wrangler.toml names. */
export function workerScript(): Promise<string> {
  bundle ??= build({
    entryPoints: [new URL(`../${DEPLOYED.main ?? ''}`, import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  }).then((r) => r.outputFiles[0]!.text);
  return bundle;
}

/** A local HTTP endpoint whose answers a test switches; it records what it receives. */
export interface Endpoint {
  url: string;
  up: boolean;
  received: string[];
  close(): Promise<void>;
}

export async function endpoint(path = '/'): Promise<Endpoint> {
  const ep: Endpoint = { url: '', up: true, received: [], close: async () => undefined };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (!ep.up) return void res.writeHead(503).end('down');
      if (req.method === 'POST') ep.received.push(body ? (JSON.parse(body) as { text: string }).text : '');
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ep.url = `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;
  ep.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return ep;
}

export interface Runtime {
  mf: Miniflare;
  heartbeat(body?: unknown, init?: { token?: string; contentType?: string; raw?: string }): Promise<Response>;
  tick(at: number): Promise<{ outcome: string }>;
  status(): Promise<Record<string, unknown>>;
  dispose(): Promise<void>;
}

export function watchdogPayload(status = 'firing') {
  return {
    version: '4',
    groupKey: '{}/{alertname="Watchdog"}:{}',
    truncatedAlerts: 0,
    status,
    receiver: 'watchdog',
    groupLabels: {},
    commonLabels: { alertname: 'Watchdog', severity: 'none' },
    commonAnnotations: {},
    externalURL: 'http://alertmanager.monitoring:9093',
    alerts: [
      {
        status,
        labels: { alertname: 'Watchdog', severity: 'none' },
        annotations: {},
        startsAt: '2026-11-22T00:00:00Z',
        endsAt: '0001-01-01T00:00:00Z',
        generatorURL: '',
        fingerprint: 'f',
      },
    ],
  };
}

export function newKvDir(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'watchdog-kv-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * The worker in workerd with `bindings` and its KV kept in `kvDir`. Given a
 * runtime that is running (`reuse`), its workerd takes the new options in
 * place: the worker is loaded again with fresh globals, bindings and KV, so
 * nothing of the previous test survives, for about a third of the cost of
 * starting workerd again.
 */
export async function startRuntime(bindings: Record<string, string | undefined>, kvDir: string, reuse?: Runtime): Promise<Runtime> {
  const vars = Object.fromEntries(Object.entries(bindings).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const options = {
    modules: true,
    script: await workerScript(),
    compatibilityDate: DEPLOYED.compatibility_date,
    kvNamespaces: (DEPLOYED.kv_namespaces ?? []).flatMap((ns) => (ns.binding ? [ns.binding] : [])),
    kvPersist: kvDir,
    bindings: vars,
  };
  if (reuse) await reuse.mf.setOptions(options);
  const mf = reuse?.mf ?? new Miniflare(options);
  const worker = await mf.getWorker();
  return {
    mf,
    heartbeat: (body = watchdogPayload(), init = {}) =>
      mf.dispatchFetch('https://watchdog.homelab.example.net/heartbeat', {
        method: 'POST',
        headers: { authorization: `Bearer ${init.token ?? TOKEN}`, 'content-type': init.contentType ?? 'application/json' },
        body: init.raw ?? JSON.stringify(body),
      }) as unknown as Promise<Response>,
    tick: (at) => worker.scheduled({ scheduledTime: new Date(at), cron: '* * * * *' }) as Promise<{ outcome: string }>,
    status: async () =>
      (await (await mf.dispatchFetch('https://watchdog.homelab.example.net/status', { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Record<
        string,
        unknown
      >,
    dispose: () => mf.dispose(),
  };
}

/**
 * A test file's watchdog: before each test a chat endpoint, a site and a fresh KV folder, and the file's one workerd
 * given them (startRuntime, which reloads the worker in place); after each, the endpoints closed and the KV removed;
 * after the file, workerd stopped. The fields are set once the hooks have run; a test may replace `rt` (a restart).
 */
export function useWatchdog() {
  const w = {
    chat: undefined as unknown as Endpoint,
    site: undefined as unknown as Endpoint,
    kv: undefined as unknown as ReturnType<typeof newKvDir>,
    rt: undefined as unknown as Runtime,
    downs: () => w.chat.received.filter((m) => m.startsWith('[WATCHDOG] DOWN')),
    ups: () => w.chat.received.filter((m) => m.startsWith('[WATCHDOG] UP')),
  };
  beforeEach(async () => {
    w.chat = await endpoint('/hooks/chat');
    w.site = await endpoint('/health');
    w.kv = newKvDir();
    w.rt = await startRuntime({ CHAT_WEBHOOK_URL: w.chat.url, HEARTBEAT_TOKEN: TOKEN, SITES: w.site.url }, w.kv.dir, w.rt);
  });
  afterEach(async () => {
    await w.chat.close();
    await w.site.close();
    w.kv.remove();
  });
  afterAll(async () => w.rt?.dispose());
  return w;
}
