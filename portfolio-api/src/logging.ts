/** Structured JSON logs, one object per line, with secrets redacted. */
export type LogSink = (line: string) => void;

const REDACTED_HEADERS = new Set(['authorization', 'cookie', 'set-cookie', 'proxy-authorization']);

export function redactHeaders(headers: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in headers) out[key] = REDACTED_HEADERS.has(key.toLowerCase()) ? '[REDACTED]' : headers[key];
  return out;
}

export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Lines waiting for standard output; one buffer for every logger, since they all write to the same stream. */
let pending = '';
let flushScheduled = false;
let flushedAtExit = false;
/** A batch past this goes out at once, so a burst never holds much in memory. */
const MAX_PENDING = 64 * 1024;

function flushStdout(): void {
  flushScheduled = false;
  if (!pending) return;
  const chunk = pending;
  pending = '';
  process.stdout.write(chunk);
}

/**
 * Standard output in batches: the lines of one turn of the event loop go
 * out in one write. An access-log line per request was one write(2) per
 * request (on Linux a write to a pipe or a file is synchronous), the largest
 * cost on the fast routes after the HTTP parser itself. Lines are flushed at
 * the end of the turn, and handed to the stream at exit too (process.exit, an
 * uncaught error); the server's own exit waits for them to be written
 * (flushLogs). A SIGKILL loses at most one turn's lines.
 */
export const stdoutSink: LogSink = (line) => {
  pending += `${line}\n`;
  if (!flushedAtExit) {
    flushedAtExit = true;
    process.once('exit', flushStdout);
  }
  if (pending.length >= MAX_PENDING) flushStdout();
  else if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(flushStdout);
  }
};

/**
 * Resolves once every line logged so far has left the process. A process
 * that exits straight after logging loses what its standard output still
 * queues when the reader (the container runtime) is slower than the writer:
 * Node's writes to a full pipe wait in the stream, and process.exit drops
 * them. The server's exit waits for this first.
 */
export function flushLogs(): Promise<void> {
  flushStdout();
  return new Promise((resolve) => process.stdout.write('', () => resolve()));
}

export function createLogger(sink: LogSink = stdoutSink): Logger {
  const write = (level: string, msg: string, fields: Record<string, unknown> = {}) =>
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}
