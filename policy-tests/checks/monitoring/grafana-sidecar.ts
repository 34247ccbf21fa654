/**
 * grafana-sidecar-loaded: a ConfigMap or Secret that carries a Grafana sidecar's label is one that sidecar loads.
 * Grafana's sidecars (kiwigrid's k8s-sidecar, beside Grafana in kube-prometheus-stack) watch the objects whose label
 * `LABEL` is `LABEL_VALUE` (any value where none is set), of the kinds `RESOURCE` says, in the namespaces `NAMESPACE`
 * lists (ALL, or its own where none); an object outside that selection is never written to Grafana's folders, and
 * its dashboard or datasource is not there, with nothing red. The dashboard checks read every ConfigMap with the label.
 *
 * Where the chart is rendered, the sidecars' own environment says it; offline, the values' grafana.sidecar settings
 * over kube-prometheus-stack's defaults (label grafana_dashboard or grafana_datasource, value "1", dashboards from
 * every namespace, datasources from Grafana's own).
 */
import { dig, isMap, list, objects, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { chartValues } from '../../model/helm/chart-values.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { podSpecs } from '../../model/cluster/references.ts';

const CHART = 'kube-prometheus-stack';

interface Sidecar {
  /** Where it is declared, for the message. */
  name: string;
  label: string;
  /** The value the label must have; any where undefined. */
  value?: string;
  /** The namespaces it reads; every one where undefined. */
  namespaces?: ReadonlySet<string>;
  kinds: ReadonlySet<string>;
}

const KINDS: Record<string, string[]> = { configmap: ['ConfigMap'], secret: ['Secret'], both: ['ConfigMap', 'Secret'] };

/** A sidecar's selection from its settings, as k8s-sidecar reads its environment. */
function sidecar(name: string, own: string, env: { label: string; value: string; namespace: string; resource: string }): Sidecar {
  const namespaces = env.namespace === 'ALL' ? undefined : new Set(env.namespace ? env.namespace.split(',').map((n) => n.trim()) : [own]);
  return { name, label: env.label, value: env.value || undefined, namespaces, kinds: new Set(KINDS[env.resource.toLowerCase()] ?? KINDS.both) };
}

/** The k8s-sidecar containers the rendered workloads run: a container with LABEL and FOLDER in its environment. */
function renderedSidecars(ctx: CheckContext): Sidecar[] {
  const out: Sidecar[] = [];
  for (const workload of ctx.resources.filter((r) => r.rendered && (r.kind === 'Deployment' || r.kind === 'StatefulSet')))
    for (const { spec } of podSpecs(workload))
      for (const container of [...objects(spec.containers), ...objects(spec.initContainers)]) {
        const env = new Map(objects(container.env).map((e) => [str(e.name), str(e.value)]));
        if (!env.has('LABEL') || !env.has('FOLDER')) continue;
        out.push(
          sidecar(`${workload.kind} ${workload.name}'s ${str(container.name)}`, namespaceOrDestination(ctx.repo, workload) ?? '', {
            label: env.get('LABEL')!,
            value: env.get('LABEL_VALUE') ?? '',
            namespace: env.get('NAMESPACE') ?? '',
            resource: env.get('RESOURCE') ?? 'both',
          }),
        );
      }
  return out;
}

/** kube-prometheus-stack 88's defaults for its two sidecars (its values.yaml, and its grafana subchart's). */
const DEFAULTS = {
  dashboards: { label: 'grafana_dashboard', labelValue: '1', searchNamespace: 'ALL' },
  datasources: { label: 'grafana_datasource', labelValue: '1', searchNamespace: '' },
} as const;

/** Offline: the sidecars the values set up, their settings over the chart's defaults, in the Application's namespace. */
function valuesSidecars(ctx: CheckContext): Sidecar[] {
  return chartValues(ctx.repo, CHART).flatMap((v) =>
    (['dashboards', 'datasources'] as const).flatMap((kind) => {
      const set = dig(v.values, ['grafana', 'sidecar', kind]);
      const at = (key: 'label' | 'labelValue' | 'searchNamespace') => {
        const written: unknown = isMap(set) ? set[key] : undefined;
        return written === undefined || written === null ? DEFAULTS[kind][key] : list(written).length ? list(written).map(str).join(',') : str(written);
      };
      if (isMap(set) && set.enabled === false) return [];
      const own = ctx.repo.resources.find((r) => r.kind === 'Application' && r.name === v.appName);
      const namespace = str(dig(own?.object, ['spec', 'destination', 'namespace']));
      return [
        sidecar(`the ${kind} sidecar of ${CHART} (values)`, namespace, {
          label: at('label'),
          value: at('labelValue'),
          namespace: at('searchNamespace'),
          resource: isMap(set) && typeof set.resource === 'string' ? set.resource : 'both',
        }),
      ];
    }),
  );
}

function why(r: Resource, namespace: string, s: Sidecar): string | undefined {
  if (!s.kinds.has(r.kind)) return `it reads ${[...s.kinds].join(' and ')} only`;
  if (s.namespaces && !s.namespaces.has(namespace)) return `it reads ${[...s.namespaces].join(', ')} only, and this is in ${namespace || 'no namespace'}`;
  const value = dig(r.object, ['metadata', 'labels', s.label]);
  if (s.value !== undefined && str(value) !== s.value) return `it loads ${s.label}: "${s.value}", and this one's is ${JSON.stringify(value ?? null)}`;
  return undefined;
}

export const grafanaSidecarCheck: PolicyCheck = {
  id: 'grafana-sidecar-loaded',
  description:
    'Every ConfigMap or Secret that carries a Grafana sidecar\'s label (grafana_dashboard, grafana_datasource) is one that sidecar loads: its label at the value the sidecar selects ("1"), of a kind and in a namespace it reads; otherwise its dashboard or datasource never reaches Grafana, with nothing red (A10).',
  invariants: ['A10'],
  remediation:
    'give the label the value the sidecar selects (grafana_dashboard: "1"), or change the sidecar\'s settings under grafana.sidecar in monitoring/kube-prometheus-stack/values.yaml',
  reads: { kinds: ['ConfigMap', 'Secret', 'Deployment', 'StatefulSet', 'Application'], charts: [CHART], renders: true },
  exemptible: false,
  run(ctx) {
    const rendered = renderedSidecars(ctx);
    const sidecars = rendered.length > 0 ? rendered : valuesSidecars(ctx);
    // A chart's objects left out for one reason are one finding: a chart's thirty dashboards are one mistake.
    const unloaded = new Map<string, { first: Resource; label: string; reasons: string; names: string[] }>();
    for (const r of ctx.resources.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret')) {
      const labels = dig(r.object, ['metadata', 'labels']);
      if (!isMap(labels)) continue;
      const namespace = namespaceOrDestination(ctx.repo, r) ?? '';
      for (const label of new Set(sidecars.filter((s) => Object.hasOwn(labels, s.label)).map((s) => s.label))) {
        const readers = sidecars.filter((s) => s.label === label);
        if (readers.some((s) => why(r, namespace, s) === undefined)) continue;
        const reasons = readers.map((s) => `${s.name}: ${why(r, namespace, s)!}`).join('; ');
        const key = r.rendered ? `${r.rendered.app}|${label}|${reasons}` : `${r.file}|${r.kind}|${r.name}|${label}`;
        const group = unloaded.get(key) ?? { first: r, label, reasons, names: [] };
        group.names.push(`${r.kind} ${r.name}`);
        unloaded.set(key, group);
      }
    }
    for (const { first, label, reasons, names } of unloaded.values())
      ctx.fail(
        { resource: first, path: ['metadata', 'labels', label] },
        `${names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ')} ${names.length > 1 ? 'carry' : 'carries'} ${label} and no Grafana sidecar loads ${names.length > 1 ? 'them' : 'it'} (${reasons}): what ${names.length > 1 ? 'they hold' : 'it holds'} never reaches Grafana`,
      );
  },
};
