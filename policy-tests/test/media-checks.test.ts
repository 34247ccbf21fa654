import { describeMutations } from './mutation-runner.ts';
import { backupMutations } from './backup-mutations.ts';
import { mediaMutations, mediaSettingsMutations } from './media-mutations.ts';

describeMutations('media checks bite on a broken copy of the real repository', mediaMutations);
describeMutations('media settings checks bite on a broken copy of the real repository', mediaSettingsMutations);
describeMutations('backup checks bite on a broken copy of the real repository', backupMutations);
