/** The platform checks bite on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations } from '../mutations/closure.ts';
import { syncOrderMutations } from '../mutations/sync-order.ts';
import { projectsMutations } from '../mutations/projects.ts';
import { argocdMutations } from '../mutations/argocd.ts';
import { argocdInstallMutations } from '../mutations/argocd-install.ts';
import { networkPolicyMutations } from '../mutations/network-policy.ts';

describeMutations('platform checks (closure/) bite on a broken copy of the real repository', closureMutations);
describeMutations('platform checks (sync-order.ts) bite on a broken copy of the real repository', syncOrderMutations);
describeMutations('platform checks (projects.ts) bite on a broken copy of the real repository', projectsMutations);
describeMutations('platform checks (argocd.ts) bite on a broken copy of the real repository', argocdMutations);
describeMutations('platform checks (argocd-install.ts) bite on a broken copy of the real repository', argocdInstallMutations);
describeMutations('platform checks (network-policy.ts) bite on a broken copy of the real repository', networkPolicyMutations);
