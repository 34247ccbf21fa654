/** The checks of the Argo CD parity work bite on a broken copy of the real repository: what Argo CD's repo-server applies and the gate refuses (checks/argocd/repo-server.ts), and privilege named where it is held (checks/privileges.ts). */
import { describeMutations } from '../support/mutation-runner.ts';
import { argocdRepoServerMutations } from '../mutations/argocd-repo-server.ts';
import { privilegesMutations } from '../mutations/privileges.ts';

describeMutations('Argo CD parity (argocd/repo-server.ts) bites on a broken copy of the real repository', argocdRepoServerMutations);
describeMutations('privilege never inherited silently (privileges.ts) bites on a broken copy of the real repository', privilegesMutations);
