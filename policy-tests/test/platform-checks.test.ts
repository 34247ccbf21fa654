/** The platform checks bite on a broken copy of the real repository. */
import { describeMutations } from './mutation-runner.ts';
import { platformMutations } from './platform-mutations.ts';

describeMutations('platform checks bite on a broken copy of the real repository', platformMutations);
