/** Backups: every stateful app's targets, and the jobs that take and check them. */
import { type PolicyCheck, type Area, staticArea } from '../../model/checks/kit.ts';
import { backupChecks } from './backups.ts';
import { backupHygieneChecks } from './job-hygiene.ts';
import { volsyncScheduleCheck } from './volsync-schedule.ts';
import { volsyncMoverCheck } from './volsync-mover.ts';
import { BACKUP_INVARIANTS } from './invariants.ts';

export const backupAreaChecks: PolicyCheck[] = [...backupChecks, ...backupHygieneChecks, volsyncScheduleCheck, volsyncMoverCheck];

export const backupArea: Area = staticArea('backups', backupAreaChecks, BACKUP_INVARIANTS);
