/**
 * Process entry point: the public API and the metrics endpoint on separate
 * ports, and a graceful shutdown on SIGTERM.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createHandler, SECURITY_HEADERS } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { envelope } from './http/errors.ts';
import { createLogger, flushLogs, type Logger } from './logging.ts';
import { createMetrics, type Metrics } from './metrics.ts';
import { entryArgs } from './entry-args.ts';

export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * How long an idle keep-alive connection stays open: 95 s, longer than the
 * 90 s after which the ingress proxy drops an idle upstream connection
 * (Traefik's serversTransport idleConnTimeout default; nginx and Envoy use 60 s
 * or more). The proxy must always be the side that closes an idle connection:
 * if the API closed first, a request the proxy sends in that instant would meet
 * a closing socket and fail with a 502. Node's default is 5 s.
 */
/** How long a client may take to send its headers, and its whole request; past them it gets 408. */
export const HEADERS_TIMEOUT_MS = 10_000;
export const REQUEST_TIMEOUT_MS = 30_000;

export const KEEP_ALIVE_TIMEOUT_MS = 95_000;

export interface Running {
  api: Server;
  metricsServer: Server;
  apiPort: number;
  metricsPort: number;
  /** Fails readiness, drains in-flight requests, and resolves when both servers are closed. */
  shutdown(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

/** Answers what Node's HTTP parser rejects (oversized headers, garbage) with the same envelope and CORS header. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers are too large'],
  // Node's own timers: headersTimeout for slow headers, requestTimeout for a slow body.
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'the request was not received in time'],
};

/** The security headers every response carries (app.ts), as raw header lines. */
const SECURITY_LINES = Object.entries(SECURITY_HEADERS)
  .map(([k, v]) => `${k}: ${v}\r\n`)
  .join('');

/** Writes the error envelope, with CORS and the security headers every response carries, straight to a socket, and closes it. */
function answerOnSocket(socket: Socket, [status, reason, message]: readonly [number, string, string], extra = ''): void {
  const body = JSON.stringify(envelope(status, message));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\naccess-control-allow-origin: *\r\n${SECURITY_LINES}cache-control: no-store\r\n${extra}` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  answerOnSocket(socket, CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'malformed HTTP request']);
}

export async function start(
  config: Config = loadConfig(),
  deps: {
    logger?: Logger;
    metrics?: Metrics;
    fetchImpl?: typeof fetch;
    now?: () => number;
    feedTimeoutMs?: number;
    headersTimeoutMs?: number;
    requestTimeoutMs?: number;
  } = {},
): Promise<Running> {
  const logger = deps.logger ?? createLogger();
  const metrics = deps.metrics ?? createMetrics();
  let ready = true;
  const handler = createHandler({ config, metrics, logger, isReady: () => ready, fetchImpl: deps.fetchImpl, now: deps.now, feedTimeoutMs: deps.feedTimeoutMs });
  const api = createServer(
    {
      requestTimeout: deps.requestTimeoutMs ?? REQUEST_TIMEOUT_MS,
      headersTimeout: deps.headersTimeoutMs ?? HEADERS_TIMEOUT_MS,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      // Node checks those two timeouts on this interval (30 s by default), so a slow client was cut up to 30 s late.
      connectionsCheckingInterval: 1_000,
      // A request without Host reaches the handler, which answers it with the envelope (Node's own 400 has neither body nor CORS).
      requireHostHeader: false,
    },
    (req, res) => {
      if (req.httpVersion === '1.1' && !req.headers.host) {
        answerOnSocket(req.socket, [400, 'Bad Request', 'an HTTP/1.1 request must carry a Host header']);
        return;
      }
      handler(req, res);
    },
  );
  api.on('clientError', answerClientError);
  // CONNECT is not for this API: without a listener Node would drop the socket with no answer.
  api.on('connect', (_req: IncomingMessage, socket: Socket) =>
    answerOnSocket(socket, [405, 'Method Not Allowed', 'method CONNECT not allowed'], 'allow: GET, HEAD, POST, OPTIONS\r\n'),
  );
  const metricsServer = createServer((req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    // A collector that throws must answer 500, not leave a rejected promise that ends the process.
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: unknown) => {
        logger.error('metrics collection failed', { error: err instanceof Error ? err.message : String(err) });
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  const apiPort = await listen(api, config.port, config.host);
  const metricsPort = await listen(metricsServer, config.metricsPort, config.host);
  logger.info('listening', { api: `${config.host}:${apiPort}`, metrics: `${config.host}:${metricsPort}`, writes: config.apiKey ? 'enabled' : 'disabled' });

  let closing: Promise<void> | undefined;
  const shutdown = () =>
    (closing ??= new Promise<void>((resolve) => {
      ready = false;
      logger.info('shutting down: readiness failed, draining in-flight requests');
      const deadline = setTimeout(() => {
        logger.warn('drain deadline reached; closing remaining connections');
        api.closeAllConnections();
        metricsServer.closeAllConnections();
      }, SHUTDOWN_DEADLINE_MS - 500);
      deadline.unref();
      let open = 2;
      const done = () => {
        if (--open === 0) {
          clearTimeout(deadline);
          resolve();
        }
      };
      api.close(done);
      metricsServer.close(done);
      // Idle keep-alive sockets would hold close() open; busy ones finish their request first.
      api.closeIdleConnections();
      metricsServer.closeIdleConnections();
    }));
  return { api, metricsServer, apiPort, metricsPort, shutdown };
}

const isMain = process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/\\/g, '/'));
if (isMain) {
  entryArgs(
    'portfolio-api',
    `Serves the portfolio API, and its metrics on a port of their own. Configuration, all optional, from the
environment: PORT (3000), METRICS_PORT (9464), HOST (127.0.0.1; the image sets 0.0.0.0), BASE_URL, API_KEY (unset
disables writes), STATUS_FILE (/status/status.json), BLOG_FEED_URL, DOCS_URL. Exits 1 with one line when the
configuration is wrong or a port is taken.`,
  );
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`portfolio-api: ${(err as Error).message}\n`);
    process.exit(1);
  }
  let running: Running;
  try {
    running = await start(config);
  } catch (err) {
    // A port another process holds, or one this user may not bind: one line naming it, not a stack trace.
    const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
    const where = e.port !== undefined ? ` ${e.address ?? config.host}:${e.port}` : '';
    const why =
      e.code === 'EADDRINUSE'
        ? `the address${where} is already in use (another process listens there; set PORT or METRICS_PORT)`
        : e.code === 'EACCES'
          ? `no permission to listen on${where}`
          : e.message;
    process.stderr.write(`portfolio-api: cannot start: ${why}\n`);
    process.exit(1);
  }
  // The last access-log lines are written before the process goes (flushLogs).
  const exitAfterDrain = () =>
    void running
      .shutdown()
      .then(flushLogs)
      .then(() => process.exit(0));
  process.once('SIGTERM', exitAfterDrain);
  process.once('SIGINT', exitAfterDrain);
}
