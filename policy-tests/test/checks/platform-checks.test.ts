/** The platform checks bite on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { platformMutations } from '../mutations/platform.ts';

describeMutations('platform checks bite on a broken copy of the real repository', platformMutations);
