/** The monitoring stack's checks (monitoring.ts) bite on a broken copy of the real repository. Alert routing and the watchdog: alerting-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { monitoringMutations } from '../mutations/monitoring.ts';

describeMutations('monitoring checks (monitoring.ts) bite on a broken copy of the real repository', monitoringMutations);
