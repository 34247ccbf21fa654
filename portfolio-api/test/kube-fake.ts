/**
 * Contract fake of the Kubernetes API (REST, as served by the Kubernetes minor in the cluster facts, 1.36 today) for
 * exactly the endpoints the status writer uses: GET /version, GET
 * /api/v1/nodes, GET of an Argo CD Application (argoproj.io/v1alpha1), a
 * cert-manager Certificate (cert-manager.io/v1) and a Deployment (apps/v1),
 * and GET/POST/PUT of ConfigMaps with resourceVersion optimistic concurrency
 * (409 Conflict on a stale resourceVersion, 409 AlreadyExists on a duplicate
 * create). Errors are metav1.Status objects. Requests need the bearer token.
 */
import { createServer, type Server } from 'node:http';
import { CLUSTER_VERSIONS, KUBERNETES_MINOR } from './cluster-versions.ts';

export interface FakeCluster {
  url: string;
  token: string;
  nodes: { ready: boolean }[];
  talos: string;
  app?: { sync: string; health: string };
  certNotAfter?: string;
  image: string;
  configMaps: Map<string, { data?: Record<string, string>; resourceVersion: string }>;
  /** Bump the ConfigMap's resourceVersion right after the next GET of it, as a concurrent writer would. */
  raceNextWrite: boolean;
  requests: string[];
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, code };
}

export async function startFakeCluster(): Promise<FakeCluster> {
  let rv = 100;
  const fake: FakeCluster = {
    url: '',
    token: 'sa-token',
    nodes: Array.from({ length: 6 }, () => ({ ready: true })),
    talos: CLUSTER_VERSIONS.talos,
    app: { sync: 'Synced', health: 'Healthy' },
    certNotAfter: '2027-02-01T00:00:00Z',
    image: 'ghcr.io/homelab-operator/portfolio-api:1.0.0',
    configMaps: new Map(),
    raceNextWrite: false,
    requests: [],
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const send = (code: number, body: unknown) => res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      fake.requests.push(`${req.method} ${path}`);
      if (req.headers.authorization !== `Bearer ${fake.token}`) return send(401, status(401, 'Unauthorized', 'Unauthorized'));
      const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      if (req.method === 'GET' && path === '/version')
        return send(200, { major: '1', minor: KUBERNETES_MINOR, gitVersion: CLUSTER_VERSIONS.kubernetes, platform: 'linux/amd64' });
      if (req.method === 'GET' && path === '/api/v1/nodes') {
        return send(200, {
          kind: 'NodeList',
          apiVersion: 'v1',
          items: fake.nodes.map((n, i) => ({
            metadata: { name: `node-${i}` },
            status: {
              conditions: [{ type: 'Ready', status: n.ready ? 'True' : 'False' }],
              nodeInfo: { osImage: `Talos (${fake.talos})`, kubeletVersion: CLUSTER_VERSIONS.kubernetes },
            },
          })),
        });
      }
      let m = /^\/apis\/argoproj\.io\/v1alpha1\/namespaces\/([^/]+)\/applications\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m) {
        if (!fake.app) return send(404, status(404, 'NotFound', `applications.argoproj.io "${m[2]}" not found`));
        return send(200, {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Application',
          metadata: { name: m[2], namespace: m[1] },
          status: { sync: { status: fake.app.sync }, health: { status: fake.app.health } },
        });
      }
      m = /^\/apis\/cert-manager\.io\/v1\/namespaces\/([^/]+)\/certificates\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m)
        return send(200, {
          apiVersion: 'cert-manager.io/v1',
          kind: 'Certificate',
          metadata: { name: m[2] },
          status: fake.certNotAfter ? { notAfter: fake.certNotAfter } : {},
        });
      m = /^\/apis\/apps\/v1\/namespaces\/([^/]+)\/deployments\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && m)
        return send(200, {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name: m[2] },
          spec: { template: { spec: { containers: [{ name: 'api', image: fake.image }] } } },
        });
      m = /^\/api\/v1\/namespaces\/([^/]+)\/configmaps(?:\/([^/]+))?$/.exec(path);
      if (m) {
        const key = `${m[1]}/${m[2] ?? body?.metadata?.name}`;
        const existing = fake.configMaps.get(key);
        const asObject = (name: string, cm: { data?: Record<string, string>; resourceVersion: string }) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, namespace: m![1], resourceVersion: cm.resourceVersion },
          data: cm.data,
        });
        if (req.method === 'GET' && m[2]) {
          if (!existing) return send(404, status(404, 'NotFound', `configmaps "${m[2]}" not found`));
          const answer = asObject(m[2], existing);
          if (fake.raceNextWrite) {
            fake.raceNextWrite = false;
            existing.resourceVersion = String(++rv);
          }
          return send(200, answer);
        }
        if (req.method === 'POST' && !m[2]) {
          if (existing) return send(409, status(409, 'AlreadyExists', `configmaps "${body.metadata.name}" already exists`));
          const created = { data: body.data, resourceVersion: String(++rv) };
          fake.configMaps.set(key, created);
          return send(201, asObject(body.metadata.name, created));
        }
        if (req.method === 'PUT' && m[2]) {
          if (!existing) return send(404, status(404, 'NotFound', `configmaps "${m[2]}" not found`));
          if (body?.metadata?.resourceVersion !== existing.resourceVersion) {
            return send(
              409,
              status(
                409,
                'Conflict',
                `Operation cannot be fulfilled on configmaps "${m[2]}": the object has been modified; please apply your changes to the latest version and try again`,
              ),
            );
          }
          const updated = { data: body.data, resourceVersion: String(++rv) };
          fake.configMaps.set(key, updated);
          return send(200, asObject(m[2], updated));
        }
      }
      send(404, status(404, 'NotFound', 'the server could not find the requested resource'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  fake.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
