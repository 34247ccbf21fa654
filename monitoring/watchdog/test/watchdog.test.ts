/** The watchdog worker's heartbeat path in the real workerd runtime (miniflare), driven by scheduled events at chosen times. Its public sites and configuration: sites.test.ts. */
import { describe, expect, it } from 'vitest';
import { MIN, useWatchdog, startRuntime, TOKEN, watchdogPayload } from './harness.ts';

const w = useWatchdog();
const { downs, ups } = w;

describe('heartbeat path', () => {
  it('raises DOWN about 15 min after the last heartbeat, not before (14 and 16 min)', async () => {
    const t0 = Date.now();
    expect((await w.rt.heartbeat()).status).toBe(200);
    await w.rt.tick(t0 + 14 * MIN);
    expect(downs()).toEqual([]);
    await w.rt.tick(t0 + 16 * MIN);
    expect(downs()).toEqual([expect.stringMatching(/^\[WATCHDOG\] DOWN heartbeat: no Alertmanager heartbeat for 1[56] min \(last heartbeat: \d{4}-.*Z\)/)]);
  });

  it('raises UP on the next heartbeat', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    await w.rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
    expect((await w.rt.heartbeat()).status).toBe(200);
    expect(ups()).toEqual([expect.stringMatching(/^\[WATCHDOG\] UP heartbeat: Alertmanager heartbeats are back/)]);
    expect(w.chat.received.filter((m) => m.includes('heartbeat'))).toHaveLength(2);
  });

  it('sends no duplicate alarm over 60 silent minutes', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    for (let m = 1; m <= 60; m++) await w.rt.tick(t0 + m * MIN);
    expect(downs()).toHaveLength(1);
    expect(ups()).toHaveLength(0);
  });

  it('reproduces the silence test: Watchdog silenced 25 min, DOWN ~15 min after the last heartbeat, UP when heartbeats resume', async () => {
    await w.rt.heartbeat(); // the last heartbeat before the silence
    const t0 = Date.parse(((await w.rt.status()).heartbeat as { last: string }).last);
    const downAt: number[] = [];
    for (let m = 1; m <= 25; m++) {
      const before = downs().length;
      await w.rt.tick(t0 + m * MIN);
      if (downs().length > before) downAt.push(m);
    }
    expect(downAt).toEqual([15]);
    await w.rt.heartbeat(); // the silence expires; Alertmanager's next repeat arrives
    expect(ups()).toHaveLength(1);
  });

  it('refuses unauthenticated or malformed heartbeats, and they change nothing', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    const before = (await w.rt.status()).heartbeat as { last: string };
    const cases: [Promise<Response>, number][] = [
      [w.rt.heartbeat(watchdogPayload(), { token: 'wrong' }), 401],
      [w.rt.heartbeat(watchdogPayload(), { token: `${TOKEN}x` }), 401],
      [w.rt.heartbeat(undefined, { raw: '{not json' }), 400],
      [w.rt.heartbeat({ hello: 'world' }), 400],
      [w.rt.heartbeat({ ...watchdogPayload(), alerts: [{ status: 'firing', labels: { alertname: 'InternetDown' } }] }), 422],
      [w.rt.heartbeat(watchdogPayload(), { contentType: 'text/plain' }), 415],
      [w.rt.heartbeat(watchdogPayload(), { contentType: 'application/jsonx' }), 415],
      [w.rt.heartbeat(watchdogPayload(), { contentType: 'application/json-seq' }), 415],
      [w.rt.heartbeat(undefined, { raw: JSON.stringify({ ...watchdogPayload(), pad: 'x'.repeat(70_000) }) }), 413],
    ];
    for (const [response, status] of cases) expect((await response).status).toBe(status);
    const after = (await w.rt.status()).heartbeat as { last: string };
    expect(after.last).toBe(before.last);
    await w.rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
  });

  it('accepts application/json with parameters', async () => {
    expect((await w.rt.heartbeat(watchdogPayload(), { contentType: 'Application/JSON; charset=utf-8' })).status).toBe(200);
  });

  it('answers 405 with the Allow header', async () => {
    const url = 'https://watchdog.homelab.example.net';
    const get = (await w.rt.mf.dispatchFetch(`${url}/heartbeat`, { method: 'GET' })) as unknown as Response;
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    const post = (await w.rt.mf.dispatchFetch(`${url}/status`, { method: 'POST' })) as unknown as Response;
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
    const response = (await w.rt.mf.dispatchFetch('https://watchdog.homelab.example.net/heartbeat', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body as never,
      duplex: 'half',
    } as never)) as unknown as Response;
    expect(response.status).toBe(413);
  });

  it('keeps a DOWN through a chat outage and delivers it, then the UP, in order', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    w.chat.up = false;
    await w.rt.tick(t0 + 16 * MIN);
    await w.rt.tick(t0 + 17 * MIN);
    expect(w.chat.received).toEqual([]);
    await w.rt.heartbeat(); // recovers while chat is still down: both messages are owed
    w.chat.up = true;
    await w.rt.tick(Date.now() + MIN);
    expect(w.chat.received.map((m) => m.slice(0, 24))).toEqual(['[WATCHDOG] DOWN heartbea', '[WATCHDOG] UP heartbeat:']);
  });

  it('keeps its state across a restart of the runtime', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    await w.rt.tick(t0 + 16 * MIN);
    expect(downs()).toHaveLength(1);
    await w.rt.dispose();
    w.rt = await startRuntime({ CHAT_WEBHOOK_URL: w.chat.url, HEARTBEAT_TOKEN: TOKEN, SITES: w.site.url }, w.kv.dir);
    await w.rt.tick(t0 + 17 * MIN);
    await w.rt.tick(t0 + 18 * MIN);
    expect(downs()).toHaveLength(1);
    expect(((await w.rt.status()).heartbeat as { status: string }).status).toBe('down');
  });
});
