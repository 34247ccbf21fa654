/**
 * workload-cron-deadline: a CronJob's `startingDeadlineSeconds` leaves the controller time to start it. A run whose
 * scheduled time is further behind than the deadline when the controller looks is skipped ("missed starting
 * window"), and Kubernetes' CronJob documentation warns that a deadline under 10 seconds may never see a job
 * scheduled, since the controller checks things every 10 seconds. The API server takes any value from 0; a backup
 * whose every run is skipped leaves nothing to restore.
 */
import { dig } from '../../model/core/dig.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

/** The least deadline Kubernetes' documentation says a CronJob can rely on: the controller's 10-second check. */
const LEAST_DEADLINE_SECONDS = 10;

export const startingDeadlineCheck: PolicyCheck = {
  id: 'workload-cron-deadline',
  description: `Every CronJob's startingDeadlineSeconds, where set, is at least ${LEAST_DEADLINE_SECONDS}: a run the controller finds further behind its schedule than the deadline is skipped, and Kubernetes documents that a deadline under ${LEAST_DEADLINE_SECONDS} seconds may never see a job scheduled (the controller checks every ${LEAST_DEADLINE_SECONDS} seconds); the API server takes any value (invariants P1, B1).`,
  invariants: ['P1', 'B1'],
  remediation: `set startingDeadlineSeconds to ${LEAST_DEADLINE_SECONDS} or more (an hour, 3600, for a nightly job), or leave it unset`,
  reads: { kinds: ['CronJob'], renders: true },
  exemptible: false,
  run(ctx) {
    for (const job of ctx.resources.filter((r) => r.kind === 'CronJob')) {
      const deadline = dig(job.object, ['spec', 'startingDeadlineSeconds']);
      // Below 0, or not a number, the API server refuses it (the schema's and validation's finding).
      if (typeof deadline !== 'number' || deadline < 0 || deadline >= LEAST_DEADLINE_SECONDS) continue;
      ctx.fail(
        { resource: job, path: ['spec', 'startingDeadlineSeconds'] },
        `CronJob ${job.name} may start a run only within ${deadline} seconds of its schedule, and the controller checks every ${LEAST_DEADLINE_SECONDS} seconds: Kubernetes documents that such a CronJob may never be scheduled, and every run it misses is skipped`,
      );
    }
  },
};
