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
    if (!response.ok) throw new HttpError(`${method} ${this.base}${path}: HTTP ${response.status} ${text.slice(0, 200)}`, response.status, text);
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
