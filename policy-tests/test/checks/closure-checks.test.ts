/**
 * The closure's checks (closure/: what one object names, another must hold) of what a pod names bite on a broken copy
 * of the real repository: its Secrets and their keys, ConfigMaps, volumes and claims, storage classes, accounts and
 * roles, priority class, API keys, namespace and autoscaler. What traffic names: closure-traffic-checks.test.ts;
 * what custom resources and secret stores name: closure-resource-checks.test.ts; what a pod asks of the nodes:
 * closure-node-checks.test.ts.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations, onNodes, onResources, onTraffic } from '../mutations/closure.ts';

describeMutations(
  'platform checks (closure/: what a pod names) bite on a broken copy of the real repository',
  closureMutations.filter((m) => !onNodes(m) && !onTraffic(m) && !onResources(m)),
);
