/** The retry strategy of an automated sync as Argo CD v3.5.1 reads it (RetryStrategy.NextRetryAt, parseStringToDuration). */
import { describe, expect, it } from 'vitest';
import { retryProblems } from '../../model/controller/retry.ts';

describe('how the controller retries a failed automated sync (RetryStrategy)', () => {
  const app = (retry: unknown) => ({ spec: { syncPolicy: { automated: {}, retry } } });
  it('is content with the default, a limit, and durations in seconds or Go', () => {
    expect(retryProblems({ spec: {} })).toEqual([]);
    expect(retryProblems(app({ limit: 3, backoff: { duration: '30', maxDuration: '3m', factor: 2 } }))).toEqual([]);
    expect(retryProblems(app({ limit: -1 }))).toEqual([]);
  });
  it('names a limit of 0 and a duration parseStringToDuration refuses', () => {
    expect(retryProblems(app({ limit: 0, backoff: { duration: '1d', maxDuration: '1 m' } })).map((p) => p.path.at(-1))).toEqual([
      'limit',
      'duration',
      'maxDuration',
    ]);
  });
});
