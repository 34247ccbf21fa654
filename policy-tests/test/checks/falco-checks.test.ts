/**
 * Runtime security: each Falco check of the sensor, its forwarder, falcoctl and the rules it loads bites on a broken
 * copy of the real repository. The tuning file's fixtures and the condition parser: falco-tuning-checks.test.ts.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { falcoMutations } from '../mutations/falco.ts';

describeMutations('runtime security checks (falco/) bite on a broken copy of the real repository', falcoMutations);
