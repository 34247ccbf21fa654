/** qBittorrent's WebUI API (v2): log in for a SID cookie, then read and set global preferences. */
import { Unreachable } from './http.ts';
import { changedFields, type Drift, type FieldChange } from './drift.ts';

export interface QbtSettings {
  app: 'qbittorrent';
  preferences: Record<string, unknown>;
}

export class QbtClient {
  private sid?: string;
  private readonly base: string;
  private readonly username: string;
  private readonly password: string;
  private readonly fetchImpl: typeof fetch;
  constructor(base: string, username: string, password: string, fetchImpl: typeof fetch = fetch) {
    this.base = base;
    this.username = username;
    this.password = password;
    this.fetchImpl = fetchImpl;
  }

  private async request(path: string, form?: Record<string, string>): Promise<Response> {
    try {
      return await this.fetchImpl(`${this.base.replace(/\/$/, '')}${path}`, {
        method: form ? 'POST' : 'GET',
        headers: {
          ...(this.sid ? { cookie: `SID=${this.sid}` } : {}),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
          referer: this.base,
        },
        body: form ? new URLSearchParams(form).toString() : undefined,
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new Unreachable(`${this.base} is unreachable: ${(err as Error).message}`, { cause: err });
    }
  }

  private async login(): Promise<void> {
    if (this.sid) return;
    const response = await this.request('/api/v2/auth/login', { username: this.username, password: this.password });
    const sid = /SID=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    if (!response.ok || (await response.text()) !== 'Ok.' || !sid) throw new Unreachable(`${this.base} refused the login`);
    this.sid = sid;
  }

  async preferences(): Promise<Record<string, unknown>> {
    await this.login();
    const response = await this.request('/api/v2/app/preferences');
    if (!response.ok) throw new Error(`qBittorrent preferences: HTTP ${response.status}`);
    return (await response.json()) as Record<string, unknown>;
  }

  async torrents(): Promise<{ name: string; state: string; hash: string }[]> {
    await this.login();
    const response = await this.request('/api/v2/torrents/info');
    if (!response.ok) throw new Error(`qBittorrent torrents/info: HTTP ${response.status}`);
    return (await response.json()) as { name: string; state: string; hash: string }[];
  }

  async setPreferences(prefs: Record<string, unknown>): Promise<void> {
    await this.login();
    const response = await this.request('/api/v2/app/setPreferences', { json: JSON.stringify(prefs) });
    if (!response.ok) throw new Error(`qBittorrent setPreferences: HTTP ${response.status}`);
  }
}

export async function qbtDrift(client: QbtClient, s: QbtSettings): Promise<Drift[]> {
  const live = await client.preferences();
  const changed = Object.entries(s.preferences).filter(([k, v]) => live[k] !== v);
  const desired = Object.fromEntries(changed);
  return changedFields(
    'qbittorrent',
    (k) => `preferences.${k}`,
    changed.map(([k, v]): FieldChange => [k, live[k], v]),
    () => client.setPreferences(desired),
  );
}
