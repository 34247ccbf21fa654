/** Configuration from the environment, with defaults that run on a laptop. */
export interface Config {
  baseUrl: string;
  /** Undefined disables writes (the echo route answers 503). */
  apiKey?: string;
  statusFile: string;
  blogFeedUrl: string;
  docsUrl: string;
  port: number;
  metricsPort: number;
  /** Bind address; 0.0.0.0 in the container, loopback by default. */
  host: string;
}

function port(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${name} must be a TCP port (0-65535), got "${value}"`);
  return n;
}

function url(name: string, value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new Error(`${name} must be an absolute URL, got "${value}"`);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const p = port('PORT', env.PORT, 3000);
  return {
    baseUrl: url('BASE_URL', env.BASE_URL || `http://localhost:${p}`),
    apiKey: env.API_KEY ? env.API_KEY : undefined,
    statusFile: env.STATUS_FILE || '/status/status.json',
    blogFeedUrl: url('BLOG_FEED_URL', env.BLOG_FEED_URL || 'https://blog.example.net/rss.xml'),
    docsUrl: url('DOCS_URL', env.DOCS_URL || 'https://github.com/homelab-operator/homelab-gitops/blob/main/portfolio-api/docs/API.md'),
    port: p,
    metricsPort: port('METRICS_PORT', env.METRICS_PORT, 9464),
    host: env.HOST || '127.0.0.1',
  };
}
