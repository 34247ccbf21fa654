/**
 * An HTTPS server on 127.0.0.1 with a certificate openssl makes for it: the
 * upstream a remote kustomize base is fetched from, in tests. The client
 * trusts it through SSL_CERT_FILE, as the gate's fetch honours it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { output } from './exec.ts';

export interface HttpsFiles {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  /** The certificate to trust (SSL_CERT_FILE). */
  certFile: string;
  /** Requests answered so far. */
  requests(): number;
  close(): Promise<void>;
}

/** A key and a self-signed certificate for 127.0.0.1, made by openssl in `dir` (key.pem, cert.pem). */
export async function loopbackCertificate(dir: string): Promise<{ key: Buffer; cert: Buffer; certFile: string }> {
  await output('openssl', [
    ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
    ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
  ]);
  return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')), certFile: join(dir, 'cert.pem') };
}

/** Serves `body(path)` for every GET; 404 where it returns undefined. */
export async function serveHttps(body: (path: string) => string | undefined): Promise<HttpsFiles> {
  const dir = mkdtempSync(join(tmpdir(), 'https-'));
  const { key, cert } = await loopbackCertificate(dir);
  let requests = 0;
  const server = createServer({ key, cert }, (req, res) => {
    requests++;
    const text = body(req.url ?? '/');
    res.statusCode = text === undefined ? 404 : 200;
    res.end(text ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `https://127.0.0.1:${port}`,
    certFile: join(dir, 'cert.pem'),
    requests: () => requests,
    close: async () => {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
