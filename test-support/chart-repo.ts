/**
 * A chart repository of the tests' own: charts written here, packaged with
 * the real `helm package`, indexed with `helm repo index`, and served over
 * HTTP on 127.0.0.1, so pulls, the lock, --mirror and renders run exactly as
 * against a public chart repository. No upstream chart is ever used.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { stringify } from 'yaml';
import { pinnedBinaries } from '../policy-tests/render/tools.ts';
import { output } from './exec.ts';
import { loopbackCertificate } from './https-server.ts';

export interface ChartSpec {
  name: string;
  version: string;
  values?: Record<string, unknown>;
  /** Paths inside the chart (`templates/cm.yaml`, `crds/x.yaml`, `charts/sub/...`) and their text. */
  files: Record<string, string>;
  dependencies?: { name: string; version: string; alias?: string }[];
}

/** Writes a chart folder. */
export function writeChart(dir: string, spec: ChartSpec): string {
  const root = join(dir, spec.name);
  mkdirSync(root, { recursive: true });
  const meta = {
    apiVersion: 'v2',
    name: spec.name,
    version: spec.version,
    ...(spec.dependencies ? { dependencies: spec.dependencies.map((d) => ({ ...d, repository: '' })) } : {}),
  };
  writeFileSync(join(root, 'Chart.yaml'), stringify(meta));
  writeFileSync(join(root, 'values.yaml'), stringify(spec.values ?? {}));
  for (const [path, text] of Object.entries(spec.files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** The pinned Helm and kubectl, extracted once into the shared cache; tests point HELM_BIN / KUSTOMIZE_BIN at them. */
export async function toolEnv(extra: NodeJS.ProcessEnv = {}): Promise<NodeJS.ProcessEnv> {
  const { helm, kubectl } = await pinnedBinaries();
  return { ...process.env, HELM_BIN: helm, KUSTOMIZE_BIN: kubectl, ...extra };
}

export interface ChartRepo {
  url: string;
  dir: string;
  /** Over HTTPS: the certificate a client trusts (SSL_CERT_FILE). */
  certFile?: string;
  /** Packages a chart into the repository and re-indexes it. */
  publish(spec: ChartSpec): Promise<string>;
  close(): Promise<void>;
}

/** Starts an empty chart repository on 127.0.0.1 (a free port), over HTTP, or over HTTPS with a certificate of its own. */
export async function startChartRepo(env: NodeJS.ProcessEnv, o: { https?: boolean } = {}): Promise<ChartRepo> {
  const dir = mkdtempSync(join(tmpdir(), 'chart-repo-'));
  const work = mkdtempSync(join(tmpdir(), 'chart-src-'));
  const tls = o.https ? await loopbackCertificate(work) : undefined;
  const serve: RequestListener = (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://127.0.0.1').pathname)).replace(/^\/+/, '');
    const file = join(dir, path);
    if (!file.startsWith(dir) || !existsSync(file) || path === '') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': path.endsWith('.yaml') ? 'text/yaml' : 'application/gzip' }).end(readFileSync(file));
  };
  const server: Server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, serve) : createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as { port: number }).port}`;
  const helm = env.HELM_BIN!;
  return {
    url,
    dir,
    ...(tls ? { certFile: tls.certFile } : {}),
    async publish(spec) {
      const src = writeChart(join(work, `${spec.name}-${spec.version}`), spec);
      await output(helm, ['package', src, '--destination', dir], { env });
      await output(helm, ['repo', 'index', dir, '--url', url], { env });
      return join(dir, `${spec.name}-${spec.version}.tgz`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      rmSync(dir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    },
  };
}
