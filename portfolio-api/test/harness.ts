/**
 * Test harness: the real server on 127.0.0.1 with ephemeral ports, a local
 * feed origin, and a client that checks every response it receives against
 * the OpenAPI document (status, schema, CORS, Cache-Control).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterEach, expect } from 'vitest';
import type { Config } from '../src/config.ts';
import { createLogger } from '../src/logging.ts';
import { buildOpenApi } from '../src/openapi/build.ts';
import { ROUTES } from '../src/routes/table.ts';
import { start, type Running } from '../src/server.ts';

/**
 * fetch on a connection of its own (`connection: close`). A pooled keep-alive
 * socket may be one the server is closing just then (its idle timeout, or a
 * server stopped between tests): reusing it fails with ECONNRESET on a busy
 * machine. Tests that are about keep-alive open their sockets themselves.
 */
export function request(url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has('connection')) headers.set('connection', 'close');
  return fetch(url, { ...init, headers });
}

export interface Origin {
  url: string;
  hits: number;
  handler: (req: IncomingMessage, res: ServerResponse) => void;
  close(): Promise<void>;
}

/** A local stand-in for the blog origin; tests swap its handler. */
export async function startOrigin(handler: Origin['handler']): Promise<Origin> {
  const origin: Origin = { url: '', hits: 0, handler, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    origin.hits++;
    origin.handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  origin.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/rss.xml`;
  origin.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return origin;
}

export interface Api {
  running: Running;
  base: string;
  logs: Record<string, unknown>[];
  dir: string;
  config: Config;
  call(path: string, init?: RequestInit): Promise<{ status: number; headers: Headers; body: unknown; text: string }>;
  stop(): Promise<void>;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** Validates a received response against what the OpenAPI document promises for that route and status. */
export function expectDocumented(
  { path, method }: { path: string; method: string },
  response: { status: number; body: unknown; headers: Headers },
  config: Config,
): void {
  const { status, body, headers } = response;
  expect(headers.get('access-control-allow-origin'), `${method} ${path}: CORS header`).toBe('*');
  const doc = buildOpenApi(ROUTES, config);
  const route = ROUTES.find((r) => r.path === path && r.method === method);
  if (!route) {
    // Unknown route or method: still the error envelope.
    expect(body).toMatchObject({ error: { status } });
    return;
  }
  const op = (doc.paths[path] as Record<string, { responses: Record<string, { content: { 'application/json': { schema: { $ref: string } } } }> }>)[
    method.toLowerCase()
  ]!;
  const documented = op.responses[String(status)];
  expect(documented, `${method} ${path} answered ${status}, which the OpenAPI document does not list`).toBeDefined();
  const schemaName = documented!.content['application/json'].schema.$ref.split('/').pop()!;
  const validate =
    ajv.getSchema(schemaName) ??
    (ajv.addSchema(doc.components.schemas[schemaName as keyof typeof doc.components.schemas] as object, schemaName), ajv.getSchema(schemaName)!);
  expect(validate(body), `${method} ${path} ${status}: ${JSON.stringify(validate.errors)}`).toBe(true);
  expect(headers.get('cache-control')).toBe(status === 200 ? route.cacheControl : 'no-store');
}

export async function startApi(overrides: Partial<Config> = {}, deps: Parameters<typeof start>[1] = {}): Promise<Api> {
  const dir = mkdtempSync(join(tmpdir(), 'portfolio-api-'));
  const logs: Record<string, unknown>[] = [];
  const config: Config = {
    baseUrl: 'http://127.0.0.1',
    apiKey: 'test-key-0123456789',
    statusFile: join(dir, 'status.json'),
    blogFeedUrl: 'http://127.0.0.1:9/rss.xml',
    docsUrl: 'https://docs.example.net/API.md',
    port: 0,
    metricsPort: 0,
    host: '127.0.0.1',
    ...overrides,
  };
  const running = await start(config, { logger: createLogger((line) => logs.push(JSON.parse(line))), ...deps });
  const base = `http://127.0.0.1:${running.apiPort}`;
  return {
    running,
    base,
    logs,
    dir,
    config,
    async call(path, init = {}) {
      const response = await request(`${base}${path}`, init);
      const text = await response.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = text;
      }
      const method = (init.method ?? 'GET').toUpperCase();
      if (method !== 'HEAD' && method !== 'OPTIONS')
        expectDocumented({ path: path.split('?')[0]!, method }, { status: response.status, body, headers: response.headers }, config);
      return { status: response.status, headers: response.headers, body, text };
    },
    async stop() {
      await running.shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function rss(items: { title: string; link: string; pubDate: string }[]): string {
  const body = items.map((i) => `<item><title>${i.title}</title><link>${i.link}</link><pubDate>${i.pubDate}</pubDate></item>`).join('');
  return `<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>Blog</title><link>https://blog.example.net</link>${body}</channel></rss>`;
}

/** Servers a test file starts, stopped after each test (the API before its origin). */
export function liveServers() {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const stop of stops.splice(0).reverse()) await stop();
  });
  const api = async (overrides: Partial<Config> = {}, deps: Parameters<typeof start>[1] = {}): Promise<Api> => {
    const started = await startApi(overrides, deps);
    stops.push(() => started.stop());
    return started;
  };
  return {
    api,
    /** An API whose blog feed is a local origin answering with `handler`. */
    async withFeed(handler: Origin['handler'], deps: Parameters<typeof start>[1] = {}): Promise<{ api: Api; origin: Origin }> {
      const origin = await startOrigin(handler);
      stops.push(() => origin.close());
      return { api: await api({ blogFeedUrl: origin.url }, deps), origin };
    },
  };
}
