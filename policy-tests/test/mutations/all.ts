/**
 * Every mutation list, one per check module (a file, or a folder, of
 * policy-tests/checks/), and one for the checks on rendered output, whose
 * mutations share one setup (a stand-in chart in a chart cache). The coverage
 * test holds them against the registry's ids.
 */
import { admissionMutations } from './admission.ts';
import { alertRoutingMutations } from './alert-routing.ts';
import { argocdMutations } from './argocd.ts';
import { argocdInstallMutations } from './argocd-install.ts';
import { argocdRepoServerMutations } from './argocd-repo-server.ts';
import { backupJobHygieneMutations } from './backup-job-hygiene.ts';
import { backupsMutations } from './backups.ts';
import { closureMutations } from './closure.ts';
import { falcoMutations } from './falco.ts';
import { mediaMutations } from './media.ts';
import { mediaPodsMutations } from './media-pods.ts';
import { mediaSettingsMutations } from './media-settings.ts';
import { metricsMutations } from './metrics.ts';
import { monitoringMutations } from './monitoring.ts';
import { monitoringSourcesMutations } from './monitoring-sources.ts';
import { projectsMutations } from './projects.ts';
import { privilegesMutations } from './privileges.ts';
import { registryMutations } from './registry.ts';
import { repositoryMutations } from './repository.ts';
import { syncOrderMutations } from './sync-order.ts';
import { watchdogMutations } from './watchdog.ts';
import { workloadHygieneMutations } from './workload-hygiene.ts';
import { networkPolicyMutations } from './network-policy.ts';
import { renderMutations } from './render.ts';
import type { Mutation } from '../support/mutation-runner.ts';

export const MUTATION_LISTS: Record<string, readonly Mutation[]> = {
  'admission/': admissionMutations,
  'alert-routing.ts': alertRoutingMutations,
  'argocd/argocd.ts': argocdMutations,
  'argocd/install.ts': argocdInstallMutations,
  'argocd/repo-server.ts': argocdRepoServerMutations,
  'backups/job-hygiene.ts': backupJobHygieneMutations,
  'backups/backups.ts': backupsMutations,
  'closure/': closureMutations,
  'falco/': falcoMutations,
  'media/media.ts': mediaMutations,
  'media/pods.ts': mediaPodsMutations,
  'media-settings/': mediaSettingsMutations,
  'metrics.ts': metricsMutations,
  'monitoring/monitoring.ts': monitoringMutations,
  'monitoring/sources.ts': monitoringSourcesMutations,
  'projects.ts': projectsMutations,
  'privileges.ts': privilegesMutations,
  '../gate/exemptions.ts': registryMutations,
  'repository.ts': repositoryMutations,
  'sync-order.ts': syncOrderMutations,
  'watchdog.ts': watchdogMutations,
  'workload-hygiene.ts': workloadHygieneMutations,
  'network-policy/': networkPolicyMutations,
  'rendered output': renderMutations,
};

export const ALL_MUTATIONS: readonly Mutation[] = Object.values(MUTATION_LISTS).flat();
