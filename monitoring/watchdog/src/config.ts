/** Bindings, secrets and the watchdog's thresholds (invariants A11, A18). */

export { HEARTBEAT_PATH, HEARTBEAT_PERIOD_MS, HEARTBEAT_SILENCE_MS, SITE_FAILURES_FOR_DOWN } from './limits.ts';
export const SITE_CHECK_TIMEOUT_MS = 10_000;
export const MAX_HEARTBEAT_BYTES = 64 * 1024;

export interface Env {
  WATCHDOG_KV?: KVNamespace;
  CHAT_WEBHOOK_URL?: string;
  HEARTBEAT_TOKEN?: string;
  /** Comma- or newline-separated HTTPS URLs of the public sites to check. */
  SITES?: string;
}

export interface Config {
  kv: KVNamespace;
  chatWebhookUrl: string;
  token: string;
  sites: string[];
}

export class ConfigError extends Error {}

/** Missing configuration is an error the operator sees, never a silent no-op. */
export function loadConfig(env: Env): Config {
  const missing: string[] = [];
  if (!env.WATCHDOG_KV) missing.push('WATCHDOG_KV (KV namespace binding)');
  if (!env.CHAT_WEBHOOK_URL) missing.push('CHAT_WEBHOOK_URL (secret)');
  if (!env.HEARTBEAT_TOKEN) missing.push('HEARTBEAT_TOKEN (secret)');
  const sites = (env.SITES ?? '').split(/[\s,]+/).filter(Boolean);
  if (sites.length === 0) missing.push('SITES (var: the public sites to check)');
  if (missing.length) throw new ConfigError(`watchdog is not configured: missing ${missing.join(', ')}`);
  for (const site of sites) {
    let url: URL;
    try {
      url = new URL(site);
    } catch {
      throw new ConfigError(`watchdog is not configured: SITES entry "${site}" is not a URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(`watchdog is not configured: SITES entry "${site}" is not http(s)`);
  }
  return { kv: env.WATCHDOG_KV!, chatWebhookUrl: env.CHAT_WEBHOOK_URL!, token: env.HEARTBEAT_TOKEN!, sites };
}
