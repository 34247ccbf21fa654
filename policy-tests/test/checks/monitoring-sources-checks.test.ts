/**
 * The monitoring sources' mutations (Grafana's admin, the hypervisor's and the gateway's exporters), apart from the
 * stack's own; the log and trace shippers' are monitoring-shippers-checks.test.ts'.
 */
import { describeMutations } from '../support/mutation-runner.ts';
import { monitoringSourcesMutations } from '../mutations/monitoring-sources.ts';

describeMutations('monitoring checks (monitoring-sources.ts) bite on a broken copy of the real repository', monitoringSourcesMutations);
