/** Mutations for grafana-sidecar-loaded: the overview dashboard labelled so that Grafana's sidecar never loads it. */
import type { Mutation } from '../support/mutation-runner.ts';
import { swap } from './edits.ts';

const DASHBOARD = 'monitoring/dashboards/homelab-overview.yaml';
const STACK_VALUES = 'monitoring/kube-prometheus-stack/values.yaml';

export const grafanaSidecarMutations: Mutation[] = [
  {
    check: 'grafana-sidecar-loaded',
    why: 'the overview dashboard labelled grafana_dashboard: "true": the sidecar selects "1", so the dashboard never reaches Grafana',
    mutate: swap(DASHBOARD, '    grafana_dashboard: "1"\n', '    grafana_dashboard: "true"\n'),
    at: 'grafana_dashboard: "true"',
  },
  {
    check: 'grafana-sidecar-loaded',
    why: 'the values make the dashboards sidecar select grafana_dashboard: "yes", and the overview dashboard still says "1"',
    mutate: swap(STACK_VALUES, '  sidecar:\n', '  sidecar:\n    dashboards:\n      labelValue: "yes"\n'),
    at: 'grafana_dashboard: "1"',
  },
];
