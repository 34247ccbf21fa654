/**
 * Contract fakes of the media apps' APIs, for the endpoints and field names the
 * settings script uses:
 * - Sonarr v4 and Radarr v6: REST under /api/v3 with X-Api-Key (config/mediamanagement,
 *   rootfolder, downloadclient with fields[] and removeCompleted/FailedDownloads,
 *   remotepathmapping {host, remotePath, localPath}, config/host backup*), as documented
 *   in the Servarr API reference.
 * - Prowlarr v2: /api/v1 (indexer fields torrentBaseSettings.seedRatio/seedTime, config/host, applications).
 * - Providers (a manager's downloadclient, Prowlarr's applications), given a ProviderContract, as Sonarr
 *   v4.0.16 and Prowlarr v2.1.5 serve them (ProviderControllerBase, ClientSchema/SchemaBuilder): the
 *   secret field answered as ********, a PUT carrying ******** keeps the stored one, a create or update of
 *   an enabled provider tested first and refused with HTTP 400 and FluentValidation's failures, and
 *   `<providers>/test` running that test alone.
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

const MASKED = '********';
type Failure = { propertyName: string; errorMessage: string };
export type ProviderResource = { id?: number; enable?: boolean; syncLevel?: string; fields?: { name: string; value?: unknown }[] };
export const providerField = (p: ProviderResource, name: string) => p.fields?.find((f) => f.name === name)?.value;

/**
 * One provider collection as the Servarr apps serve it (ProviderControllerBase, SchemaBuilder): its secret
 * field answered as ********, ******** taken back as the stored value, and an enabled provider tested
 * before it is saved (`test` gives the failures of the provider's own test, none when it passes).
 */
export interface ProviderContract {
  secret: string;
  enabled: (p: ProviderResource) => boolean;
  test: (p: ProviderResource) => Failure[];
}

/** Prowlarr's app sync: each app's test calls the manager at its baseUrl with the app's key. */
export const prowlarrApplications = (managerKeys: Record<string, string>): ProviderContract => ({
  secret: 'apiKey',
  enabled: (p) => p.syncLevel === 'addOnly' || p.syncLevel === 'fullSync',
  test: (p) => {
    const expected = managerKeys[String(providerField(p, 'baseUrl')).replace(/\/+$/, '')];
    if (expected === undefined) return [{ propertyName: 'BaseUrl', errorMessage: 'Unable to complete application test, cannot connect to the manager.' }];
    return providerField(p, 'apiKey') === expected ? [] : [{ propertyName: 'ApiKey', errorMessage: 'API Key is invalid' }];
  },
});

/** A manager's download clients: the test logs in to qBittorrent with the client's username and password. */
export const qbittorrentClients = (login: { username: string; password: string }): ProviderContract => ({
  secret: 'password',
  enabled: (p) => p.enable !== false,
  test: (p) =>
    providerField(p, 'username') === login.username && providerField(p, 'password') === login.password
      ? []
      : [{ propertyName: '', errorMessage: 'Authentication failure' }],
});

export async function servarrFake(
  apiVersion: 'v1' | 'v3',
  apiKey: string,
  state: Record<string, unknown>,
  providers: Record<string, ProviderContract> = {},
): Promise<Fake> {
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
    const [collectionName, action] = resource.split('/');
    const contract = providers[collectionName!];
    if (contract) return provider(contract, { method: req.method ?? 'GET', collection: collectionName!, action, id, payload }, send);
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
  type ProviderRequest = { method: string; collection: string; action: string | undefined; id: string | undefined; payload: ProviderResource };
  function provider(contract: ProviderContract, request: ProviderRequest, send: (code: number, value?: unknown) => void) {
    const { method, collection, action, id, payload } = request;
    const list = (state[collection] ??= []) as ProviderResource[];
    const masked = (p: ProviderResource) => ({ ...p, fields: p.fields?.map((f) => (f.name === contract.secret && f.value ? { ...f, value: MASKED } : f)) });
    if (method === 'GET' && !action && !id) return send(200, list.map(masked));
    const stored = list.find((p) => p.id === Number(id ?? payload?.id));
    const resource = {
      ...payload,
      fields: (payload?.fields ?? []).map((f) =>
        f.name === contract.secret && f.value === MASKED && stored ? { name: f.name, value: providerField(stored, contract.secret) } : f,
      ),
    };
    // FluentValidation's failures as the apps serialize them, the submitted secret among them (attemptedValue).
    const failures = (contract.enabled(resource) ? contract.test(resource) : []).map((f) => ({
      ...f,
      attemptedValue: providerField(resource, contract.secret),
    }));
    if (method === 'POST' && action === 'test') return failures.length ? send(400, failures) : send(200, '{}');
    fake.writes.push(`${method} /api/${apiVersion}/${collection}${id ? `/${id}` : ''}`);
    if (method === 'DELETE' && stored) return send(200, list.splice(list.indexOf(stored), 1) && {});
    if ((method === 'PUT' && stored) || (method === 'POST' && !id && !action)) {
      if (failures.length) return send(400, failures);
      const saved = { ...resource, id: stored?.id ?? nextId++ };
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
