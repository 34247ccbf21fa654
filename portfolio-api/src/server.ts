/**
 * Process entry point: the public API and the metrics endpoint on separate
 * ports, and a graceful shutdown on SIGTERM.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createHandler } from './app.ts';
import { loadConfig, type Config } from './config.ts';
import { envelope } from './http/errors.ts';
import { createLogger, type Logger } from './logging.ts';
import { createMetrics, type Metrics } from './metrics.ts';

export const SHUTDOWN_DEADLINE_MS = 10_000;

/**
 * How long an idle keep-alive connection stays open: 95 s, longer than the
 * 90 s after which the ingress proxy drops an idle upstream connection
 * (Traefik's serversTransport idleConnTimeout default; nginx and Envoy use 60 s
 * or more). The proxy must always be the side that closes an idle connection:
 * if the API closed first, a request the proxy sends in that instant would meet
 * a closing socket and fail with a 502. Node's default is 5 s.
 */
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
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const reason = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
  const body = JSON.stringify(envelope(status, status === 431 ? 'request headers are too large' : 'malformed HTTP request'));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json; charset=utf-8\r\naccess-control-allow-origin: *\r\ncache-control: no-store\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

export async function start(config: Config = loadConfig(), deps: { logger?: Logger; metrics?: Metrics; fetchImpl?: typeof fetch; now?: () => number; feedTimeoutMs?: number } = {}): Promise<Running> {
  const logger = deps.logger ?? createLogger();
  const metrics = deps.metrics ?? createMetrics();
  let ready = true;
  const handler = createHandler({ config, metrics, logger, isReady: () => ready, fetchImpl: deps.fetchImpl, now: deps.now, feedTimeoutMs: deps.feedTimeoutMs });
  const api = createServer({ requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, handler);
  api.on('clientError', answerClientError);
  const metricsServer = createServer(async (req, res) => {
    if (req.url !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(await metrics.registry.metrics());
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
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`portfolio-api: ${(err as Error).message}\n`);
    process.exit(1);
  }
  const running = await start(config);
  process.once('SIGTERM', () => {
    void running.shutdown().then(() => process.exit(0));
  });
  process.once('SIGINT', () => {
    void running.shutdown().then(() => process.exit(0));
  });
}
