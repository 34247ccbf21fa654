import { describeMutations } from '../support/mutation-runner.ts';
import { mediaMutations } from '../mutations/media.ts';
import { mediaPodsMutations } from '../mutations/media-pods.ts';
import { mediaSettingsMutations } from '../mutations/media-settings.ts';
import { backupsMutations } from '../mutations/backups.ts';
import { backupJobHygieneMutations } from '../mutations/backup-job-hygiene.ts';

describeMutations('media and backup checks (media.ts) bite on a broken copy of the real repository', mediaMutations);
describeMutations('media and backup checks (media-pods.ts) bite on a broken copy of the real repository', mediaPodsMutations);
describeMutations('media and backup checks (media-settings/) bite on a broken copy of the real repository', mediaSettingsMutations);
describeMutations('media and backup checks (backups.ts) bite on a broken copy of the real repository', backupsMutations);
describeMutations('media and backup checks (backup-job-hygiene.ts) bite on a broken copy of the real repository', backupJobHygieneMutations);
