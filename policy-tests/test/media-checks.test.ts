import { describeMutations } from './mutation-runner.ts';
import { mediaMutations } from './media-mutations.ts';

describeMutations('media checks bite on a broken copy of the real repository', mediaMutations);
