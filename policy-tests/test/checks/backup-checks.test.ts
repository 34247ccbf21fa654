/**
 * The backup checks of backups/ (coverage, VolSync's schedules and mover pods, the backup jobs) bite on a broken copy
 * of the real repository; the jobs' own hygiene (what a backup job mounts, reads and runs as) is
 * backup-job-hygiene-checks.test.ts'.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { backupsMutations } from '../mutations/backups.ts';

describeMutations('backup checks (backups/) bite on a broken copy of the real repository', backupsMutations);
