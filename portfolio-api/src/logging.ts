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

export function createLogger(sink: LogSink = (line) => process.stdout.write(`${line}\n`)): Logger {
  const write = (level: string, msg: string, fields: Record<string, unknown> = {}) =>
    sink(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }));
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}
