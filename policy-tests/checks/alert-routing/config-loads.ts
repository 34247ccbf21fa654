/**
 * alertmanager-config-loads: Alertmanager loads the configuration the repository gives it (model/alertmanager/: v0.34.0's
 * `Load`, yaml.v2 strict into its structs with each struct's checks, then the whole's: receivers the routes name,
 * a root route with a receiver and no matchers, unique names, time intervals that exist). kube-prometheus-stack
 * writes the values' `alertmanager.config` into a Secret the prometheus-operator reads; a configuration it refuses
 * never reaches Alertmanager, so every routing change of the pull request (and, on a new cluster, all routing) is lost
 * while the gate's routing checks, which read the values, pass.
 *
 * Judged on the alertmanager.yaml the chart renders where it renders (the values over the chart's defaults), each
 * refusal placed on the values line that wrote it; offline on the values' config alone. Integrations other than
 * Slack and webhooks are decoded as a list, their fields said not judged.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { alertmanagerConfigProblems, unjudgedIntegrations } from '../../model/alertmanager/config.ts';
import { ALERTMANAGER_CHART, judgedAlertmanagerConfigs } from '../../model/monitoring/alertmanager.ts';
const CONSEQUENCE = 'Alertmanager (and the operator, which reads it first) refuses the configuration: the routing it carries never takes effect';

export const alertmanagerConfigCheck: PolicyCheck = {
  id: 'alertmanager-config-loads',
  description:
    "Alertmanager loads the configuration the repository gives it (v0.34.0's Load: every field one of its structs has, of its type, routes naming receivers that exist, a root route with a receiver and no matchers, matchers the classic parser reads, non-zero intervals, unique receiver names, time intervals that exist, Slack and webhook integrations with their URL, prometheus/common's HTTP client checks); otherwise the operator and Alertmanager refuse it and the routing it carries never takes effect (A11-A15).",
  invariants: ['A11', 'A12', 'A13', 'A14', 'A15'],
  remediation:
    'correct the field the finding names under alertmanager.config in monitoring/kube-prometheus-stack/values.yaml, as Alertmanager documents its configuration',
  reads: { kinds: ['Secret', 'Application'], charts: [ALERTMANAGER_CHART], renders: true },
  exemptible: false,
  run(ctx) {
    for (const { config, error, name, place } of judgedAlertmanagerConfigs(ctx.resources, ctx.repo)) {
      if (error !== undefined) {
        ctx.fail(place([]), `${name} is no YAML Alertmanager reads (${error}): ${CONSEQUENCE}`);
        continue;
      }
      for (const p of alertmanagerConfigProblems(config)) ctx.fail(place(p.path), `${name} at ${p.path.join('.') || 'its top'}: ${p.message}: ${CONSEQUENCE}`);
      for (const path of unjudgedIntegrations(config))
        ctx.notJudged(place(path), `${name} at ${path.join('.')}: the fields of this integration are not judged (the gate ports Slack and webhooks)`);
    }
  },
};
