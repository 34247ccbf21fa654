import { describeMutations } from '../support/mutation-runner.ts';
import { backupsMutations } from '../mutations/backups.ts';
import { backupJobHygieneMutations } from '../mutations/backup-job-hygiene.ts';

describeMutations('backup checks (backups/) bite on a broken copy of the real repository', backupsMutations);
describeMutations('backup checks (backup-job-hygiene.ts) bite on a broken copy of the real repository', backupJobHygieneMutations);
