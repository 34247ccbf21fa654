/** Monitoring: the stack's values, its dashboards, and the sources that feed it. */
import type { PolicyCheck } from '../kit.ts';
import { dashboardChecks, monitoringChecks } from './monitoring.ts';
import { sourceChecks } from './sources.ts';

export const monitoringAreaChecks: PolicyCheck[] = [...monitoringChecks, ...dashboardChecks, ...sourceChecks];
