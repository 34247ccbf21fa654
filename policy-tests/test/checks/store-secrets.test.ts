/** closure-secret on the secret store's credentials, on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { storeSecretMutations } from '../mutations/store-secrets.ts';

describeMutations("closure-secret bites on the secret store's credentials", storeSecretMutations);
