/** The admission checks bite on a broken copy of the real repository. */
import { admissionMutations } from './admission-mutations.ts';
import { describeMutations } from './mutation-runner.ts';

describeMutations('admission checks bite on a broken copy of the real repository', admissionMutations);
