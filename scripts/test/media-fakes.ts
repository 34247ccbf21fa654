/**
 * Contract fakes of the media apps' APIs, for the endpoints and field names the
 * settings script uses:
 * - Sonarr v4 and Radarr v6: REST under /api/v3 with X-Api-Key (config/mediamanagement,
 *   rootfolder, downloadclient with fields[] and removeCompleted/FailedDownloads,
 *   remotepathmapping {host, remotePath, localPath}, config/host backup*), as documented
 *   in the Servarr API reference.
 * - Prowlarr v2: /api/v1 (indexer fields torrentBaseSettings.seedRatio/seedTime, config/host), and with
 *   `managerKeys` its app sync as v2.1.5 serves it (ProviderControllerBase, SchemaBuilder): `applications`
 *   answers each apiKey as ********, a PUT carrying ******** keeps the stored key, a create or update of an
 *   enabled app (syncLevel addOnly or fullSync) is tested first and refused with HTTP 400 and FluentValidation's
 *   failures when the manager at its baseUrl refuses the key, and `applications/test` runs that test alone.
 * - qBittorrent 5.x WebUI API v2: auth/login (form, SID cookie, body "Ok."), app/preferences,
 *   app/setPreferences (form field json), torrents/info ([{hash, name, state}]).
 * Unknown routes answer 404; a wrong key 401, as the real apps do.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Fake {
  url: string;
  state: Record<string, unknown>;
  writes: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function body(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c) => (text += c));
    req.on('end', () => resolve(text));
  });
}

/** The API key each manager takes, by its address: what Prowlarr's test of an app meets there. */
export type ManagerKeys = Record<string, string>;

const MASKED = '********';
type AppResource = { id?: number; syncLevel?: string; fields?: { name: string; value?: unknown }[] };
const appField = (a: AppResource, name: string) => a.fields?.find((f) => f.name === name)?.value;

/** Prowlarr's app sync: the body to store (the stored key kept for ********), or the test's failures. */
function prowlarrApplication(payload: AppResource, stored: AppResource | undefined, managerKeys: ManagerKeys) {
  const fields = (payload.fields ?? []).map((f) =>
    f.name === 'apiKey' && f.value === MASKED && stored ? { name: f.name, value: appField(stored, 'apiKey') } : f,
  );
  const resource = { ...payload, fields };
  const enabled = resource.syncLevel === 'addOnly' || resource.syncLevel === 'fullSync';
  const expected = managerKeys[String(appField(resource, 'baseUrl')).replace(/\/+$/, '')];
  if (enabled && expected === undefined)
    return { failures: [{ propertyName: 'BaseUrl', errorMessage: 'Unable to complete application test, cannot connect to the manager.' }] };
  if (enabled && appField(resource, 'apiKey') !== expected) return { failures: [{ propertyName: 'ApiKey', errorMessage: 'API Key is invalid' }] };
  return { resource };
}
const masked = (a: AppResource) => ({ ...a, fields: a.fields?.map((f) => (f.name === 'apiKey' && f.value ? { ...f, value: MASKED } : f)) });

export async function servarrFake(apiVersion: 'v1' | 'v3', apiKey: string, state: Record<string, unknown>, managerKeys?: ManagerKeys): Promise<Fake> {
  const fake: Fake = { url: '', state, writes: [], close: async () => undefined };
  let nextId = 100;
  const server = createServer((req, res) => void servarrRequest(req, res).catch((err: unknown) => res.writeHead(500).end(String(err))));
  async function servarrRequest(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const send = (code: number, value?: unknown) =>
      res.writeHead(code, { 'content-type': 'application/json' }).end(value === undefined ? '' : JSON.stringify(value));
    if (req.headers['x-api-key'] !== apiKey) return send(401, { message: 'Unauthorized' });
    const url = new URL(req.url ?? '/', 'http://x');
    const m = new RegExp(`^/api/${apiVersion}/([a-z/]+?)(?:/(\\d+))?$`).exec(url.pathname);
    if (!m) return send(404);
    const [, resource, id] = m as unknown as [string, string, string | undefined];
    const text = await body(req);
    const payload = text ? JSON.parse(text) : undefined;
    const collection = state[resource];
    if (managerKeys && resource.startsWith('applications')) return applications({ method: req.method ?? 'GET', resource, id, payload }, send);
    if (req.method !== 'GET') fake.writes.push(`${req.method} ${url.pathname}`);
    if (Array.isArray(collection)) {
      const list = collection as { id: number }[];
      if (req.method === 'GET' && !id) return send(200, list);
      if (req.method === 'POST' && !id) {
        const created = { ...payload, id: nextId++ };
        list.push(created);
        return send(201, created);
      }
      const index = list.findIndex((x) => x.id === Number(id));
      if (index === -1) return send(404);
      if (req.method === 'PUT') return send(202, (list[index] = { ...payload, id: Number(id) }));
      if (req.method === 'DELETE') return send(200, list.splice(index, 1) && {});
    } else if (collection && typeof collection === 'object') {
      if (req.method === 'GET' && !id) return send(200, collection);
      if (req.method === 'PUT' && Number(id) === (collection as { id: number }).id) return send(202, (state[resource] = { ...payload }));
    }
    send(404);
  }
  type AppRequest = { method: string; resource: string; id: string | undefined; payload: AppResource };
  function applications({ method, resource, id, payload }: AppRequest, send: (code: number, value?: unknown) => void) {
    const list = (state.applications ??= []) as AppResource[];
    if (method === 'GET' && resource === 'applications' && !id) return send(200, list.map(masked));
    const stored = list.find((a) => a.id === Number(id ?? payload?.id));
    if (method === 'POST' && resource === 'applications/test') {
      const tested = prowlarrApplication(payload, stored, managerKeys!);
      return tested.failures ? send(400, tested.failures) : send(200, '{}');
    }
    fake.writes.push(`${method} /api/v1/${resource}${id ? `/${id}` : ''}`);
    if (method === 'DELETE' && stored) return send(200, list.splice(list.indexOf(stored), 1) && {});
    if ((method === 'PUT' && stored) || (method === 'POST' && !id)) {
      const checked = prowlarrApplication(payload, stored, managerKeys!);
      if (checked.failures) return send(400, checked.failures);
      const saved = { ...checked.resource, id: stored?.id ?? nextId++ };
      if (stored) list[list.indexOf(stored)] = saved;
      else list.push(saved);
      return send(stored ? 202 : 201, masked(saved));
    }
    send(404);
  }
  fake.url = await listen(server);
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}

export async function qbittorrentFake(username: string, password: string, preferences: Record<string, unknown>): Promise<Fake> {
  const fake: Fake = { url: '', state: { preferences }, writes: [], close: async () => undefined };
  const server = createServer((req, res) => void qbittorrentRequest(req, res).catch((err: unknown) => res.writeHead(500).end(String(err))));
  async function qbittorrentRequest(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
    const url = new URL(req.url ?? '/', 'http://x');
    const form = new URLSearchParams(await body(req));
    if (url.pathname === '/api/v2/auth/login' && req.method === 'POST') {
      if (form.get('username') !== username || form.get('password') !== password) return res.writeHead(200).end('Fails.');
      return res.writeHead(200, { 'set-cookie': 'SID=fake-session; HttpOnly; path=/' }).end('Ok.');
    }
    if (req.headers.cookie !== 'SID=fake-session') return res.writeHead(403).end('Forbidden');
    if (url.pathname === '/api/v2/app/preferences' && req.method === 'GET')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.state.preferences));
    if (url.pathname === '/api/v2/torrents/info' && req.method === 'GET')
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(fake.state.torrents ?? []));
    if (url.pathname === '/api/v2/app/setPreferences' && req.method === 'POST') {
      fake.writes.push(`setPreferences ${form.get('json')}`);
      fake.state.preferences = { ...(fake.state.preferences as object), ...JSON.parse(form.get('json') ?? '{}') };
      return res.writeHead(200).end();
    }
    res.writeHead(404).end();
  }
  fake.url = await listen(server);
  fake.close = () => new Promise((r) => server.close(() => r()));
  return fake;
}
