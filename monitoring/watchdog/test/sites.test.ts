/** The watchdog worker's public sites, its status and its configuration, in the real workerd runtime (miniflare), driven by scheduled events at chosen times. The heartbeat path: watchdog.test.ts. */
import { describe, expect, it } from 'vitest';
import { MIN, newKvDir, startRuntime, TOKEN, useWatchdog } from './harness.ts';

const w = useWatchdog();
const { downs, ups } = w;

describe('public sites', () => {
  it('needs three consecutive failures for DOWN; the first success raises UP', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    w.site.up = false;
    await w.rt.tick(t0 + MIN);
    await w.rt.tick(t0 + 2 * MIN);
    expect(downs()).toEqual([]);
    await w.rt.tick(t0 + 3 * MIN);
    expect(downs()).toEqual([
      expect.stringMatching(/^\[WATCHDOG\] DOWN site http:\/\/127\.0\.0\.1:\d+\/health: 3 one-minute checks failed in a row .*HTTP 503/),
    ]);
    await w.rt.tick(t0 + 4 * MIN);
    expect(downs()).toHaveLength(1);
    w.site.up = true;
    await w.rt.tick(t0 + 5 * MIN);
    expect(ups()).toEqual([expect.stringMatching(/^\[WATCHDOG\] UP site /)]);
  });

  it('raises nothing for two failures followed by a success', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    w.site.up = false;
    await w.rt.tick(t0 + MIN);
    await w.rt.tick(t0 + 2 * MIN);
    w.site.up = true;
    await w.rt.tick(t0 + 3 * MIN);
    w.site.up = false;
    await w.rt.tick(t0 + 4 * MIN);
    await w.rt.tick(t0 + 5 * MIN);
    expect(w.chat.received).toEqual([]);
  });

  it('stores nothing new while a DOWN site keeps failing, so a day-long outage costs no KV write a minute', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    w.site.up = false;
    for (let m = 1; m <= 3; m++) await w.rt.tick(t0 + m * MIN);
    const stored = async () => (await w.rt.status()).sites as { failures: number; since: string; lastError: string }[];
    const atDown = await stored();
    for (let m = 4; m <= 30; m++) await w.rt.tick(t0 + m * MIN);
    expect(await stored()).toEqual(atDown);
    expect(atDown[0]).toMatchObject({ status: 'down', failures: 3, lastError: 'HTTP 503' });
    // The heartbeat, silent since t0, raises its own DOWN on the way; the site raises one, and one UP.
    expect(downs().filter((m) => m.includes(' site '))).toHaveLength(1);
    w.site.up = true;
    await w.rt.tick(t0 + 31 * MIN);
    expect(ups().filter((m) => m.includes(' site '))).toHaveLength(1);
  });

  it('counts an unreachable site as a failure', async () => {
    const t0 = Date.now();
    await w.rt.heartbeat();
    await w.site.close();
    for (let m = 1; m <= 3; m++) await w.rt.tick(t0 + m * MIN);
    expect(downs()).toHaveLength(1);
  });
});

describe('configuration and status', () => {
  it('answers GET /status only with the token', async () => {
    await w.rt.heartbeat();
    const status = await w.rt.status();
    expect(status).toMatchObject({
      heartbeat: { status: 'up' },
      sites: [{ url: w.site.url, status: 'up' }],
      thresholds: { heartbeatSilenceMinutes: 15, siteFailuresForDown: 3 },
    });
    const anonymous = await w.rt.mf.dispatchFetch('https://watchdog.homelab.example.net/status');
    expect(anonymous.status).toBe(401);
  });

  it('fails loudly, never silently, when configuration is missing', async () => {
    const brokenKv = newKvDir();
    const broken = await startRuntime({ HEARTBEAT_TOKEN: TOKEN, SITES: w.site.url }, brokenKv.dir);
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
