/** A small JSON client for the media apps' REST APIs, with a clear error when an app is unreachable. */
export class Unreachable extends Error {}

/** An answer that is not a success: its status and its whole body, for a caller that reads the app's reasons. */
export class HttpError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(message: string, status: number, body: string) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

/**
 * Why an app refused a request, from its answer's body, without echoing what was sent: the Servarr apps answer a
 * refused change with FluentValidation's failures, whose attemptedValue is the submitted value (an API key or a
 * password), so only their messages are kept; any other body is cut short.
 */
export function reasonsOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as unknown;
    const failures = Array.isArray(parsed) ? (parsed as { errorMessage?: unknown }[]) : [];
    const messages = failures.map((f) => (typeof f?.errorMessage === 'string' ? f.errorMessage : '')).filter((m) => m !== '');
    if (messages.length > 0) return messages.join('; ');
    const message = (parsed as { message?: unknown } | null)?.message;
    if (typeof message === 'string') return message;
  } catch {
    // Not JSON: the text as it is, cut short.
  }
  return body.slice(0, 200);
}

export class HttpClient {
  private readonly base: string;
  private readonly headers: Record<string, string>;
  private readonly fetchImpl: typeof fetch;
  constructor(base: string, headers: Record<string, string>, fetchImpl: typeof fetch = fetch) {
    this.base = base;
    this.headers = headers;
    this.fetchImpl = fetchImpl;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await this.fetchImpl(`${this.base.replace(/\/$/, '')}${path}`, {
        method,
        headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (err) {
      throw new Unreachable(`${this.base} is unreachable: ${(err as Error).message}`, { cause: err });
    }
    const text = await response.text();
    if (response.status === 401 || response.status === 403) throw new Unreachable(`${this.base} refused the API key (HTTP ${response.status})`);
    if (!response.ok) throw new HttpError(`${method} ${this.base}${path}: HTTP ${response.status} ${reasonsOf(text)}`, response.status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }
  async put(path: string, body: unknown): Promise<void> {
    await this.call('PUT', path, body);
  }
  async post(path: string, body: unknown): Promise<void> {
    await this.call('POST', path, body);
  }
  async delete(path: string): Promise<void> {
    await this.call('DELETE', path);
  }
}
