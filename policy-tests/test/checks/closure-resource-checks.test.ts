/** The closure's checks (closure/) of what custom resources and secret stores name (their CRDs, stores, and the stores' budget) bite on a broken copy of the real repository. What a pod names: closure-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations, onResources } from '../mutations/closure.ts';

describeMutations(
  'platform checks (closure/: what custom resources and secret stores name) bite on a broken copy of the real repository',
  closureMutations.filter(onResources),
);
