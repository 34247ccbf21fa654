/**
 * Stale-while-revalidate cache with single-flight refresh: within the TTL the
 * copy is served from memory; after it, the stale copy is served while one
 * background refresh runs; a failed refresh keeps the last good copy. With no
 * copy at all, concurrent callers share one fetch.
 */
export interface SwrOptions {
  ttlMs: number;
  /** After a failed cold fetch, answer failures this long without hitting the origin again. */
  failureBackoffMs: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}

export class SwrCache<T> {
  private value?: T;
  private fetchedAt = 0;
  private inflight?: Promise<T>;
  private lastFailure?: { at: number; error: unknown };
  private readonly now: () => number;

  private readonly load: () => Promise<T>;
  private readonly options: SwrOptions;

  constructor(load: () => Promise<T>, options: SwrOptions) {
    this.load = load;
    this.options = options;
    this.now = options.now ?? Date.now;
  }

  /** Age of the copy being served, in ms (undefined when there is none). */
  age(): number | undefined {
    return this.value === undefined ? undefined : this.now() - this.fetchedAt;
  }

  private refresh(): Promise<T> {
    this.inflight ??= this.load()
      .then((value) => {
        this.value = value;
        this.fetchedAt = this.now();
        this.lastFailure = undefined;
        return value;
      })
      .catch((error: unknown) => {
        this.lastFailure = { at: this.now(), error };
        this.options.onError?.(error);
        throw error;
      })
      .finally(() => {
        this.inflight = undefined;
      });
    return this.inflight;
  }

  async get(): Promise<T> {
    if (this.value !== undefined) {
      const stale = this.now() - this.fetchedAt >= this.options.ttlMs;
      const backingOff = this.lastFailure !== undefined && this.now() - this.lastFailure.at < this.options.failureBackoffMs;
      if (stale && !backingOff) this.refresh().catch(() => undefined);
      return this.value;
    }
    if (!this.inflight && this.lastFailure && this.now() - this.lastFailure.at < this.options.failureBackoffMs) throw this.lastFailure.error;
    return this.refresh();
  }
}
