/**
 * External watchdog (hosting spec, Events): a Cloudflare Worker that raises
 * [WATCHDOG] DOWN when the cluster's alert path goes silent or a public site
 * stops answering, and [WATCHDOG] UP when it recovers.
 *
 *   POST /heartbeat  Alertmanager's Watchdog route, every 5 min (Bearer token)
 *   GET  /status     current state, for humans (same token)
 *   cron * * * * *   heartbeat age, one check of every site, chat delivery
 */
import { flush } from './chat.ts';
import {
  ConfigError,
  HEARTBEAT_PATH,
  HEARTBEAT_SILENCE_MS,
  loadConfig,
  SITE_CHECK_TIMEOUT_MS,
  SITE_FAILURES_FOR_DOWN,
  type Config,
  type Env,
} from './config.ts';
import { authenticate, HttpError, readHeartbeat } from './heartbeat.ts';
import { HEARTBEAT_KEY, HEARTBEAT_STATE_KEY, readState, siteStateKey, transition, writeState, type WatchState } from './state.ts';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body, null, 2), { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
/** 405 with the Allow header RFC 9110 requires. */
const notAllowed = (allow: string) => json(405, { error: `use ${allow}` }, { allow });
const iso = (t: number) => new Date(t).toISOString();

async function withState(config: Config, key: string, now: number, change: (state: WatchState) => boolean | Promise<boolean>): Promise<WatchState> {
  const state = await readState(config.kv, key, now);
  const before = JSON.stringify(state);
  await change(state);
  const delivered = await flush(state.pending, config.chatWebhookUrl);
  if (delivered || JSON.stringify(state) !== before) await writeState(config.kv, key, state);
  return state;
}

async function recordHeartbeat(config: Config, now: number): Promise<void> {
  const previous = await config.kv.get(HEARTBEAT_KEY);
  await config.kv.put(HEARTBEAT_KEY, iso(now));
  await withState(config, HEARTBEAT_STATE_KEY, now, (state) =>
    transition(
      state,
      'up',
      now,
      `[WATCHDOG] UP heartbeat: Alertmanager heartbeats are back at ${iso(now)} (silent since ${previous ?? 'unknown'}, DOWN since ${state.since})`,
    ),
  );
}

async function checkHeartbeat(config: Config, now: number): Promise<void> {
  await withState(config, HEARTBEAT_STATE_KEY, now, async (state) => {
    const last = await config.kv.get(HEARTBEAT_KEY);
    // Before the first heartbeat, silence is measured from when watching began.
    const lastTime = last ? Date.parse(last) : Date.parse(state.since);
    if (now - lastTime < HEARTBEAT_SILENCE_MS) return false;
    return transition(
      state,
      'down',
      now,
      `[WATCHDOG] DOWN heartbeat: no Alertmanager heartbeat for ${Math.floor((now - lastTime) / 60_000)} min (last heartbeat: ${last ?? 'never'}). The cluster, the metrics store, the alert router or the home line is down.`,
    );
  });
}

async function probe(url: string): Promise<string | undefined> {
  try {
    const response = await fetch(url, {
      method: 'GET',
      redirect: 'manual',
      signal: AbortSignal.timeout(SITE_CHECK_TIMEOUT_MS),
      headers: { 'user-agent': 'homelab-watchdog' },
    });
    await response.arrayBuffer();
    return response.status < 400 ? undefined : `HTTP ${response.status}`;
  } catch (err) {
    return (err as Error).name === 'TimeoutError' ? `no answer within ${SITE_CHECK_TIMEOUT_MS / 1000} s` : (err as Error).message;
  }
}

async function checkSite(config: Config, url: string, now: number): Promise<void> {
  const error = await probe(url);
  await withState(config, siteStateKey(url), now, (state) => {
    if (error === undefined) {
      state.failures = 0;
      state.lastError = undefined;
      return transition(state, 'up', now, `[WATCHDOG] UP site ${url}: answering again at ${iso(now)} (DOWN since ${state.since})`);
    }
    // A site already DOWN changes nothing stored while it keeps failing: no KV write a minute for as long as it is
    // down (the free plan allows 1,000 writes a day, and a day of one outage would take 1,440). The DOWN message
    // carries the error that raised it.
    if (state.status === 'down') return false;
    state.failures += 1;
    state.lastError = error;
    if (state.failures < SITE_FAILURES_FOR_DOWN) return true;
    return transition(
      state,
      'down',
      now,
      `[WATCHDOG] DOWN site ${url}: ${state.failures} one-minute checks failed in a row from the internet (last: ${error}) at ${iso(now)}`,
    );
  });
}

async function handle(request: Request, env: Env): Promise<Response> {
  const config = loadConfig(env);
  const { pathname } = new URL(request.url);
  if (pathname === HEARTBEAT_PATH) {
    if (request.method !== 'POST') return notAllowed('POST');
    await authenticate(request, config.token);
    await readHeartbeat(request);
    const now = Date.now();
    await recordHeartbeat(config, now);
    return json(200, { ok: true, heartbeat: iso(now) });
  }
  if (pathname === '/status') {
    if (request.method !== 'GET') return notAllowed('GET');
    await authenticate(request, config.token);
    const now = Date.now();
    const sites = await Promise.all(config.sites.map(async (url) => ({ url, ...(await readState(config.kv, siteStateKey(url), now)) })));
    return json(200, {
      heartbeat: { last: await config.kv.get(HEARTBEAT_KEY), ...(await readState(config.kv, HEARTBEAT_STATE_KEY, now)) },
      sites,
      thresholds: { heartbeatSilenceMinutes: HEARTBEAT_SILENCE_MS / 60_000, siteFailuresForDown: SITE_FAILURES_FOR_DOWN },
    });
  }
  return json(404, { error: 'no such route' });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    try {
      return await handle(request, env);
    } catch (err) {
      if (err instanceof HttpError) return json(err.status, { error: err.message });
      // The caller learns only that the worker is misconfigured; which binding or secret is missing goes to the log.
      if (err instanceof ConfigError) {
        console.error(err.message);
        return json(500, { error: 'watchdog is not configured; see the worker log' });
      }
      throw err;
    }
  },

  async scheduled(event: ScheduledController, env: Env): Promise<void> {
    // Throws on missing configuration: the cron run fails loudly in the dashboard and logs.
    const config = loadConfig(env);
    const now = event.scheduledTime;
    await Promise.all([checkHeartbeat(config, now), ...config.sites.map((url) => checkSite(config, url, now))]);
  },
} satisfies ExportedHandler<Env>;
