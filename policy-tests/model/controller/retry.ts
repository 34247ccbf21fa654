/**
 * How the controller retries a failed automated sync (controller/appcontroller.go autoSync, and RetryStrategy in
 * pkg/apis/application/v1alpha1/types.go, v3.5): up to five times by default, or as spec.syncPolicy.retry says. A
 * sync that fails and is not retried stays failed until the next commit, since the controller does not attempt the
 * same revision twice (alreadyAttemptedSync), self-heal or not.
 */
import { dig } from '../core/dig.ts';
import type { Path } from '../core/positions.ts';
import { goDurationMs } from '../core/time.ts';

/** parseStringToDuration: whole seconds ("30"), or a Go duration ("2m"). */
const retryDurationParses = (text: string): boolean => /^[-+]?\d+$/.test(text) || goDurationMs(text) !== undefined;

/** What in an Application's retry strategy stops the controller retrying a failed automated sync. */
export function retryProblems(application: Record<string, unknown>): { path: Path; problem: string }[] {
  const retry = dig(application, ['spec', 'syncPolicy', 'retry']) as Record<string, unknown> | undefined;
  if (!retry || typeof retry !== 'object') return [];
  const problems: { path: Path; problem: string }[] = [];
  const at = ['spec', 'syncPolicy', 'retry'];
  if (retry.limit === 0 || retry.limit === '0')
    problems.push({ path: [...at, 'limit'], problem: 'retry.limit 0 retries a failed automated sync never: the app stays failed until the next commit' });
  const backoff = (retry.backoff ?? {}) as Record<string, unknown>;
  for (const key of ['duration', 'maxDuration']) {
    const value = backoff[key];
    if (typeof value === 'string' && value !== '' && !retryDurationParses(value))
      problems.push({
        path: [...at, 'backoff', key],
        problem: `retry.backoff.${key} "${value}" is no duration Argo CD reads (seconds, or a Go duration such as 30s or 3m): NextRetryAt fails, and a failed automated sync is not retried`,
      });
  }
  return problems;
}
