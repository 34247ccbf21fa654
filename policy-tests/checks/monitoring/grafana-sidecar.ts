/**
 * grafana-sidecar-loaded: a ConfigMap or Secret that carries a Grafana sidecar's label is one that sidecar loads
 * (model/grafana/sidecars.ts: its label's value, kind and namespace); an object outside that selection is never
 * written to Grafana's folders, and its dashboard or datasource is not there, with nothing red. The dashboard checks
 * read every ConfigMap with the label.
 */
import { dig, isMap } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { GRAFANA_CHART, grafanaSidecars, whyNotLoaded, type Sidecar } from '../../model/grafana/sidecars.ts';
import { withKeyProviders } from '../../model/cluster/provided-keys.ts';

export const grafanaSidecarCheck: PolicyCheck = {
  id: 'grafana-sidecar-loaded',
  description:
    'Every ConfigMap or Secret that carries a Grafana sidecar\'s label (grafana_dashboard, grafana_datasource) is one that sidecar loads: its label at the value the sidecar selects ("1"), of a kind and in a namespace it reads; otherwise its dashboard or datasource never reaches Grafana, with nothing red (A10).',
  invariants: ['A10'],
  remediation:
    'give the label the value the sidecar selects (grafana_dashboard: "1"), or change the sidecar\'s settings under grafana.sidecar in monitoring/kube-prometheus-stack/values.yaml',
  reads: { kinds: withKeyProviders('ConfigMap', 'Secret', 'Deployment', 'StatefulSet', 'Application'), charts: [GRAFANA_CHART], renders: true },
  exemptible: false,
  run(ctx) {
    const sidecars = grafanaSidecars(ctx.repo, ctx.resources);
    // A chart's objects left out for one reason are one finding: a chart's thirty dashboards are one mistake.
    const unloaded = new Map<string, { first: Resource; label: string; reasons: string; names: string[]; unknown?: Sidecar }>();
    for (const r of ctx.resources.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret')) {
      const labels = dig(r.object, ['metadata', 'labels']);
      if (!isMap(labels)) continue;
      const namespace = namespaceOrDestination(ctx.repo, r) ?? '';
      for (const label of new Set(sidecars.filter((s) => Object.hasOwn(labels, s.label)).map((s) => s.label))) {
        const readers = sidecars.filter((s) => s.label === label);
        if (readers.some((s) => !s.unread && whyNotLoaded(r, namespace, s) === undefined)) continue;
        // A sidecar whose selection is set from a value the gate does not read may load it: not judged, never passed.
        const unknown = sidecars.find((s) => s.unread && (s.label === label || s.unread === 'LABEL'));
        const reasons = unknown ? '' : readers.map((s) => `${s.name}: ${whyNotLoaded(r, namespace, s)!}`).join('; ');
        const key = unknown ? `?|${unknown.name}|${label}` : r.rendered ? `${r.rendered.app}|${label}|${reasons}` : `${r.file}|${r.kind}|${r.name}|${label}`;
        const group = unloaded.get(key) ?? { first: r, label, reasons, names: [], unknown };
        group.names.push(`${r.kind} ${r.name}`);
        unloaded.set(key, group);
      }
    }
    for (const { first, label, reasons, names, unknown } of unloaded.values()) {
      const listed = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
      const place = { resource: first, path: ['metadata', 'labels', label] };
      if (unknown)
        ctx.notJudged(
          place,
          `whether ${unknown.name} loads ${listed} (labelled ${label}) is not judged: its ${unknown.unread} is set from a value the gate does not read`,
        );
      else
        ctx.fail(
          place,
          `${listed} ${names.length > 1 ? 'carry' : 'carries'} ${label} and no Grafana sidecar loads ${names.length > 1 ? 'them' : 'it'} (${reasons}): what ${names.length > 1 ? 'they hold' : 'it holds'} never reaches Grafana`,
        );
    }
  },
};
