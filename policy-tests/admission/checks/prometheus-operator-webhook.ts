/**
 * prometheus-operator-webhook: what the prometheus-operator refuses of a PrometheusRule. kube-prometheus-stack deploys
 * it with its validating webhook (failurePolicy Ignore: an operator not yet running lets the rule through), which
 * refuses what Prometheus's rule parser refuses (admission/webhooks/prometheus-rules.ts); and the operator checks each
 * rule again before it writes it into Prometheus's rule files, so a refused rule never runs, webhook or not.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { dig, type Obj } from '../../model/core/dig.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { prometheusRuleRefusals, WEBHOOK_PARSE, type RuleParse } from '../webhooks/prometheus-rules.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { prometheusFeatures, prometheusFields } from '../../model/prometheus-operator/relabel.ts';
import { reachesWebhooks } from '../webhooks/reached.ts';

const WEBHOOK = 'prometheusrulevalidate.monitoring.coreos.com';

/** How the operator parses a rule it loads for the stack's Prometheus (rendered, else from the values): UTF-8 names from Prometheus 3, its enableFeatures. */
function loadingParse(resources: readonly Resource[], values: unknown): RuleParse {
  const rendered = resources.find((r) => r.kind === 'Prometheus')?.object.spec as Obj | undefined;
  const spec = rendered ?? ((dig(values, ['prometheus', 'prometheusSpec']) ?? {}) as Obj);
  return { scheme: prometheusFields(spec).version[0] >= 3 ? 'utf8' : 'legacy', features: prometheusFeatures(spec) };
}

export const prometheusOperatorWebhookCheck: PolicyCheck = {
  id: 'prometheus-operator-webhook',
  description:
    "Every PrometheusRule is one the prometheus-operator admits and loads, where the repository deploys it (kube-prometheus-stack; v0.93's ValidateRule, Prometheus 3.13's rulefmt): groups named, each name once, rules either recording or alerting, an expression Prometheus's parser reads and types (no experimental function, duration arithmetic, anchored, smoothed or fill modifier, which its webhook leaves off), a recording rule with a legacy metric name and no annotations, for or keep_firing_for, legacy label and annotation names, and every label and annotation of an alert a Go template that parses with Prometheus's template functions; otherwise the webhook refuses the sync, or the operator leaves the rule out of Prometheus (invariants A17, P1).",
  invariants: ['A17', 'P1'],
  remediation:
    'fix the rule the finding names, as Prometheus documents recording and alerting rules and their templates (the operator loads what promtool check rules accepts with legacy names)',
  reads: { kinds: ['PrometheusRule', 'Application'], charts: ['kube-prometheus-stack'] },
  exemptible: false,
  run(ctx) {
    const operator = chartValues(ctx.repo, 'kube-prometheus-stack').find((c) => dig(c.values, ['prometheusOperator', 'enabled']) !== false);
    if (!operator) return;
    const webhook = dig(operator.values, ['prometheusOperator', 'admissionWebhooks', 'enabled']) !== false;
    const reached = reachesWebhooks(ctx.repo.resources);
    // Without its webhook, the operator's own check before it loads a rule: the Prometheus's version and features.
    const parse = webhook ? WEBHOOK_PARSE : loadingParse(ctx.resources, operator.values);
    for (const r of ctx.resources) {
      if (r.kind !== 'PrometheusRule' || r.apiVersion !== 'monitoring.coreos.com/v1' || !reached(r)) continue;
      for (const p of prometheusRuleRefusals(r.object.spec, parse)) {
        const said = webhook
          ? `admission webhook "${WEBHOOK}" denied the request: Rules are not valid: ${p.message}`
          : `the prometheus-operator leaves it out of Prometheus: ${p.message}`;
        ctx.fail({ resource: r, path: p.path }, `PrometheusRule ${r.name}: ${said}`);
      }
    }
  },
};
