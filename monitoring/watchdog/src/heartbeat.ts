/** The Alertmanager heartbeat: authenticated, validated, recorded. */
import { MAX_HEARTBEAT_BYTES } from './config.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Both sides hashed first, so neither the token's length nor its content leaks through timing. */
export async function tokenMatches(presented: string, expected: string): Promise<boolean> {
  const enc = new TextEncoder();
  const [a, b] = await Promise.all([crypto.subtle.digest('SHA-256', enc.encode(presented)), crypto.subtle.digest('SHA-256', enc.encode(expected))]);
  return crypto.subtle.timingSafeEqual(a, b);
}

export async function authenticate(request: Request, token: string): Promise<void> {
  const match = /^Bearer (\S+)$/.exec(request.headers.get('authorization') ?? '');
  if (!match || !(await tokenMatches(match[1]!, token))) throw new HttpError(401, 'missing or invalid bearer token');
}

interface AlertmanagerWebhook {
  version: string;
  status: string;
  receiver: string;
  alerts: { status: string; labels: Record<string, string> }[];
}

/**
 * The body as text, read chunk by chunk and cut off as soon as it passes
 * `limit` bytes: a body without Content-Length (chunked) must not be read
 * whole before it is measured.
 */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new HttpError(413, `body over ${limit} bytes`);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    all.set(c, offset);
    offset += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

/** Alertmanager's webhook payload (version "4") carrying the Watchdog alert; anything else is refused. */
export async function readHeartbeat(request: Request): Promise<AlertmanagerWebhook> {
  // The media type exactly (application/jsonx or application/json-seq are not JSON), parameters allowed.
  const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/json') throw new HttpError(415, 'content-type must be application/json');
  const declared = Number(request.headers.get('content-length') ?? NaN);
  if (declared > MAX_HEARTBEAT_BYTES) throw new HttpError(413, `body over ${MAX_HEARTBEAT_BYTES} bytes`);
  const text = await readLimited(request, MAX_HEARTBEAT_BYTES);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'body is not JSON');
  }
  const b = body as Partial<AlertmanagerWebhook>;
  const isWebhook =
    typeof b === 'object' &&
    b !== null &&
    b.version === '4' &&
    typeof b.status === 'string' &&
    typeof b.receiver === 'string' &&
    Array.isArray(b.alerts) &&
    b.alerts.every((a) => typeof a === 'object' && a !== null && typeof a.status === 'string' && typeof a.labels === 'object' && a.labels !== null);
  if (!isWebhook) throw new HttpError(400, 'body is not an Alertmanager webhook payload (version "4" with alerts)');
  if (!b.alerts!.some((a) => a.labels.alertname === 'Watchdog' && a.status === 'firing')) throw new HttpError(422, 'payload carries no firing Watchdog alert');
  return b as AlertmanagerWebhook;
}
