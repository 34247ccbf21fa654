/** One route table drives everything: routes, index, OpenAPI, docs. Every response matches its OpenAPI schema. */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate as validateOpenApi } from '@readme/openapi-parser';
import spectralCore from '@stoplight/spectral-core';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { createApp } from '../src/app.ts';
import { createMetrics } from '../src/metrics.ts';
import { renderApiDocs } from '../src/openapi/docs.ts';
import { buildOpenApi } from '../src/openapi/build.ts';
import { ROUTES } from '../src/routes/table.ts';
import { request, startApi, type Api } from './harness.ts';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());

/** Express 5 keeps its routes on app.router.stack; each route layer knows its path and methods. */
function registeredRoutes(): string[] {
  const app = createApp({ config: api.config, metrics: createMetrics(), logger: { info() {}, warn() {}, error() {} } });
  const stack = (app as unknown as { router: { stack: { route?: { path: string; methods: Record<string, boolean> } }[] } }).router.stack;
  return stack
    .filter((l) => l.route)
    .flatMap((l) =>
      Object.keys(l.route!.methods)
        .filter((m) => m !== '_all')
        .map((m) => `${m.toUpperCase()} ${l.route!.path}`),
    )
    .sort();
}

describe('one route table', () => {
  const table = ROUTES.map((r) => `${r.method} ${r.path}`).sort();

  it('has the 7 routes of docs/API.md, 6 reads and 1 write', () => {
    expect(table).toEqual([
      'GET /api/health',
      'GET /api/v1',
      'GET /api/v1/blog',
      'GET /api/v1/infra',
      'GET /api/v1/openapi.json',
      'GET /api/v1/profile',
      'POST /api/v1/echo',
    ]);
  });

  it('registered Express routes = table = index endpoints = OpenAPI paths', async () => {
    const index = (await api.call('/api/v1')).body as { endpoints: { method: string; path: string }[] };
    const openapi = (await api.call('/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const fromIndex = index.endpoints.map((e) => `${e.method} ${e.path}`).sort();
    const fromOpenApi = Object.entries(openapi.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(registeredRoutes()).toEqual(table);
    expect(fromIndex).toEqual(table);
    expect(fromOpenApi).toEqual(table);
  });

  it('operationIds are unique and name the health route getHealth', () => {
    const ids = ROUTES.map((r) => r.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ROUTES.find((r) => r.path === '/api/health')!.operationId).toBe('getHealth');
  });

  it('docs/API.md is generated from the table (run npm run docs -w portfolio-api when this fails)', () => {
    expect(readFileSync(new URL('../docs/API.md', import.meta.url), 'utf8')).toBe(renderApiDocs(ROUTES));
  });

  it('the index names the API, its version, the docs and the OpenAPI address', async () => {
    const { body } = await api.call('/api/v1');
    expect(body).toMatchObject({
      name: 'Portfolio Content API',
      version: 'v1',
      docs: api.config.docsUrl,
      openapi: `${api.config.baseUrl}/api/v1/openapi.json`,
    });
    expect((body as { notes: string }).notes).toMatch(/public.*API key/);
  });
});

describe('the OpenAPI document', () => {
  const doc = () => buildOpenApi(ROUTES, api.config);

  it('is valid OpenAPI 3.1.0 with the index title and v1', async () => {
    const d = doc();
    expect(d.openapi).toBe('3.1.0');
    expect(d.info).toMatchObject({ title: 'Portfolio Content API', version: 'v1' });
    expect(d.servers).toEqual([{ url: api.config.baseUrl }]);
    const result = await validateOpenApi(structuredClone(d) as never);
    expect(result.valid, JSON.stringify(result)).toBe(true);
    // The validator bites: a response without a description is not OpenAPI.
    const broken = structuredClone(d) as { paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>> };
    delete broken.paths['/api/health']!.get!.responses['200']!.description;
    expect((await validateOpenApi(broken as never)).valid).toBe(false);
  });

  it('passes the Spectral OpenAPI ruleset with no errors', async () => {
    const { Spectral, Document } = spectralCore as unknown as typeof import('@stoplight/spectral-core');
    const { oas } = spectralRulesets as unknown as typeof import('@stoplight/spectral-rulesets');
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] } as never);
    // A CommonJS package: its exports are the default export under Node's own import (how the tests load modules).
    const parsers = (await import('@stoplight/spectral-parsers')).default as unknown as typeof import('@stoplight/spectral-parsers');
    const lint = async (d: object) => (await spectral.run(new Document(JSON.stringify(d, null, 2), parsers.Json))).filter((r) => r.severity === 0);
    expect((await lint(doc())).map((e) => `${e.code}: ${e.message} at ${e.path.join('.')}`)).toEqual([]);
    // The ruleset bites: two operations sharing an operationId is an error.
    const broken = doc() as { paths: Record<string, Record<string, { operationId: string }>> };
    broken.paths['/api/v1']!.get!.operationId = 'getHealth';
    expect((await lint(broken)).map((e) => e.code)).toContain('operation-operationId-unique');
  });

  it('lists 404, 405 and 500 on every operation, and each route its own errors', () => {
    const d = doc();
    for (const route of ROUTES) {
      const responses = Object.keys((d.paths[route.path] as Record<string, { responses: object }>)[route.method.toLowerCase()]!.responses);
      for (const s of ['200', '404', '405', '500', ...route.errors.map(String)]) expect(responses, `${route.method} ${route.path}`).toContain(s);
    }
  });
});

describe('caching, CORS and HEAD', () => {
  const expected: Record<string, string> = {
    '/api/health': 'no-store',
    '/api/v1': 'public, max-age=60',
    '/api/v1/openapi.json': 'public, max-age=60',
    '/api/v1/profile': 'public, max-age=60',
    '/api/v1/infra': 'public, max-age=30',
  };

  it.each(Object.entries(expected))('%s answers Cache-Control %s', async (path, cacheControl) => {
    const r = await api.call(path);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe(cacheControl);
  });

  it('health is computed per request', async () => {
    expect((await api.call('/api/health')).body).toEqual({ status: 'ok' });
  });

  it('answers an OPTIONS preflight with 204 and the allowed methods and headers', async () => {
    for (const path of ['/api/v1/echo', '/api/v1/profile']) {
      const r = await request(`${api.base}${path}`, {
        method: 'OPTIONS',
        headers: { origin: 'https://portfolio.example.net', 'access-control-request-method': 'POST' },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
      expect(r.headers.get('access-control-allow-headers')).toBe('authorization, content-type');
    }
  });

  it('serves HEAD on every GET route, with headers and no body', async () => {
    for (const route of ROUTES.filter((r) => r.method === 'GET' && r.path !== '/api/v1/blog')) {
      const r = await request(`${api.base}${route.path}`, { method: 'HEAD' });
      expect(r.status, route.path).toBe(200);
      expect(r.headers.get('cache-control')).toBe(route.cacheControl);
      expect(await r.text()).toBe('');
    }
  });

  it('static routes answered before Express dispatch match the Express answers byte for byte', async () => {
    for (const path of ['/api/v1', '/api/v1/openapi.json', '/api/v1/profile']) {
      const fast = await request(`${api.base}${path}`);
      const viaExpress = await request(`${api.base}${path}?via=express`);
      expect(await fast.text()).toBe(await viaExpress.text());
      for (const h of ['content-type', 'content-length', 'cache-control', 'access-control-allow-origin'])
        expect(fast.headers.get(h), `${path} ${h}`).toBe(viaExpress.headers.get(h));
    }
    const text = await (await request(`http://127.0.0.1:${api.running.metricsPort}/metrics`)).text();
    expect(text).toMatch(/http_request_duration_seconds_count\{method="GET",route="\/api\/v1\/profile",status_code="200"\} [2-9]/);
  });

  it('profile comes from the content module', async () => {
    const { profile } = await import('../src/content/profile.ts');
    expect((await api.call('/api/v1/profile')).body).toEqual(profile);
  });
});
