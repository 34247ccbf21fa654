/** What Argo CD's repo-server applies and the gate refuses (checks/argocd/repo-server.ts) bites on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { argocdRepoServerMutations } from '../mutations/argocd-repo-server.ts';

describeMutations('Argo CD parity (argocd/repo-server.ts) bites on a broken copy of the real repository', argocdRepoServerMutations);
