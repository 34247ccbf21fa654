/** The media checks of the download chain's own settings (media-settings/: the managers', the queue cleaner's, and what keeps a torrent seeding) bite on a broken copy of the real repository. The other apps' settings: media-settings-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { downloadSettingsMutations } from '../mutations/media-settings.ts';

describeMutations('media checks (media-settings/) of the download chain bite on a broken copy of the real repository', downloadSettingsMutations);
