/**
 * The registry: every policy check, in report order. The gate's runner
 * (gate/runner.ts) applies them and handles exemptions.
 */
import type { ScopeLookup } from '../model/core/manifest.ts';
import { EXEMPTION_PREFIX } from '../model/core/workloads.ts';
import { admissionChecks } from './admission/index.ts';
import { alertRoutingChecks } from './alert-routing.ts';
import { privilegeChecks } from './privileges.ts';
import { argocdAreaChecks } from './argocd/index.ts';
import { backupAreaChecks } from './backups/index.ts';
import { closureChecks } from './closure/index.ts';
import { falcoChecks } from './falco/index.ts';
import type { PolicyCheck } from './kit.ts';
import { mediaAreaChecks } from './media/index.ts';
import { settingsChecks } from './media-settings/index.ts';
import { metricsChecks } from './metrics.ts';
import { monitoringAreaChecks } from './monitoring/index.ts';
import { networkPolicyAreaChecks } from './network-policy/index.ts';
import { projectChecks } from './projects.ts';
import { renderChecks } from './render.ts';
import { repositoryChecks } from './repository.ts';
import { syncOrderCheck } from './sync-order.ts';
import { watchdogChecks } from './watchdog.ts';
import { workloadChecks } from './workload-hygiene.ts';

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

export function policyChecks(isClusterScoped: ScopeLookup, builtinGroups: ReadonlySet<string> = new Set()): PolicyCheck[] {
  return [
    ...repositoryChecks(isClusterScoped),
    ...closureChecks(isClusterScoped, builtinGroups),
    syncOrderCheck(isClusterScoped),
    ...networkPolicyAreaChecks,
    ...admissionChecks(builtinGroups, isClusterScoped),
    ...projectChecks(isClusterScoped),
    ...renderChecks,
    ...argocdAreaChecks,
    ...workloadChecks,
    ...privilegeChecks,
    ...falcoChecks,
    ...watchdogChecks,
    ...alertRoutingChecks,
    ...monitoringAreaChecks,
    ...metricsChecks,
    ...mediaAreaChecks,
    ...settingsChecks,
    ...backupAreaChecks,
    exemptionCheck,
  ];
}
