/** POST /api/v1/echo: authentication first, then the body rules. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keysMatch } from '../src/http/auth.ts';
import { startApi, type Api } from './harness.ts';

let api: Api;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.stop());

const KEY = 'test-key-0123456789';
const post = (body: string, headers: Record<string, string> = {}) =>
  api.call('/api/v1/echo', { method: 'POST', body, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers } });

describe('echo', () => {
  it('returns the body unchanged with ok: true and no-store', async () => {
    const body = { a: 1, nested: { list: [1, 'two', null, true], empty: {} }, unicode: 'blåbær ✓' };
    const r = await post(JSON.stringify(body));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ok: true, echo: body });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a missing or invalid key with 401 and the message docs/API.md gives', async () => {
    for (const authorization of ['', 'Bearer', 'Bearer wrong', `Bearer ${KEY}x`, `Basic ${KEY}`, `Bearer ${KEY.slice(0, 5)}`]) {
      const r = await post('{}', { authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body).toEqual({ error: { status: 401, message: 'API key is missing or invalid' } });
    }
  });

  it('authenticates before it reads the body', async () => {
    expect((await post('{not json', { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('x'.repeat(64 * 1024), { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post('{}', { authorization: 'Bearer wrong', 'content-type': 'text/plain' })).status).toBe(401);
  });

  it('refuses writes outright when no key is configured', async () => {
    const noKey = await startApi({ apiKey: undefined });
    try {
      const r = await noKey.call('/api/v1/echo', {
        method: 'POST',
        body: '{}',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      });
      expect(r.status).toBe(503);
      expect((r.body as { error: { message: string } }).error.message).toMatch(/writes are disabled/);
    } finally {
      await noKey.stop();
    }
  });

  it('answers 415 for a non-JSON content type', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x'])
      expect((await post('{}', { 'content-type': type })).status).toBe(415);
    expect((await post('{"a":1}', { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
  });

  it('answers 400 for malformed JSON and for bodies that are not objects', async () => {
    for (const body of ['{', '{"a":}', '', 'undefined']) expect((await post(body)).status, body).toBe(400);
    for (const body of ['[]', '[1,2]', '"text"', '42', 'null', 'true']) {
      const r = await post(body);
      expect(r.status, body).toBe(400);
      expect((r.body as { error: { message: string } }).error.message).toMatch(/must be a JSON object/);
    }
  });

  it('answers 413 above 16 KiB and accepts exactly 16 KiB', async () => {
    const exact = JSON.stringify({ pad: 'x'.repeat(16 * 1024 - 10) });
    expect(Buffer.byteLength(exact)).toBe(16 * 1024);
    expect((await post(exact)).status).toBe(200);
    expect((await post(JSON.stringify({ pad: 'x'.repeat(16 * 1024) }))).status).toBe(413);
  });

  it('compares keys through fixed-length hashes', () => {
    expect(keysMatch(KEY, KEY)).toBe(true);
    expect(keysMatch('', KEY)).toBe(false);
    expect(keysMatch(`${KEY}${'x'.repeat(10_000)}`, KEY)).toBe(false);
  });
});
