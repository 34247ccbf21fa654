/** The status writer: pure composition, and a run against a contract fake of the Kubernetes API. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseStatus } from '../src/infra/status-file.ts';
import { checkPassed, composeStatus, rollHistory, type Observations } from '../src/status-writer/compose.ts';
import { KubeClient } from '../src/status-writer/kube.ts';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEFAULT_TARGET, STATUS_KEY, targetFromEnv, writeStatus } from '../src/status-writer/writer.ts';
import { expandRequest, type ApiRequests } from '../../policy-tests/model/apps/api-requests.ts';
import { startFakeCluster, type FakeCluster } from './kube-fake.ts';
import { CLUSTER_VERSIONS } from './cluster-versions.ts';

const obs = (over: Partial<Observations> = {}): Observations => ({
  now: new Date('2026-11-22T10:00:00Z'),
  build: 'portfolio-api:1.0.0',
  argocd: { sync: 'Synced', health: 'Healthy' },
  nodes: { ready: 6, total: 6 },
  versions: CLUSTER_VERSIONS,
  certNotAfter: '2027-02-01T00:00:00Z',
  ...over,
});

describe('compose (pure)', () => {
  it('produces a status the API accepts', () => {
    const status = composeStatus(obs());
    expect(parseStatus(JSON.stringify(status))).toEqual(status);
    expect(status.history).toEqual([{ d: '2026-11-22', ok: 1, total: 1 }]);
  });

  it('counts a check as failed when Argo CD is not synced and healthy or a node is not ready', () => {
    expect(checkPassed(obs())).toBe(true);
    expect(checkPassed(obs({ argocd: { sync: 'OutOfSync', health: 'Healthy' } }))).toBe(false);
    expect(checkPassed(obs({ argocd: { sync: 'Synced', health: 'Degraded' } }))).toBe(false);
    expect(checkPassed(obs({ nodes: { ready: 5, total: 6 } }))).toBe(false);
  });

  it('rolls the history forward, one entry per day, 30 days at most', () => {
    let history = rollHistory([], new Date('2026-10-01T00:00:00Z'), true);
    for (let i = 0; i < 40 * 288; i += 96) history = rollHistory(history, new Date(Date.parse('2026-10-01T00:00:00Z') + i * 300_000), i % 192 === 0);
    expect(history).toHaveLength(30);
    expect(history.at(-1)!.d > history[0]!.d).toBe(true);
    const days = history.map((h) => h.d);
    expect(new Set(days).size).toBe(30);
    expect(history.every((h) => h.ok <= h.total)).toBe(true);
  });

  it('adds to today and drops days older than the window', () => {
    const previous = [
      { d: '2026-10-01', ok: 10, total: 10 },
      { d: '2026-11-22', ok: 3, total: 4 },
    ];
    expect(rollHistory(previous, new Date('2026-11-22T12:00:00Z'), false)).toEqual([{ d: '2026-11-22', ok: 3, total: 5 }]);
  });
});

describe('writer against the Kubernetes API contract fake', () => {
  let cluster: FakeCluster;
  let kube: KubeClient;
  beforeEach(async () => {
    cluster = await startFakeCluster();
    kube = new KubeClient({ server: cluster.url, token: cluster.token });
  });
  afterEach(() => cluster.close());

  const stored = () => JSON.parse(cluster.configMaps.get('portfolio/portfolio-infra-status')!.data![STATUS_KEY]!);

  it('creates the ConfigMap on the first run and rolls history on the next', async () => {
    await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:00:00Z'));
    expect(stored()).toMatchObject({
      build: 'portfolio-api:1.0.0',
      nodes: { ready: 6, total: 6 },
      versions: CLUSTER_VERSIONS,
      argocd: { sync: 'Synced', health: 'Healthy' },
    });
    cluster.nodes[2]!.ready = false;
    await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:05:00Z'));
    expect(stored().history).toEqual([{ d: '2026-11-22', ok: 1, total: 2 }]);
    expect(stored().nodes).toEqual({ ready: 5, total: 6 });
  });

  // The gate authorizes the writer's CronJob for these requests (program-api-authorized): they must be what it sends.
  it("sends exactly the requests the image's facts list, with the CronJob's variables read as the writer reads them", async () => {
    const facts = parse(readFileSync(new URL('../deploy/facts/images.yaml', import.meta.url), 'utf8')) as { images: { apiRequests?: ApiRequests[] }[] };
    const [writer] = facts.images[0]!.apiRequests!;
    for (const env of [{}, { STATUS_NAMESPACE: 'lab', STATUS_CONFIGMAP: 'status', ARGO_APP: 'api', CERTIFICATE: 'api-tls' }] as Record<string, string>[]) {
      cluster.requests.length = 0;
      cluster.configMaps.clear();
      // The first run creates the ConfigMap, the next replaces it.
      for (const minute of ['00', '05']) await writeStatus(kube, targetFromEnv(env), new Date(`2026-11-22T10:${minute}:00Z`));
      const listed = writer!.requests.map((r) => expandRequest(r, (name) => env[name])).map((r) => ('url' in r ? `${r.method} ${r.url}` : r.unread));
      expect(new Set(cluster.requests)).toEqual(new Set(listed));
      // And the data keys it writes are the ones the facts say (dataKeys): the files a pod mounting the ConfigMap finds.
      for (const written of cluster.configMaps.values()) expect(Object.keys(written.data ?? {}).sort()).toEqual([...(writer!.dataKeys ?? [])].sort());
      expect(cluster.configMaps.size).toBe(1);
    }
  });

  it('retries on a resourceVersion conflict instead of overwriting a concurrent write', async () => {
    await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:00:00Z'));
    cluster.raceNextWrite = true;
    await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:05:00Z'));
    expect(cluster.requests.filter((r) => r.startsWith('PUT'))).toHaveLength(2);
    expect(stored().history).toEqual([{ d: '2026-11-22', ok: 2, total: 2 }]);
  });

  it('reports Unknown when the Argo CD Application is missing', async () => {
    cluster.app = undefined;
    const status = await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:00:00Z'));
    expect(status.argocd).toEqual({ sync: 'Unknown', health: 'Unknown' });
  });

  it('writes nothing, and says why, when the certificate is not issued or the API refuses', async () => {
    cluster.certNotAfter = undefined;
    await expect(writeStatus(kube, DEFAULT_TARGET, new Date())).rejects.toThrow(/no status.notAfter/);
    expect(cluster.configMaps.size).toBe(0);
    await expect(writeStatus(new KubeClient({ server: cluster.url, token: 'wrong' }), DEFAULT_TARGET, new Date())).rejects.toThrow(/HTTP 401/);
    await expect(writeStatus(new KubeClient({ server: 'http://127.0.0.1:9', token: 'x', timeoutMs: 1000 }), DEFAULT_TARGET, new Date())).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(cluster.configMaps.size).toBe(0);
  });

  it('starts a new history when the stored status is corrupt', async () => {
    cluster.configMaps.set('portfolio/portfolio-infra-status', { data: { [STATUS_KEY]: '{"half": ' }, resourceVersion: '1' });
    const warnings: string[] = [];
    await writeStatus(kube, DEFAULT_TARGET, new Date('2026-11-22T10:00:00Z'), (m) => warnings.push(m));
    expect(warnings).toEqual([expect.stringMatching(/previous status is invalid/)]);
    expect(stored().history).toEqual([{ d: '2026-11-22', ok: 1, total: 1 }]);
  });
});
