/** The watchdog worker in the real workerd runtime (miniflare), driven by scheduled events at chosen times. */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpoint, newKvDir, startRuntime, TOKEN, watchdogPayload, type Endpoint, type Runtime } from './harness.ts';

const MIN = 60_000;
let chat: Endpoint;
let site: Endpoint;
let kv: ReturnType<typeof newKvDir>;
let rt: Runtime;

beforeEach(async () => {
  chat = await endpoint('/hooks/chat');
  site = await endpoint('/health');
  kv = newKvDir();
  // One workerd for the file, given each test's bindings and a fresh KV (see startRuntime).
  rt = await startRuntime({ CHAT_WEBHOOK_URL: chat.url, HEARTBEAT_TOKEN: TOKEN, SITES: site.url }, kv.dir, rt);
});
afterEach(async () => {
  await chat.close();
  await site.close();
  kv.remove();
});
afterAll(async () => rt?.dispose());

const downs = () => chat.received.filter((m) => m.startsWith('[WATCHDOG] DOWN'));
const ups = () => chat.received.filter((m) => m.startsWith('[WATCHDOG] UP'));

describe('heartbeat path', () => {
  it('raises DOWN about 15 min after the last heartbeat, not before (14 and 16 min)', async () => {
    const t0 = Date.now();
    expect((await rt.heartbeat()).status).toBe(200);
    await rt.tick(t0 + 14 * MIN);
    expect(downs()).toEqual([]);
    await rt.tick(t0 + 16 * MIN);
    expect(downs()).toEqual([expect.stringMatching(/^\[WATCHDOG\] DOWN heartbeat: no Alertmanager heartbeat for 1[56] min \(last heartbeat: \d{4}-.*Z\)/)]);
  });

  it('raises UP on the next heartbeat', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    await rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
    expect((await rt.heartbeat()).status).toBe(200);
    expect(ups()).toEqual([expect.stringMatching(/^\[WATCHDOG\] UP heartbeat: Alertmanager heartbeats are back/)]);
    expect(chat.received.filter((m) => m.includes('heartbeat'))).toHaveLength(2);
  });

  it('sends no duplicate alarm over 60 silent minutes', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    for (let m = 1; m <= 60; m++) await rt.tick(t0 + m * MIN);
    expect(downs()).toHaveLength(1);
    expect(ups()).toHaveLength(0);
  });

  it('reproduces the silence test: Watchdog silenced 25 min, DOWN ~15 min after the last heartbeat, UP when heartbeats resume', async () => {
    await rt.heartbeat(); // the last heartbeat before the silence
    const t0 = Date.parse(((await rt.status()).heartbeat as { last: string }).last);
    const downAt: number[] = [];
    for (let m = 1; m <= 25; m++) {
      const before = downs().length;
      await rt.tick(t0 + m * MIN);
      if (downs().length > before) downAt.push(m);
    }
    expect(downAt).toEqual([15]);
    await rt.heartbeat(); // the silence expires; Alertmanager's next repeat arrives
    expect(ups()).toHaveLength(1);
  });

  it('refuses unauthenticated or malformed heartbeats, and they change nothing', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    const before = (await rt.status()).heartbeat as { last: string };
    const cases: [Promise<Response>, number][] = [
      [rt.heartbeat(watchdogPayload(), { token: 'wrong' }), 401],
      [rt.heartbeat(watchdogPayload(), { token: `${TOKEN}x` }), 401],
      [rt.heartbeat(undefined, { raw: '{not json' }), 400],
      [rt.heartbeat({ hello: 'world' }), 400],
      [rt.heartbeat({ ...watchdogPayload(), alerts: [{ status: 'firing', labels: { alertname: 'InternetDown' } }] }), 422],
      [rt.heartbeat(watchdogPayload(), { contentType: 'text/plain' }), 415],
      [rt.heartbeat(watchdogPayload(), { contentType: 'application/jsonx' }), 415],
      [rt.heartbeat(watchdogPayload(), { contentType: 'application/json-seq' }), 415],
      [rt.heartbeat(undefined, { raw: JSON.stringify({ ...watchdogPayload(), pad: 'x'.repeat(70_000) }) }), 413],
    ];
    for (const [response, status] of cases) expect((await response).status).toBe(status);
    const after = (await rt.status()).heartbeat as { last: string };
    expect(after.last).toBe(before.last);
    await rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
  });

  it('accepts application/json with parameters', async () => {
    expect((await rt.heartbeat(watchdogPayload(), { contentType: 'Application/JSON; charset=utf-8' })).status).toBe(200);
  });

  it('answers 405 with the Allow header', async () => {
    const url = 'https://watchdog.homelab.example.net';
    const get = (await rt.mf.dispatchFetch(`${url}/heartbeat`, { method: 'GET' })) as unknown as Response;
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const post = (await rt.mf.dispatchFetch(`${url}/status`, { method: 'POST' })) as unknown as Response;
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET']);
  });

  it('limits a streamed body while it streams: a chunked body that never ends is cut at the limit', async () => {
    const chunk = new TextEncoder().encode(`{"pad":"${'x'.repeat(16_000)}`);
    let sent = 0;
    // Sends past the limit, then stalls forever: only a reader that stops at the limit answers.
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent > 80_000) return new Promise(() => undefined);
        sent += chunk.byteLength;
        controller.enqueue(chunk);
        return undefined;
      },
    });
    const response = (await rt.mf.dispatchFetch('https://watchdog.homelab.example.net/heartbeat', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body as never,
      duplex: 'half',
    } as never)) as unknown as Response;
    expect(response.status).toBe(413);
  });

  it('keeps a DOWN through a chat outage and delivers it, then the UP, in order', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    chat.up = false;
    await rt.tick(t0 + 16 * MIN);
    await rt.tick(t0 + 17 * MIN);
    expect(chat.received).toEqual([]);
    await rt.heartbeat(); // recovers while chat is still down: both messages are owed
    chat.up = true;
    await rt.tick(Date.now() + MIN);
    expect(chat.received.map((m) => m.slice(0, 24))).toEqual(['[WATCHDOG] DOWN heartbea', '[WATCHDOG] UP heartbeat:']);
  });

  it('keeps its state across a restart of the runtime', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    await rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
    await rt.dispose();
    rt = await startRuntime({ CHAT_WEBHOOK_URL: chat.url, HEARTBEAT_TOKEN: TOKEN, SITES: site.url }, kv.dir);
    await rt.tick(t0 + 17 * MIN);
    await rt.tick(t0 + 18 * MIN);
    expect(downs()).toHaveLength(1);
    expect(((await rt.status()).heartbeat as { status: string }).status).toBe('down');
  });
});

describe('public sites', () => {
  it('needs three consecutive failures for DOWN; the first success raises UP', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    site.up = false;
    await rt.tick(t0 + MIN);
    await rt.tick(t0 + 2 * MIN);
    expect(downs()).toEqual([]);
    await rt.tick(t0 + 3 * MIN);
    expect(downs()).toEqual([
      expect.stringMatching(/^\[WATCHDOG\] DOWN site http:\/\/127\.0\.0\.1:\d+\/health: 3 one-minute checks failed in a row .*HTTP 503/),
    ]);
    await rt.tick(t0 + 4 * MIN);
    expect(downs()).toHaveLength(1);
    site.up = true;
    await rt.tick(t0 + 5 * MIN);
    expect(ups()).toEqual([expect.stringMatching(/^\[WATCHDOG\] UP site /)]);
  });

  it('raises nothing for two failures followed by a success', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    site.up = false;
    await rt.tick(t0 + MIN);
    await rt.tick(t0 + 2 * MIN);
    site.up = true;
    await rt.tick(t0 + 3 * MIN);
    site.up = false;
    await rt.tick(t0 + 4 * MIN);
    await rt.tick(t0 + 5 * MIN);
    expect(chat.received).toEqual([]);
  });

  it('stores nothing new while a DOWN site keeps failing, so a day-long outage costs no KV write a minute', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    site.up = false;
    for (let m = 1; m <= 3; m++) await rt.tick(t0 + m * MIN);
    const stored = async () => (await rt.status()).sites as { failures: number; since: string; lastError: string }[];
    const atDown = await stored();
    for (let m = 4; m <= 30; m++) await rt.tick(t0 + m * MIN);
    expect(await stored()).toEqual(atDown);
    expect(atDown[0]).toMatchObject({ status: 'down', failures: 3, lastError: 'HTTP 503' });
    // The heartbeat, silent since t0, raises its own DOWN on the way; the site raises one, and one UP.
    expect(downs().filter((m) => m.includes(' site '))).toHaveLength(1);
    site.up = true;
    await rt.tick(t0 + 31 * MIN);
    expect(ups().filter((m) => m.includes(' site '))).toHaveLength(1);
  });

  it('counts an unreachable site as a failure', async () => {
    const t0 = Date.now();
    await rt.heartbeat();
    await site.close();
    for (let m = 1; m <= 3; m++) await rt.tick(t0 + m * MIN);
    expect(downs()).toHaveLength(1);
  });
});

describe('configuration and status', () => {
  it('answers GET /status only with the token', async () => {
    await rt.heartbeat();
    const status = await rt.status();
    expect(status).toMatchObject({
      heartbeat: { status: 'up' },
      sites: [{ url: site.url, status: 'up' }],
      thresholds: { heartbeatSilenceMinutes: 15, siteFailuresForDown: 3 },
    });
    const anonymous = await rt.mf.dispatchFetch('https://watchdog.homelab.example.net/status');
    expect(anonymous.status).toBe(401);
  });

  it('fails loudly, never silently, when configuration is missing', async () => {
    const brokenKv = newKvDir();
    const broken = await startRuntime({ HEARTBEAT_TOKEN: TOKEN, SITES: site.url }, brokenKv.dir);
    try {
      const r = await broken.heartbeat();
      expect(r.status).toBe(500);
      // The caller is told the worker is misconfigured, never which secret is missing.
      const text = await r.text();
      expect(text).toContain('watchdog is not configured');
      expect(text).not.toMatch(/CHAT_WEBHOOK_URL|HEARTBEAT_TOKEN|WATCHDOG_KV/);
      // workerd reports the thrown error as the cron run's outcome, as the Cloudflare dashboard shows it.
      expect((await broken.tick(Date.now())).outcome).toBe('exception');
    } finally {
      await broken.dispose();
      brokenKv.remove();
    }
  });
});
