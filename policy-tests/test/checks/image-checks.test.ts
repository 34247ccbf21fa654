/** The image check (images/) bites on a broken copy of the real repository: each image a workload runs, as its registry resolves it. */
import { imageMutations } from '../mutations/images.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('the image check (images/) bites on a broken copy of the real repository', imageMutations);
