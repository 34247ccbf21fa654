/**
 * The registry: every policy check, in report order. The gate's runner
 * (gate/runner.ts) applies them and handles exemptions.
 */
import { argocdChecks } from './argocd.ts';
import { argocdInstallChecks } from './argocd-install.ts';
import { falcoChecks } from './falco/index.ts';
import { watchdogChecks } from './watchdog.ts';
import { alertRoutingChecks } from './alert-routing.ts';
import { dashboardChecks, monitoringChecks } from './monitoring.ts';
import { sourceChecks } from './monitoring-sources.ts';
import { metricsChecks } from './metrics.ts';
import { mediaChecks } from './media.ts';
import { mediaPodChecks } from './media-pods.ts';
import { mediaSettingsChecks } from './media-settings/index.ts';
import { mediaLibraryChecks } from './media-settings/library-checks.ts';
import { backupChecks } from './backups.ts';
import { backupHygieneChecks } from './backup-job-hygiene.ts';
import { repositoryChecks, type ScopeLookup } from './repository.ts';
import type { PolicyCheck } from './kit.ts';
import { workloadChecks } from './workload-hygiene.ts';
import { renderChecks } from './render.ts';
import { closureChecks } from './closure/index.ts';
import { syncOrderCheck } from './sync-order.ts';
import { networkPolicyChecks } from './network-policy.ts';
import { ingressPathCheck } from './network-policy-ingress.ts';
import { cniChecks } from './network-policy-cni.ts';
import { defaultDenyChecks } from './network-policy-default-deny.ts';
import { projectChecks } from './projects.ts';
import { admissionChecks } from './admission/index.ts';

export const EXEMPTION_PREFIX = 'gate.homelab-gitops/exempt-';
export const EXEMPTION_CHECK_ID = 'exemption-valid';

export const exemptionCheck: PolicyCheck = {
  id: EXEMPTION_CHECK_ID,
  description:
    'Every exemption annotation names an exemptible check, gives a reason, and is still needed (docs/design.md: exemptions sit next to the workload; S8).',
  invariants: ['S8'],
  remediation: `use ${EXEMPTION_PREFIX}<check-id>: "<why>" on the workload itself, and delete exemptions that no longer suppress anything`,
  reads: { kinds: ['*'] },
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
    ...networkPolicyChecks,
    ingressPathCheck,
    ...cniChecks,
    ...defaultDenyChecks,
    ...admissionChecks(builtinGroups, isClusterScoped),
    ...projectChecks(isClusterScoped),
    ...renderChecks,
    ...argocdChecks,
    ...argocdInstallChecks,
    ...workloadChecks,
    ...falcoChecks,
    ...watchdogChecks,
    ...alertRoutingChecks,
    ...monitoringChecks,
    ...dashboardChecks,
    ...sourceChecks,
    ...metricsChecks,
    ...mediaChecks,
    ...mediaPodChecks,
    ...mediaSettingsChecks,
    ...mediaLibraryChecks,
    ...backupChecks,
    ...backupHygieneChecks,
    exemptionCheck,
  ];
}
