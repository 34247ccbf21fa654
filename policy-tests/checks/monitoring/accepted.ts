/**
 * monitoring-accepted: a monitor the operator selects is still only loaded if it accepts it. When it builds
 * Prometheus's configuration it checks each ServiceMonitor, PodMonitor and Probe (model/prometheus-operator/) and skips
 * one it refuses whole: an event and a metric say so, the API server has stored it, Argo CD shows it synced and
 * healthy, and none of its targets are scraped.
 */
import type { PolicyCheck } from '../../model/checks/kit.ts';
import type { Obj } from '../../model/core/dig.ts';
import { monitorVerdict } from '../../model/prometheus-operator/monitors.ts';
import { prometheusFields } from '../../model/prometheus-operator/relabel.ts';
import { prometheusViews } from '../../model/prometheus-operator/selection.ts';
import { withKeyProviders, keysOf } from '../../model/cluster/provided-keys.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';

const KINDS = new Set(['ServiceMonitor', 'PodMonitor', 'Probe']);

export const monitoringAcceptedCheck: PolicyCheck = {
  id: 'monitoring-accepted',
  description:
    "Every ServiceMonitor, PodMonitor and Probe is one the Prometheus operator accepts (v0.93's resource selector): a label selector apimachinery parses, a scrapeTimeout no longer than its interval (or the Prometheus's), relabel rules Prometheus's relabelling takes (an action's fields, a regex RE2 compiles, a target label of the Prometheus's name scheme, a hashmod's modulus), a scrape class the Prometheus declares, no file a Prometheus denies read, a Probe's prober URL a host and port, HTTP client settings the operator validates (one of authorization, basic auth, OAuth2 and a bearer token; a TLS configuration; proxies) whose Secret and ConfigMap keys exist where the repository says them; the operator skips a monitor it refuses whole, and its targets are never scraped, with nothing red (invariants A8).",
  invariants: ['A8'],
  remediation:
    'fix the field the finding names, as the Prometheus operator documents the ServiceMonitor, PodMonitor and Probe resources (monitoring.coreos.com/v1)',
  reads: { kinds: withKeyProviders(...KINDS, 'Prometheus', 'Application'), charts: ['kube-prometheus-stack'], renders: true },
  exemptible: false,
  run(ctx) {
    const prometheuses = prometheusViews(ctx).map((p) => ({ from: p.from, fields: prometheusFields(p.spec) }));
    for (const r of ctx.resources) {
      if (!KINDS.has(r.kind) || r.apiVersion !== 'monitoring.coreos.com/v1') continue;
      const spec = (r.object.spec ?? {}) as Obj;
      const namespace = namespaceOrDestination(ctx.repo, r);
      const keys = (kind: 'Secret' | 'ConfigMap', name: string) => keysOf({ repo: ctx.repo, resources: ctx.resources }, { kind, namespace, name });
      for (const p of prometheuses) {
        const verdict = monitorVerdict(r.kind, spec, { prometheus: p.fields, keysOf: keys });
        if (verdict && 'refused' in verdict)
          ctx.fail(
            { resource: r, path: verdict.refused.path },
            `${r.kind} ${r.name} is refused by the operator for ${p.from}: ${verdict.refused.message}; it skips the whole ${r.kind}, and none of its targets are scraped`,
          );
        else if (verdict) ctx.notJudged({ resource: r, path: verdict.notJudged.path }, `${r.kind} ${r.name}: ${verdict.notJudged.message}`);
        if (verdict) break;
      }
    }
  },
};
