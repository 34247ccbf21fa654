/**
 * The monitoring sources' mutations (the log shippers' configurations and nodes, the events shipped once, Grafana's admin,
 * the hypervisor's and the gateway's exporters), apart from the stack's own: the largest of the monitoring lists, a gate run each.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { monitoringSourcesMutations } from '../mutations/monitoring-sources.ts';

describeMutations('monitoring checks (monitoring-sources.ts) bite on a broken copy of the real repository', monitoringSourcesMutations);
