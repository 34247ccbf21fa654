/**
 * Workload hygiene: the workload checks (hygiene.ts), the capabilities the runtime knows (capabilities.ts), the
 * disruption budgets that let a node drain (disruption-budgets.ts), the volumes their pods mount (volumes.ts) and the
 * time zone their programs read (time-zone.ts), and the window a CronJob gives the controller to start a run
 * (starting-deadline.ts), and the size an emptyDir may grow to (volume-size.ts).
 */
import { type Area, staticArea } from '../../model/checks/kit.ts';
import { capabilitiesKnownCheck } from './capabilities.ts';
import { disruptionBudgetCheck } from './disruption-budgets.ts';
import { workloadChecks } from './hygiene.ts';
import { volumesMountedCheck } from './volumes.ts';
import { timeZoneCheck } from './time-zone.ts';
import { startingDeadlineCheck } from './starting-deadline.ts';
import { volumeSizeCheck } from './volume-size.ts';

export const workloadArea: Area = staticArea('workload-hygiene', [
  ...workloadChecks,
  capabilitiesKnownCheck,
  disruptionBudgetCheck,
  volumesMountedCheck,
  timeZoneCheck,
  startingDeadlineCheck,
  volumeSizeCheck,
]);
