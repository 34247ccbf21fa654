/** Prometheus metrics, served on their own port so they are not part of the public surface. */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  requestDuration: Histogram<'method' | 'route' | 'status_code'>;
  blogFetches: Counter;
  blogFetchFailures: Counter;
}

/** Label used for every path that matched no route, so scanners cannot explode the label set. */
export const UNMATCHED_ROUTE = 'unmatched';

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    requestDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request duration by method, route template and status code',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    blogFetches: new Counter({ name: 'blog_origin_fetches_total', help: 'Fetches of the blog RSS feed from its origin', registers: [registry] }),
    blogFetchFailures: new Counter({ name: 'blog_origin_fetch_failures_total', help: 'Failed fetches of the blog RSS feed', registers: [registry] }),
  };
}
