/** The closure's checks of what a pod asks of the nodes (closure/: their names, network, load balancers, devices, runtime classes, the storage daemons) bite on a broken copy of the real repository. */
import { describeMutations } from '../support/mutation-runner.ts';
import { closureMutations, onNodes } from '../mutations/closure.ts';

describeMutations('platform checks (closure/: what a pod asks of the nodes) bite on a broken copy of the real repository', closureMutations.filter(onNodes));
