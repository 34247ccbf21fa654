/** The network policy checks (network-policy/: what each policy lets through, as Cilium enforces it) bite on a broken copy of the real repository; each reading's own cases: network-policy-*.test.ts. A sync's order and health: platform-checks.test.ts. */
import { describeMutations } from '../support/mutation-runner.ts';
import { networkPolicyMutations } from '../mutations/network-policy.ts';

describeMutations('platform checks (network-policy.ts) bite on a broken copy of the real repository', networkPolicyMutations);
