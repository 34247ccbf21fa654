/** Monitoring: the stack's values, its dashboards, and the sources that feed it. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { dashboardChecks, monitoringChecks } from './monitoring.ts';
import { sourceChecks } from './sources.ts';
import { siteChecks } from './sites.ts';
import { pveTrustCheck } from './pve-trust.ts';
import { unpollerTrustCheck } from './unpoller-trust.ts';
import { unpollerConfigCheck } from './unpoller-config.ts';
import { monitoringLoadedCheck } from './loaded.ts';
import { scrapedOnceCheck } from './scraped-once.ts';
import { monitoringAcceptedCheck } from './accepted.ts';
import { controlPlaneScrapeCheck } from './control-plane.ts';
import { probeModuleCheck } from './probe-module.ts';
import { blackboxConfigCheck } from './blackbox-config.ts';
import { grafanaSidecarCheck } from './grafana-sidecar.ts';
import { constantAlertCheck } from './constant-alert.ts';
import { grafanaDatasourcesCheck } from './grafana-datasources.ts';
import { lokiConfigCheck } from './loki-config.ts';
import { tempoConfigCheck } from './tempo-config.ts';
import { alloyConfigCheck } from './alloy-config.ts';
import { alloyNodeCheck } from './alloy-node.ts';
import { alloyWriteCheck } from './alloy-write.ts';
import { alertsReachAlertmanagerCheck } from './alerting.ts';
import { MONITORING_INVARIANTS } from './invariants.ts';

export const monitoringAreaChecks: PolicyCheck[] = [
  ...monitoringChecks,
  ...dashboardChecks,
  ...sourceChecks,
  pveTrustCheck,
  unpollerTrustCheck,
  unpollerConfigCheck,
  ...siteChecks,
  monitoringLoadedCheck,
  scrapedOnceCheck,
  monitoringAcceptedCheck,
  controlPlaneScrapeCheck,
  probeModuleCheck,
  blackboxConfigCheck,
  grafanaSidecarCheck,
  constantAlertCheck,
  grafanaDatasourcesCheck,
  lokiConfigCheck,
  tempoConfigCheck,
  alloyConfigCheck,
  alloyNodeCheck,
  alloyWriteCheck,
  alertsReachAlertmanagerCheck,
];

export const monitoringArea: Area = staticArea('monitoring', monitoringAreaChecks, MONITORING_INVARIANTS);
