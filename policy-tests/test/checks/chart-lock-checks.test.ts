/**
 * chart-lock bites on a broken copy of the real repository: a chart bumped without its digest, a lock entry no
 * Application pins, a remote base unpinned, a remote entry nothing names. The lock is read against the manifests,
 * so no chart is rendered for it (the render tier's pulls and refusals: render/chart-lock.test.ts).
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { chartLockMutations } from '../mutations/render.ts';

describeMutations('chart-lock bites on the real repository', chartLockMutations);
