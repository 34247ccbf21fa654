/** Every mutation list, gathered by area. */
import { admissionSyncMutations, apiValidationMutations, authorizedSyncMutations, crdMutations, podSecurityMutations } from './admission.ts';
import { nonRootMutations, volumeMountMutations, volumeSourceMutations } from './pod-refusals.ts';
import { alertRoutingMutations } from './alert-routing.ts';
import { alertmanagerConfigMutations } from './alertmanager-config.ts';
import { argocdMutations, argocdSyncMutations } from './argocd.ts';
import { argocdInstallMutations } from './argocd-install.ts';
import { argocdRepoServerMutations } from './argocd-repo-server.ts';
import { backupJobHygieneMutations } from './backup-job-hygiene.ts';
import { backupsMutations } from './backups.ts';
import { closureMutations } from './closure.ts';
import { falcoMutations, falcoTuningMutations } from './falco.ts';
import { imageMutations } from './images.ts';
import { mediaMutations } from './media.ts';
import { mediaPodsMutations } from './media-pods.ts';
import { downloadSettingsMutations, mediaSettingsMutations } from './media-settings.ts';
import { metricsMutations } from './metrics.ts';
import { metricsCatalogMutations } from './metrics-catalog.ts';
import { monitoringMutations } from './monitoring.ts';
import { monitoringSourcesMutations, shipperMutations } from './monitoring-sources.ts';
import { probeModuleMutations } from './probe-module.ts';
import { blackboxConfigMutations, blackboxRenderedMutations } from './blackbox-config.ts';
import { grafanaSidecarMutations } from './grafana-sidecar.ts';
import { constantAlertMutations } from './constant-alert.ts';
import { grafanaDatasourcesMutations } from './grafana-datasources.ts';
import { lokiConfigMutations, lokiRenderedMutations } from './loki-config.ts';
import { exporterStartsMutations, qbittorrentExporterMutations } from './exporter-starts.ts';
import { gluetunSettingsMutations } from './gluetun-settings.ts';
import { tempoConfigMutations } from './tempo-config.ts';
import { cephClassMutations, csiDriverMutations } from './ceph-classes.ts';
import { storeSecretMutations } from './store-secrets.ts';
import { projectsMutations } from './projects.ts';
import { privilegesMutations } from './privileges.ts';
import { registryMutations } from './registry.ts';
import { repositoryMutations } from './repository.ts';
import { syncHealthMutations } from './sync-health.ts';
import { syncOrderMutations } from './sync-order.ts';
import { watchdogMutations } from './watchdog.ts';
import { workloadHygieneMutations } from './workload-hygiene.ts';
import { networkPolicyMutations } from './network-policy.ts';
import { podCidrMutations } from './pod-cidr.ts';
import { routerForwardMutations } from './router-forward.ts';
import { chartLockMutations, helmValuesMutations, renderMutations } from './render.ts';
import type { Mutation } from '../support/mutation-runner.ts';

/**
 * The mutation lists by the area whose checks they prove (checks/registry.ts AREAS: each area declares its checks
 * where they are written), the runner's exemption step, and the checks on rendered output, whose mutations share
 * one setup. The coverage test holds every area's checks to its list.
 */
export const MUTATION_LISTS: Record<string, readonly (readonly Mutation[])[]> = {
  repository: [repositoryMutations],
  closure: [closureMutations, cephClassMutations, csiDriverMutations, storeSecretMutations, routerForwardMutations],
  'sync-order': [syncOrderMutations],
  'sync-health': [syncHealthMutations],
  'network-policy': [networkPolicyMutations, podCidrMutations],
  admission: [
    apiValidationMutations,
    crdMutations,
    admissionSyncMutations,
    authorizedSyncMutations,
    podSecurityMutations,
    volumeSourceMutations,
    volumeMountMutations,
    nonRootMutations,
  ],
  projects: [projectsMutations],
  render: [],
  argocd: [argocdMutations, argocdSyncMutations, argocdInstallMutations, argocdRepoServerMutations],
  'workload-hygiene': [workloadHygieneMutations],
  images: [imageMutations],
  privileges: [privilegesMutations],
  falco: [falcoMutations, falcoTuningMutations],
  watchdog: [watchdogMutations],
  'alert-routing': [alertRoutingMutations, alertmanagerConfigMutations],
  monitoring: [
    monitoringMutations,
    monitoringSourcesMutations,
    shipperMutations,
    probeModuleMutations,
    blackboxConfigMutations,
    blackboxRenderedMutations,
    grafanaSidecarMutations,
    constantAlertMutations,
    grafanaDatasourcesMutations,
    lokiConfigMutations,
    lokiRenderedMutations,
    tempoConfigMutations,
  ],
  metrics: [metricsMutations],
  'metrics-catalog': [metricsCatalogMutations],
  media: [mediaMutations, mediaPodsMutations, exporterStartsMutations, qbittorrentExporterMutations, gluetunSettingsMutations],
  'media-settings': [mediaSettingsMutations, downloadSettingsMutations],
  backups: [backupsMutations, backupJobHygieneMutations],
  /** The runner's exemption step (model/checks/exemptions.ts). */
  exemptions: [registryMutations],
  /** Checks of several areas on rendered output, with a stand-in chart in a chart cache. */
  'rendered output': [helmValuesMutations, renderMutations, chartLockMutations],
};

export const ALL_MUTATIONS: readonly Mutation[] = Object.values(MUTATION_LISTS).flat(2);
