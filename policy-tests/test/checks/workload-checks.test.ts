/**
 * What a workload runs bites on a broken copy of the real repository: its hygiene (workload-hygiene/), its images
 * (images/) and the registries they come from (registry.ts). The repository's own checks: core-checks.test.ts.
 */
import { workloadHygieneMutations } from '../mutations/workload-hygiene.ts';
import { imageMutations } from '../mutations/images.ts';
import { registryMutations } from '../mutations/registry.ts';
import { describeMutations } from '../support/mutation-runner.ts';

describeMutations('core checks (workload-hygiene/) bite on a broken copy of the real repository', workloadHygieneMutations);
describeMutations('the image check (images/) bites on a broken copy of the real repository', imageMutations);
describeMutations('core checks (registry.ts) bite on a broken copy of the real repository', registryMutations);
