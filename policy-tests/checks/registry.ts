/**
 * The registry: every policy check, in report order. The gate's runner
 * (model/checks/runner.ts) applies them and handles exemptions.
 */
import type { Area, CheckEnvironment, PolicyCheck } from '../model/checks/kit.ts';
import { admissionArea } from '../admission/index.ts';
import { alertRoutingArea } from './alert-routing/index.ts';
import { argocdArea } from './argocd/index.ts';
import { backupArea } from './backups/index.ts';
import { closureArea } from './closure/index.ts';
import { falcoArea } from './falco/index.ts';
import { imageArea } from './images/index.ts';
import { mediaArea } from './media/index.ts';
import { mediaSettingsArea } from './media-settings/index.ts';
import { metricsArea } from './metrics.ts';
import { metricsCatalogArea } from './metrics-catalog.ts';
import { monitoringArea } from './monitoring/index.ts';
import { networkPolicyArea } from './network-policy/index.ts';
import { privilegeArea } from './privileges/index.ts';
import { projectArea } from './projects.ts';
import { renderArea } from './render.ts';
import { repositoryArea } from './repository.ts';
import { syncHealthArea } from './sync-health.ts';
import { syncOrderArea } from './sync-order.ts';
import { watchdogArea } from './watchdog.ts';
import { workloadArea } from './workload-hygiene/index.ts';

/** Every area, in report order: each declares its checks where they are written; a new area is its folder and a line here. */
export const AREAS: readonly Area[] = [
  repositoryArea,
  closureArea,
  syncOrderArea,
  syncHealthArea,
  networkPolicyArea,
  admissionArea,
  projectArea,
  renderArea,
  argocdArea,
  workloadArea,
  imageArea,
  privilegeArea,
  falcoArea,
  watchdogArea,
  alertRoutingArea,
  monitoringArea,
  metricsArea,
  metricsCatalogArea,
  mediaArea,
  mediaSettingsArea,
  backupArea,
];

/** Every area's checks, in report order, each given the one environment (the runner's exemption step comes after them: model/checks/exemptions.ts). */
export function policyChecks(env: CheckEnvironment): PolicyCheck[] {
  return AREAS.flatMap((area) => area.checks(env));
}

/**
 * The checks by the stage of the gate that runs them: the admission area's in the admission stage, right after the
 * schema layer (what the API server refuses on apply), every other area's in the policy stage after it.
 */
export function stagedChecks(env: CheckEnvironment): { admission: PolicyCheck[]; policy: PolicyCheck[] } {
  return { admission: admissionArea.checks(env), policy: AREAS.filter((a) => a !== admissionArea).flatMap((a) => a.checks(env)) };
}

/** Every invariant statement, from the areas that state them: an id stated by two areas is the readme test's failure. */
export const INVARIANTS: Readonly<Record<string, string>> = Object.assign({}, ...AREAS.map((a) => a.invariants ?? {}));

/** Ids stated by more than one of `areas`, with the areas that state each: every id has one statement. */
export function invariantsStatedTwice(areas: readonly Area[] = AREAS): string[] {
  const byId = new Map<string, string[]>();
  for (const area of areas) for (const id of Object.keys(area.invariants ?? {})) byId.set(id, [...(byId.get(id) ?? []), area.name]);
  return [...byId].filter(([, names]) => names.length > 1).map(([id, names]) => `${id} (${names.join(', ')})`);
}
