/**
 * The registry: every policy check, in report order. The gate's runner
 * (gate/runner.ts) applies them and handles exemptions.
 */
import { EXEMPTION_PREFIX } from '../model/core/workloads.ts';
import type { Area, CheckEnvironment, PolicyCheck } from './kit.ts';
import { admissionArea } from './admission/index.ts';
import { alertRoutingArea } from './alert-routing.ts';
import { argocdArea } from './argocd/index.ts';
import { backupArea } from './backups/index.ts';
import { closureArea } from './closure/index.ts';
import { falcoArea } from './falco/index.ts';
import { mediaArea } from './media/index.ts';
import { mediaSettingsArea } from './media-settings/index.ts';
import { metricsArea } from './metrics.ts';
import { monitoringArea } from './monitoring/index.ts';
import { networkPolicyArea } from './network-policy/index.ts';
import { privilegeArea } from './privileges.ts';
import { projectArea } from './projects.ts';
import { renderArea } from './render.ts';
import { repositoryArea } from './repository.ts';
import { syncOrderArea } from './sync-order.ts';
import { watchdogArea } from './watchdog.ts';
import { workloadArea } from './workload-hygiene.ts';

/** Every area, in report order: each declares its checks where they are written; a new area is its folder and a line here. */
export const AREAS: readonly Area[] = [
  repositoryArea,
  closureArea,
  syncOrderArea,
  networkPolicyArea,
  admissionArea,
  projectArea,
  renderArea,
  argocdArea,
  workloadArea,
  privilegeArea,
  falcoArea,
  watchdogArea,
  alertRoutingArea,
  monitoringArea,
  metricsArea,
  mediaArea,
  mediaSettingsArea,
  backupArea,
];

export const EXEMPTION_CHECK_ID = 'exemption-valid';

export const exemptionCheck: PolicyCheck = {
  id: EXEMPTION_CHECK_ID,
  description:
    'Every exemption annotation names an exemptible check, gives a reason, and is still needed (docs/design.md: exemptions sit next to the workload; S8).',
  invariants: ['S8'],
  remediation: `use ${EXEMPTION_PREFIX}<check-id>: "<why>" on the workload itself, and delete exemptions that no longer suppress anything`,
  reads: { kinds: ['*'], everyKind: 'an exemption annotation may sit on any resource' },
  exemptible: false,
  run() {
    // Evaluated by the gate's runner, which knows which exemptions suppressed a finding.
  },
};

/** Every policy check, in report order: each area's, given the one environment, then the exemption check. */
export function policyChecks(env: CheckEnvironment): PolicyCheck[] {
  return [...AREAS.flatMap((area) => area.checks(env)), exemptionCheck];
}
