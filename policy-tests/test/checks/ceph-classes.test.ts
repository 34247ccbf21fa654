/** closure-ceph-class on a broken copy of the real repository: Ceph classes naming what Rook does not run. */
import { describeMutations } from '../support/mutation-runner.ts';
import { cephClassMutations } from '../mutations/ceph-classes.ts';

describeMutations('closure-ceph-class bites on a broken copy of the real repository', cephClassMutations);
