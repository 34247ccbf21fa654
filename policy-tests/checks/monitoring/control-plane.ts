/**
 * monitoring-control-plane: the stack can scrape the control plane it watches. kube-prometheus-stack scrapes the
 * controller manager (10257) and the scheduler (10259) on each control-plane node's address, and alerts, critical,
 * when it cannot (KubeControllerManagerDown, KubeSchedulerDown). Talos starts both bound to 127.0.0.1
 * (control_plane_static_pod.go), which no scraper reaches: unless the machine config binds them wider
 * (cluster.controllerManager / cluster.scheduler .extraArgs.bind-address), `up` is 0 for both jobs and both alerts
 * fire for good, critical, into chat.
 */
import { dig } from '../../model/core/dig.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { CLUSTER_FACTS_FILE } from '../../model/repository/cluster-facts.ts';

/** The addresses a component bound there answers only on the node itself. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** The components the chart scrapes on the nodes, by their values key, with the machine config's key and the alert. */
const COMPONENTS = [
  { values: 'kubeControllerManager', config: 'controllerManager', port: 10257, alert: 'KubeControllerManagerDown', rules: 'kubeControllerManager' },
  { values: 'kubeScheduler', config: 'scheduler', port: 10259, alert: 'KubeSchedulerDown', rules: 'kubeSchedulerAlerting' },
] as const;

export const controlPlaneScrapeCheck: PolicyCheck = {
  id: 'monitoring-control-plane',
  description: `The control-plane components kube-prometheus-stack scrapes (the controller manager and the scheduler, unless its values turn them off) listen where the scraper reaches them: Talos binds both to 127.0.0.1 unless the machine config's extraArgs.bind-address, as machineConfig in ${CLUSTER_FACTS_FILE} states it, binds them wider; otherwise up is 0, their dashboards stay empty and, where the chart's rules for them are on, KubeControllerManagerDown and KubeSchedulerDown fire, critical, for good (A12).`,
  invariants: ['A12'],
  remediation: `bind them wider in the machine config (cluster.controllerManager.extraArgs.bind-address and cluster.scheduler.extraArgs.bind-address: 0.0.0.0) and say so in machineConfig in ${CLUSTER_FACTS_FILE}, or turn the chart's scrape of them off (kubeControllerManager.enabled, kubeScheduler.enabled: false)`,
  reads: { kinds: [], charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
    const facts = ctx.repo.facts;
    const resource = ctx.repo.factsResource;
    if (!facts || !resource) return;
    for (const v of chartValues(ctx.repo, 'kube-prometheus-stack'))
      for (const c of COMPONENTS) {
        const bound = facts.machineConfig.bindAddress[c.config];
        if (dig(v.values, [c.values, 'enabled']) === false || !LOOPBACK.has(bound)) continue;
        // The chart renders the component's alert group only where its default rules and that group are on.
        const alerting = dig(v.values, ['defaultRules', 'create']) !== false && dig(v.values, ['defaultRules', 'rules', c.rules]) !== false;
        ctx.fail(
          { resource, path: ['data', 'machineConfig'] },
          `${v.appName} scrapes the ${c.config === 'controllerManager' ? 'controller manager' : 'scheduler'} on each control-plane node's address (port ${c.port}), and the machine config leaves it bound to ${bound} (cluster.${c.config}.extraArgs.bind-address, Talos' 127.0.0.1 where it says nothing): no scrape reaches it, up is 0, ${alerting ? `and ${c.alert} fires, critical, for good` : `and its dashboards stay empty (its alerts are off: defaultRules.rules.${c.rules})`}`,
        );
      }
  },
};
