/**
 * The log and trace shippers' mutations: Alloy's configurations as Alloy loads them, the nodes each tails, the events
 * shipped once, and the proxies' traces.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { shipperMutations } from '../mutations/monitoring-sources.ts';

describeMutations('log and trace shipper checks (monitoring-sources.ts) bite on a broken copy of the real repository', shipperMutations);
