/** The admission checks bite on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { admissionMutations } from '../mutations/admission.ts';

describeMutations('admission checks (admission/) bite on a broken copy of the real repository', admissionMutations);
