import { describeMutations } from '../support/mutation-runner.ts';
import { backupMutations } from '../mutations/backups.ts';
import { mediaMutations, mediaSettingsMutations } from '../mutations/media.ts';

describeMutations('media checks bite on a broken copy of the real repository', mediaMutations);
describeMutations('media settings checks bite on a broken copy of the real repository', mediaSettingsMutations);
describeMutations('backup checks bite on a broken copy of the real repository', backupMutations);
