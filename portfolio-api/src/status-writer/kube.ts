/**
 * The few Kubernetes API calls the status writer needs, over node:https with
 * the pod's service-account token and CA (global fetch cannot take a CA).
 * Endpoints and fields follow the Kubernetes REST API (stable since 1.19, checked against 1.36).
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface KubeOptions {
  server: string;
  token?: string;
  ca?: string;
  timeoutMs?: number;
}

export class KubeError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function inClusterOptions(env: NodeJS.ProcessEnv = process.env): KubeOptions {
  const server = env.KUBE_API_URL ?? 'https://kubernetes.default.svc';
  const read = (name: string) => {
    try {
      return readFileSync(`${env.KUBE_SA_DIR ?? SA_DIR}/${name}`, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  return { server, token: env.KUBE_TOKEN ?? read('token'), ca: read('ca.crt') };
}

export class KubeClient {
  private readonly options: KubeOptions;
  constructor(options: KubeOptions) {
    this.options = options;
  }

  request<T>(method: 'GET' | 'POST' | 'PUT', path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.options.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<T>((resolve, reject) => {
      const req = send(
        url,
        {
          method,
          ca: this.options.ca,
          timeout: this.options.timeoutMs ?? 10_000,
          headers: {
            accept: 'application/json',
            ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
            ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if ((res.statusCode ?? 500) >= 300) {
              let message = text;
              try {
                message = (JSON.parse(text) as { message?: string }).message ?? text;
              } catch {
                // not a Status object
              }
              reject(new KubeError(res.statusCode ?? 500, `${method} ${url.pathname}: HTTP ${res.statusCode} ${message}`.trim()));
              return;
            }
            try {
              resolve(JSON.parse(text) as T);
            } catch {
              reject(new KubeError(502, `${method} ${url.pathname}: response is not JSON`));
            }
          });
        },
      );
      req.on('timeout', () => req.destroy(new KubeError(504, `${method} ${url.pathname}: timed out`)));
      req.on('error', (err) => reject(err instanceof KubeError ? err : new KubeError(0, `${method} ${url.pathname}: ${err.message}`)));
      req.end(payload);
    });
  }
}
