/** grafana-sidecar-loaded on a broken copy of the real repository: a dashboard Grafana's sidecar does not select. */
import { describeMutations } from '../support/mutation-runner.ts';
import { grafanaSidecarMutations } from '../mutations/grafana-sidecar.ts';

describeMutations('grafana-sidecar-loaded bites on a broken copy of the real repository', grafanaSidecarMutations);
