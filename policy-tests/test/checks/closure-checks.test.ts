/** The closure's checks (closure/: what one object names, another must hold) bite on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations } from '../mutations/closure.ts';

describeMutations('platform checks (closure/) bite on a broken copy of the real repository', closureMutations);
