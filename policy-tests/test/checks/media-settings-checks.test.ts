/** The media checks of the library, playback and request apps' own settings (media-settings/: what each app reads at start, and what it refuses) bite on a broken copy of the real repository. The download chain's: media-downloads-checks.test.ts; the stack's manifests and pods: media-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { mediaSettingsMutations } from '../mutations/media-settings.ts';

describeMutations('media checks (media-settings/) bite on a broken copy of the real repository', mediaSettingsMutations);
