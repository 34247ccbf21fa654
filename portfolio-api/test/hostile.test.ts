/**
 * Hostile requests: each gets the right status, the envelope, CORS and
 * no-store, and the server is healthy afterwards.
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type Api } from './harness.ts';
import { SECURITY_HEADERS } from '../src/app.ts';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());
afterEach(async () => {
  expect((await api.call('/api/health')).body).toEqual({ status: 'ok' });
});

const KEY = { authorization: 'Bearer test-key-0123456789', 'content-type': 'application/json' };

/** Raw HTTP for what fetch refuses to send (odd methods, raw paths, huge headers): the request, then the end of it. */
function raw(text: string) {
  return exchange(Number(new URL(api.base).port), text, true);
}

function expectEnvelope(status: number, head: string, body: string): void {
  expect(head).toContain('access-control-allow-origin: *');
  expect(head).toContain('cache-control: no-store');
  // The security headers every response carries, those Node answers itself (431, 408, 400) included.
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) expect(head).toContain(`${name}: ${value}`.toLowerCase());
  expect(JSON.parse(body)).toMatchObject({ error: { status } });
}

describe('hostile bodies', () => {
  it('deeply nested JSON within the size limit', async () => {
    const deep = `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`;
    const r = await api.call('/api/v1/echo', { method: 'POST', headers: KEY, body: deep });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(/nests deeper than 64/);
    const arrays = `{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    expect((await api.call('/api/v1/echo', { method: 'POST', headers: KEY, body: arrays })).status).toBe(400);
  });

  it('huge bodies, declared or streamed', async () => {
    expect((await api.call('/api/v1/echo', { method: 'POST', headers: KEY, body: 'x'.repeat(5 * 1024 * 1024) })).status).toBe(413);
    // Chunked, no Content-Length: the cap is enforced while streaming.
    const status = await new Promise<number>((resolve, reject) => {
      let answered: number | undefined;
      let i = 0;
      const req = request(`${api.base}/api/v1/echo`, { method: 'POST', headers: KEY }, (res) => {
        answered = res.statusCode!;
        res.resume();
        resolve(answered);
      });
      // A reset after the answer came is the server closing a body it refused; any other error is a failure.
      req.on('error', (err) => (answered === undefined ? reject(err) : resolve(answered)));
      // Written as the socket drains, and no more once the server has answered.
      const pump = (): void => {
        while (answered === undefined && i < 64) {
          i++;
          if (!req.write(`{"pad":"${'y'.repeat(1024)}"}`)) {
            req.once('drain', pump);
            return;
          }
        }
        req.end();
      };
      pump();
    });
    expect(status).toBe(413);
  });

  it('wrong types and JSON that is valid but odd', async () => {
    // Each with its one answer: the echo takes a JSON object only, and a __proto__ key is data, not a prototype.
    for (const [body, status] of [
      ['[{"a":1}]', 400],
      ['"{}"', 400],
      ['1e999', 400],
      ['{"__proto__": {"polluted": true}}', 200],
    ] as const)
      expect((await api.call('/api/v1/echo', { method: 'POST', headers: KEY, body })).status, body).toBe(status);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('hostile requests', () => {
  it('odd methods get 405 with Allow, unknown routes 404', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH', 'PROPFIND']) {
      const r = await raw(`${method} /api/v1/profile HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(r.status, method).toBe(405);
      expect(r.head).toContain('allow: get, head, options');
      expectEnvelope(405, r.head, r.body);
    }
    const get = await api.call('/api/v1/echo');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
    expect((await api.call('/api/v2/profile')).status).toBe(404);
    expect((await api.call('/')).status).toBe(404);
  });

  it('path traversal in the URL never escapes the route table', async () => {
    for (const path of [
      '/api/v1/../../etc/passwd',
      '/api/v1/%2e%2e/%2e%2e/etc/passwd',
      '/api/v1/infra/..%2f..%2fstatus.json',
      '/api/v1/profile/../../../../etc/shadow',
    ]) {
      const r = await raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(r.status, path).toBe(404);
      expect(r.body).not.toContain('root:');
      expectEnvelope(404, r.head, r.body);
    }
  });

  it('a malformed percent-escape is an envelope (404: no route has it), not a crash', async () => {
    const r = await raw('GET /api/v1/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    // No route has such a path: the route table's 404, in the envelope.
    expect(r.status).toBe(404);
    expectEnvelope(r.status, r.head, r.body);
  });

  it('oversized headers get a 431 envelope with CORS', async () => {
    const r = await raw(`GET /api/v1/profile HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(431);
    expectEnvelope(431, r.head, r.body);
  });

  it('garbage instead of HTTP gets a 400 envelope', async () => {
    const r = await raw('\x16\x03\x01 not http at all\r\n\r\n');
    expect(r.status).toBe(400);
    expectEnvelope(400, r.head, r.body);
  });
});

describe('conditional requests', () => {
  it('get the answers Express gives, on the routes answered before Express too: If-None-Match: * is fresh (304), a tag nobody issued is not', async () => {
    // Raw HTTP: fetch adds Cache-Control: no-cache to a conditional request, which makes any answer stale.
    const ask = (path: string, tag: string) => raw(`GET ${path} HTTP/1.1\r\nHost: x\r\nIf-None-Match: ${tag}\r\nConnection: close\r\n\r\n`);
    for (const path of ['/api/v1/profile', '/api/health', '/api/v1']) {
      const fresh = await ask(path, '*');
      expect([path, fresh.status, fresh.body]).toEqual([path, 304, '']);
      const stale = await ask(path, '"nobody-issued-this"');
      expect([path, stale.status]).toEqual([path, 200]);
    }
  });
});

/** Opens a connection and writes `text`, ending the request or leaving it open (a slow client); resolves with the answer and how long it took. */
function exchange(port: number, text: string, end: boolean): Promise<{ status: number; head: string; body: string; ms: number; responses: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1', () => (end ? socket.end(text) : socket.write(text)));
    let data = '';
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({
        status: Number(head.split(' ')[1]),
        head: head.toLowerCase(),
        body,
        ms: performance.now() - started,
        responses: data.split('HTTP/1.1 ').length - 1,
      });
    });
  });
}

const stalled = (port: number, text: string) => exchange(port, text, false);

describe('HTTP at its edges', () => {
  const HEADERS_MS = 1_500;
  const REQUEST_MS = 2_500;
  let timed: Api;
  beforeAll(async () => {
    timed = await startApi({}, { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS });
  });
  afterAll(() => timed.stop());
  const port = () => Number(new URL(timed.base).port);

  it('slow headers end at the headers limit with a 408 envelope, not at twice it', async () => {
    const r = await stalled(port(), 'GET /api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    expect(r.status).toBe(408);
    expectEnvelope(408, r.head, r.body);
    expect(r.ms).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(r.ms).toBeLessThan(2 * HEADERS_MS);
  });

  it('a slow body ends at the request limit with a 408 envelope', async () => {
    const r = await stalled(
      port(),
      `POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nAuthorization: ${KEY.authorization}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    expect(r.status).toBe(408);
    expectEnvelope(408, r.head, r.body);
    expect(r.ms).toBeLessThan(2 * REQUEST_MS);
  });

  it('after a 401 the connection closes: the unread body is never taken for a second request', async () => {
    const smuggled = 'GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n';
    const r = await stalled(
      port(),
      `POST /api/v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${smuggled.length}\r\n\r\n${smuggled}`,
    );
    expect([r.status, r.responses]).toEqual([401, 1]);
    expect(r.head).toContain('connection: close');
  });

  it('a request without Host gets the 400 envelope with CORS', async () => {
    const r = await raw('GET /api/health HTTP/1.1\r\n\r\n');
    expect(r.status).toBe(400);
    expectEnvelope(400, r.head, r.body);
  });

  it('CONNECT gets a 405 envelope with CORS and Allow, not a dropped connection', async () => {
    const r = await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(r.status).toBe(405);
    expectEnvelope(405, r.head, r.body);
    expect(r.head).toContain('allow: get, head, post, options');
  });
});

describe('browser hardening and reflection', () => {
  const HARDENING = {
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'cross-origin-resource-policy': 'cross-origin',
    'referrer-policy': 'no-referrer',
  };

  it.each([
    ['a precomputed route', '/api/v1/profile', 'GET', 200],
    ['an Express route', '/api/health', 'GET', 200],
    ['a 404', '/api/nope', 'GET', 404],
    ['a 405', '/api/health', 'DELETE', 405],
    ['a preflight', '/api/health', 'OPTIONS', 204],
  ])('sends the hardening headers on %s, CORS kept', async (_what, path, method, status) => {
    const r = await api.call(path, { method });
    expect(r.status).toBe(status);
    for (const [k, v] of Object.entries(HARDENING)) expect(r.headers.get(k), k).toBe(v);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('echoes no part of the request path in a 404 or a 405', async () => {
    const probe = '/api/<script>alert(1)</script>-reflected';
    const notFound = await api.call(probe);
    expect(notFound.status).toBe(404);
    expect(notFound.text).not.toMatch(/script|reflected|alert/);
    expect(JSON.parse(notFound.text)).toEqual({ error: { status: 404, message: 'no such route' } });
    const { head, body } = await raw('PATCH /api/HEALTH/ HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n');
    expect(head).toMatch(/^http\/1\.1 405/i);
    expect(body).not.toMatch(/HEALTH|PATCH/);
  });
});

// The public proxy's Middleware sends the same headers, so a response that never reached the app (a Traefik error)
// carries them too; a header misspelt there (a CSP directive a browser ignores) would hold only where the app answers.
describe("the public proxy's headers", () => {
  it("are the app's hardening headers, each as Traefik's headers middleware writes it", () => {
    const middleware = parse(readFileSync(new URL('../deploy/middleware.yaml', import.meta.url), 'utf8')) as { spec: { headers: Record<string, unknown> } };
    const h = middleware.spec.headers;
    const sent: Record<string, string> = {
      ...(h.contentTypeNosniff === true ? { 'x-content-type-options': 'nosniff' } : {}),
      ...(h.frameDeny === true ? { 'x-frame-options': 'DENY' } : {}),
      ...(typeof h.contentSecurityPolicy === 'string' ? { 'content-security-policy': h.contentSecurityPolicy } : {}),
      ...(typeof h.referrerPolicy === 'string' ? { 'referrer-policy': h.referrerPolicy } : {}),
      ...Object.fromEntries(Object.entries((h.customResponseHeaders ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
    };
    expect(sent).toEqual(SECURITY_HEADERS);
  });
});
