/** The admission checks bite on a broken copy of the real repository. */
import { admissionMutations } from '../mutations/admission.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('admission checks bite on a broken copy of the real repository', admissionMutations);
