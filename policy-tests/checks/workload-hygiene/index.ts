/**
 * Workload hygiene: the workload checks (hygiene.ts), the capabilities the runtime knows (capabilities.ts), the
 * disruption budgets that let a node drain (disruption-budgets.ts), the volumes their pods mount (volumes.ts) and the
 * time zone their programs read (time-zone.ts).
 */
import { type Area, staticArea } from '../../model/checks/kit.ts';
import { capabilitiesKnownCheck } from './capabilities.ts';
import { disruptionBudgetCheck } from './disruption-budgets.ts';
import { workloadChecks } from './hygiene.ts';
import { volumesMountedCheck } from './volumes.ts';
import { timeZoneCheck } from './time-zone.ts';

export const workloadArea: Area = staticArea('workload-hygiene', [
  ...workloadChecks,
  capabilitiesKnownCheck,
  disruptionBudgetCheck,
  volumesMountedCheck,
  timeZoneCheck,
]);
