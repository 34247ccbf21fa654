/**
 * monitoring-loaded: a rule file or a monitor is only a request. The Prometheus operator loads a PrometheusRule,
 * ServiceMonitor, PodMonitor, Probe or ScrapeConfig into a Prometheus only when that Prometheus' selectors match it
 * (model/prometheus-operator/selection.ts, read from the rendered Prometheus or, unrendered, from the values
 * kube-prometheus-stack builds it from); the API server stores the rest, and nothing turns red.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceLabels } from '../../model/cluster/pod-templates.ts';
import { notLoadedBecause, prometheusViews, selectable, SELECTED_KINDS } from '../../model/prometheus-operator/selection.ts';

/** What an object no Prometheus loads does not do. */
const EFFECT: Readonly<Record<string, string>> = {
  PrometheusRule: 'its rules never evaluate, and none of its alerts can fire',
  ServiceMonitor: 'its targets are never scraped',
  PodMonitor: 'its pods are never scraped',
  Probe: 'its targets are never probed',
  ScrapeConfig: 'its targets are never scraped',
};

const KPS = 'kube-prometheus-stack';

export const monitoringLoadedCheck: PolicyCheck = {
  id: 'monitoring-loaded',
  description:
    "Every PrometheusRule, ServiceMonitor, PodMonitor, Probe and ScrapeConfig is loaded by a Prometheus: its labels match that Prometheus' selector for its kind and its namespace the kind's namespace selector, as the operator reads the rendered Prometheus, or as kube-prometheus-stack's values build it when the chart is not rendered; the API server stores the rest, and their rules never evaluate and their targets are never scraped, with nothing red (invariants A8, A17).",
  invariants: ['A8', 'A17'],
  remediation: `give the object the label the Prometheus selects (release: <its release>), or make the Prometheus select every one (prometheus.prometheusSpec.<kind>SelectorNilUsesHelmValues: false in monitoring/${KPS}/values.yaml)`,
  reads: { kinds: [...Object.keys(SELECTED_KINDS), 'Prometheus', 'Namespace'], charts: [KPS], renders: true },
  exemptible: false,
  run(ctx) {
    const prometheuses = prometheusViews(ctx);
    if (prometheuses.length === 0) return;
    const namespaces = namespaceLabels(ctx.repo);
    for (const object of ctx.resources) {
      if (!SELECTED_KINDS[object.kind]) continue;
      const selected = selectable(ctx, object);
      const reasons = prometheuses.map((p) => notLoadedBecause(p, selected, namespaces));
      if (reasons.some((r) => r === undefined)) continue;
      ctx.fail(
        { resource: object, path: ['metadata', 'name'] },
        `${object.kind} ${selected.namespace}/${object.name} is loaded by no Prometheus (${reasons.join('; ')}): ${EFFECT[object.kind]}`,
      );
    }
  },
};
