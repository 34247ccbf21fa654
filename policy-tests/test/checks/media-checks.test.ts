import { describeMutations } from '../support/mutation-runner.ts';
import { mediaMutations } from '../mutations/media.ts';
import { mediaPodsMutations } from '../mutations/media-pods.ts';
import { mediaSettingsMutations } from '../mutations/media-settings.ts';

describeMutations('media checks (media.ts) bite on a broken copy of the real repository', mediaMutations);
describeMutations('media checks (media-pods.ts) bite on a broken copy of the real repository', mediaPodsMutations);
describeMutations('media checks (media-settings/) bite on a broken copy of the real repository', mediaSettingsMutations);
