/** The media checks of the stack's manifests and pods (media.ts, media-pods.ts) bite on a broken copy of the real repository. The apps' own settings: media-settings-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { mediaMutations } from '../mutations/media.ts';
import { mediaPodsMutations } from '../mutations/media-pods.ts';

describeMutations('media checks (media.ts) bite on a broken copy of the real repository', mediaMutations);
describeMutations('media checks (media-pods.ts) bite on a broken copy of the real repository', mediaPodsMutations);
