/** Mutations for closure-secret on the secret store's own credentials: a Secret the store reads that nothing makes. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

export const storeSecretMutations: Mutation[] = [
  {
    check: 'closure-secret',
    why: 'the ClusterSecretStore reads its service account token from default, where the bootstrap does not write it: the store is never ready, and no ExternalSecret is written',
    mutate: swap('apps/platform/external-secrets/clustersecretstore.yaml', '          namespace: external-secrets\n', '          namespace: default\n'),
    at: 'name: onepassword-service-account',
  },
];
