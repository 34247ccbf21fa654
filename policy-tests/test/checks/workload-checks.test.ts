/**
 * What a workload runs bites on a broken copy of the real repository: its hygiene (workload-hygiene/) and the
 * registries its images come from (registry.ts); the images themselves (images/): image-checks.test.ts. The
 * repository's own checks: core-checks.test.ts.
 */
import { workloadHygieneMutations } from '../mutations/workload-hygiene.ts';
import { registryMutations } from '../mutations/registry.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('core checks (workload-hygiene/) bite on a broken copy of the real repository', workloadHygieneMutations);
describeMutations('core checks (registry.ts) bite on a broken copy of the real repository', registryMutations);
