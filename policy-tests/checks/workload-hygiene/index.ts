/**
 * Workload hygiene: the workload checks (hygiene.ts), the capabilities the runtime knows (capabilities.ts) and the
 * disruption budgets that let a node drain (disruption-budgets.ts).
 */
import { type Area, staticArea } from '../../model/checks/kit.ts';
import { capabilitiesKnownCheck } from './capabilities.ts';
import { disruptionBudgetCheck } from './disruption-budgets.ts';
import { workloadChecks } from './hygiene.ts';

export const workloadArea: Area = staticArea('workload-hygiene', [...workloadChecks, capabilitiesKnownCheck, disruptionBudgetCheck]);
