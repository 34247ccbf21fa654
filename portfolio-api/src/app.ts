/** The Express application, built from the route table. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { SwrCache } from './blog/cache.ts';
import { fetchFeed, parseFeed, type Post } from './blog/feed.ts';
import type { Config } from './config.ts';
import { envelope, HttpError } from './http/errors.ts';
import { createLogger, redactHeaders, type Logger } from './logging.ts';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.ts';
import { BLOG_TTL_MS, ROUTES, type RouteContext, type RouteDef } from './routes/table.ts';

export interface AppDeps {
  config: Config;
  metrics: Metrics;
  logger?: Logger;
  routes?: readonly RouteDef[];
  isReady?: () => boolean;
  fetchImpl?: typeof fetch;
  now?: () => number;
  /** Feed fetch timeout; 5 s (docs/API.md) unless a test shortens it. */
  feedTimeoutMs?: number;
  /** The blog cache, when the caller shares one between handlers (createHandler's fast path and Express). */
  blog?: SwrCache<Post[]>;
}

export const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type',
  'access-control-max-age': '600',
} as const;

/**
 * Browser hardening on every response, errors included: no MIME sniffing, a
 * policy that lets a JSON answer load nothing and be framed by nobody, and
 * reads across origins (the API is public, as its CORS says). HSTS is set at
 * the public proxy (deploy/middleware.yaml), where TLS ends.
 */
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'cross-origin-resource-policy': 'cross-origin',
  'referrer-policy': 'no-referrer',
} as const;

/** Routes whose answer only changes with the code (or the deploy): serialised once per process. */
const STATIC_ROUTES = new Set(['getIndex', 'getOpenApi', 'getProfile']);
/**
 * Routes computed per request, answered before Express dispatch when they
 * succeed: health, the blog listing (the same object between revalidations)
 * and the infrastructure status (the same object while the file on disk is
 * unchanged). A value seen before is written from the bytes it serialised to.
 */
const DYNAMIC_ROUTES = new Set(['getHealth', 'getBlog', 'getInfra']);
const JSON_TYPE = 'application/json; charset=utf-8';

/** A 200 answer of a GET route: its body and headers, made once where they never change. */
interface Answer {
  route: RouteDef;
  body: Buffer;
  headers: Record<string, string | number>;
}

/** Records one finished request: the duration histogram and the access log line. */
function recorder(metrics: Metrics, logger: Logger) {
  // Label children are cached: the label set is bounded (routes x methods x statuses) and lookups are per request.
  const children = new Map<string, ReturnType<Metrics['requestDuration']['labels']>>();
  return (
    { method, path, route, status }: { method: string; path: string; route: string; status: number },
    headers: Record<string, unknown>,
    start: bigint,
  ) => {
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    const key = `${method} ${route} ${status}`;
    let child = children.get(key);
    if (!child) children.set(key, (child = metrics.requestDuration.labels(method, route, String(status))));
    child.observe(seconds);
    logger.info('request', { method, path, route, status, durationMs: Math.round(seconds * 1e4) / 10, headers: redactHeaders(headers) });
  };
}

function allowedMethods(routes: readonly RouteDef[], path: string): string[] {
  const methods = routes.filter((r) => r.path === path).map((r) => r.method);
  return [...methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])), 'OPTIONS'];
}

export function createBlogCache(
  config: Config,
  metrics: Metrics,
  logger: Logger,
  options: { fetchImpl?: typeof fetch; now?: () => number; timeoutMs?: number } = {},
): SwrCache<Post[]> {
  const { fetchImpl, now, timeoutMs } = options;
  return new SwrCache(
    async () => {
      metrics.blogFetches.inc();
      return parseFeed(await fetchFeed(config.blogFeedUrl, { fetchImpl, timeoutMs }));
    },
    {
      ttlMs: BLOG_TTL_MS,
      failureBackoffMs: 30_000,
      now,
      onError: (err) => {
        metrics.blogFetchFailures.inc();
        logger.warn('blog feed refresh failed', { error: (err as Error).message });
      },
    },
  );
}

export function createApp(deps: AppDeps) {
  const { config, metrics } = deps;
  const logger = deps.logger ?? createLogger();
  const routes = deps.routes ?? ROUTES;
  const ctx: RouteContext = {
    config,
    routes,
    blog: deps.blog ?? createBlogCache(config, metrics, logger, { fetchImpl: deps.fetchImpl, now: deps.now, timeoutMs: deps.feedTimeoutMs }),
    isReady: deps.isReady ?? (() => true),
  };
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  const record = recorder(metrics, logger);
  // CORS on every response, errors included; metrics and access log once the response is done.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const start = process.hrtime.bigint();
    res.set('access-control-allow-origin', '*').set(SECURITY_HEADERS);
    res.on('finish', () =>
      record(
        { method: req.method, path: req.path, route: (res.locals.route as string | undefined) ?? UNMATCHED_ROUTE, status: res.statusCode },
        req.headers,
        start,
      ),
    );
    next();
  });

  for (const route of routes) {
    const method = route.method === 'GET' ? 'get' : 'post';
    app[method](route.path, async (req: Request, res: Response, next: NextFunction) => {
      res.locals.route = route.path;
      try {
        const body = JSON.stringify(await route.handler(ctx, req));
        res.status(200).set({ 'cache-control': route.cacheControl, 'content-type': JSON_TYPE }).send(body);
      } catch (err) {
        next(err);
      }
    });
  }

  const knownPaths = new Set(routes.map((r) => r.path));
  app.use((req: Request, _res: Response, next: NextFunction) => {
    // Express matches paths case-insensitively and ignores a trailing slash; so does this lookup.
    const path = [...knownPaths].find((p) => p.toLowerCase() === req.path.replace(/\/+$/, '').toLowerCase());
    // The message names no part of the request: a path echoed back is a reflection an attacker writes.
    if (!path) return next(new HttpError(404, 'no such route'));
    _res.locals.route = path;
    const allow = allowedMethods(routes, path).join(', ');
    if (req.method === 'OPTIONS') {
      _res
        .status(204)
        .set({ ...CORS_HEADERS, allow, 'cache-control': 'no-store' })
        .end();
      return;
    }
    next(new HttpError(405, `method not allowed here; allowed: ${allow}`, { allow }));
  });

  app.use((raw: unknown, req: Request, res: Response, _next: NextFunction) => {
    // Errors raised by Express itself (a malformed %-escape in the URL, say) carry their own 4xx status.
    const clientStatus = (raw as { status?: unknown })?.status;
    const err =
      !(raw instanceof HttpError) && typeof clientStatus === 'number' && clientStatus >= 400 && clientStatus < 500
        ? new HttpError(clientStatus, clientStatus === 400 ? 'malformed request' : (raw as Error).message)
        : raw;
    const known = err instanceof HttpError;
    const status = known ? err.status : 500;
    if (!known) logger.error('unhandled error', { method: req.method, path: req.path, error: (err as Error)?.stack ?? String(err) });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const headers = known ? err.headers : {};
    res.status(status).set({ ...headers, 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' });
    // The body of a refused request (too large, or not authorised) was not read to the end: left on a
    // kept-alive connection, its bytes would be parsed as a second request. Close instead.
    if ((status === 413 || status === 401) && !req.complete) res.set('connection', 'close');
    res.send(JSON.stringify(envelope(status, known ? err.message : 'internal server error')));
  });

  return app;
}

/**
 * The server's request handler: the Express app, with its static GET routes
 * answered before Express dispatch (their bytes never change while the
 * process runs, so they are serialised once), and health, blog and infra too
 * when they succeed (each value serialised once). Both are written with the
 * same headers, metrics and log line the Express route would produce;
 * everything else (HEAD, query strings, trailing slashes, errors) goes
 * through Express.
 */
export function createHandler(deps: AppDeps): (req: IncomingMessage, res: ServerResponse) => void {
  // One logger for both paths, so the fast path and Express write to the same sink.
  const logger = deps.logger ?? createLogger();
  // One blog cache for both paths, so a revalidation serves both.
  const blog = deps.blog ?? createBlogCache(deps.config, deps.metrics, logger, { fetchImpl: deps.fetchImpl, now: deps.now, timeoutMs: deps.feedTimeoutMs });
  const app = createApp({ ...deps, logger, blog });
  const record = recorder(deps.metrics, logger);
  const routes = deps.routes ?? ROUTES;
  const ctx: RouteContext = { config: deps.config, routes, blog, isReady: deps.isReady ?? (() => true) };
  const headersFor = (route: RouteDef, body: Buffer) => ({
    'access-control-allow-origin': '*',
    ...SECURITY_HEADERS,
    'cache-control': route.cacheControl,
    'content-type': JSON_TYPE,
    'content-length': body.length,
  });
  const fixed = new Map<string, Answer>();
  for (const route of routes.filter((r) => r.method === 'GET' && STATIC_ROUTES.has(r.operationId))) {
    const body = Buffer.from(JSON.stringify(route.handler(ctx, undefined as never)));
    fixed.set(route.path, { route, body, headers: headersFor(route, body) });
  }
  const dynamic = new Map(routes.filter((r) => r.method === 'GET' && DYNAMIC_ROUTES.has(r.operationId)).map((r) => [r.path, r] as const));
  const serialised = new WeakMap<object, Buffer>();
  // The headers of a body seen before: the blog and infra values repeat, so their header objects are built once too.
  const headersOfBody = new WeakMap<Buffer, { route: RouteDef; headers: Record<string, string | number> }>();
  const headersOnce = (route: RouteDef, body: Buffer) => {
    const known = headersOfBody.get(body);
    if (known?.route === route) return known.headers;
    const headers = headersFor(route, body);
    headersOfBody.set(body, { route, headers });
    return headers;
  };
  const bytesOf = (value: unknown): Buffer => {
    if (typeof value !== 'object' || value === null) return Buffer.from(JSON.stringify(value));
    let body = serialised.get(value);
    if (!body) serialised.set(value, (body = Buffer.from(JSON.stringify(value))));
    return body;
  };
  // `start` is when the request arrived, so a slow answer (a cold blog fetch) is measured whole, as Express measures it.
  const send = (req: IncomingMessage, res: ServerResponse, { route, body, headers }: Answer, start: bigint) => {
    res.writeHead(200, headers).end(body);
    res.once('finish', () => record({ method: 'GET', path: route.path, route: route.path, status: 200 }, req.headers, start));
  };
  return (req, res) => {
    const start = process.hrtime.bigint();
    // A conditional request gets Express's answer (If-None-Match: * is fresh there: 304), never another one.
    if (req.method !== 'GET' || req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined) return void app(req, res);
    const url = req.url ?? '';
    const hit = fixed.get(url);
    if (hit) return send(req, res, hit, start);
    const route = dynamic.get(url);
    if (!route) return void app(req, res);
    // An answer that fails (503, 502) goes through Express, which asks the handler again and writes the error envelope.
    void Promise.resolve()
      .then(() => route.handler(ctx, undefined as never))
      .then(
        (value) => {
          const body = bytesOf(value);
          send(req, res, { route, body, headers: headersOnce(route, body) }, start);
        },
        () => app(req, res),
      )
      .catch((err: unknown) => {
        logger.error('unhandled error', { method: req.method, path: url, error: (err as Error)?.stack ?? String(err) });
        if (!res.headersSent) res.writeHead(500, { 'content-type': JSON_TYPE }).end(JSON.stringify(envelope(500, 'internal server error')));
      });
  };
}
