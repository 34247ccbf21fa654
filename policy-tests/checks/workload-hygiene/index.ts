/** Workload hygiene: the workload checks (hygiene.ts) and the disruption budgets that let a node drain (disruption-budgets.ts). */
import { type Area, staticArea } from '../../model/checks/kit.ts';
import { disruptionBudgetCheck } from './disruption-budgets.ts';
import { workloadChecks } from './hygiene.ts';

export const workloadArea: Area = staticArea('workload-hygiene', [...workloadChecks, disruptionBudgetCheck]);
