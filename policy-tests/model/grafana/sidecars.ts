/**
 * Grafana's sidecars (kiwigrid's k8s-sidecar, beside Grafana in kube-prometheus-stack), which load dashboards and
 * datasources from ConfigMaps and Secrets: each watches the objects whose label `LABEL` is `LABEL_VALUE` (any value
 * where none is set), of the kinds `RESOURCE` says, in the namespaces `NAMESPACE` lists (ALL, or its own where none),
 * and writes their keys as files into Grafana's folders. Where the chart is rendered, the sidecars' own environment
 * says it; offline, the values' grafana.sidecar settings over kube-prometheus-stack's defaults (label
 * grafana_dashboard or grafana_datasource, value "1", dashboards from every namespace, datasources from Grafana's own).
 */
import { dig, isMap, list, objects, str } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';
import { chartValues } from '../helm/chart-values.ts';
import { applicationsByName, namespaceOrDestination } from '../argocd/argocd.ts';
import { podSpecs } from '../cluster/references.ts';

export const GRAFANA_CHART = 'kube-prometheus-stack';

export interface Sidecar {
  /** What it loads. */
  what: 'dashboards' | 'datasources' | 'other';
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
function sidecar(name: string, own: string, env: { label: string; value: string; namespace: string; resource: string }, what: Sidecar['what']): Sidecar {
  const namespaces = env.namespace === 'ALL' ? undefined : new Set(env.namespace ? env.namespace.split(',').map((n) => n.trim()) : [own]);
  return { what, name, label: env.label, value: env.value || undefined, namespaces, kinds: new Set(KINDS[env.resource.toLowerCase()] ?? KINDS.both) };
}

/** The k8s-sidecar containers the rendered workloads run: a container with LABEL and FOLDER in its environment. */
export function renderedSidecars(repo: Repo, resources: readonly Resource[]): Sidecar[] {
  const out: Sidecar[] = [];
  for (const workload of resources.filter((r) => r.rendered && (r.kind === 'Deployment' || r.kind === 'StatefulSet')))
    for (const { spec } of podSpecs(workload))
      for (const container of [...objects(spec.containers), ...objects(spec.initContainers)]) {
        const env = new Map(objects(container.env).map((e) => [str(e.name), str(e.value)]));
        if (!env.has('LABEL') || !env.has('FOLDER')) continue;
        out.push(
          sidecar(
            `${workload.kind} ${workload.name}'s ${str(container.name)}`,
            namespaceOrDestination(repo, workload) ?? '',
            {
              label: env.get('LABEL')!,
              value: env.get('LABEL_VALUE') ?? '',
              namespace: env.get('NAMESPACE') ?? '',
              resource: env.get('RESOURCE') ?? 'both',
            },
            str(container.name).includes('datasource') ? 'datasources' : str(container.name).includes('dashboard') ? 'dashboards' : 'other',
          ),
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
export function valuesSidecars(repo: Repo): Sidecar[] {
  return chartValues(repo, GRAFANA_CHART).flatMap((v) =>
    (['dashboards', 'datasources'] as const).flatMap((kind) => {
      const set = dig(v.values, ['grafana', 'sidecar', kind]);
      const at = (key: 'label' | 'labelValue' | 'searchNamespace') => {
        const written: unknown = isMap(set) ? set[key] : undefined;
        return written === undefined || written === null ? DEFAULTS[kind][key] : list(written).length ? list(written).map(str).join(',') : str(written);
      };
      if (isMap(set) && set.enabled === false) return [];
      const namespace = applicationsByName(repo).get(v.appName)?.destinationNamespace ?? '';
      return [
        sidecar(
          `the ${kind} sidecar of ${GRAFANA_CHART} (values)`,
          namespace,
          {
            label: at('label'),
            value: at('labelValue'),
            namespace: at('searchNamespace'),
            resource: isMap(set) && typeof set.resource === 'string' ? set.resource : 'both',
          },
          kind,
        ),
      ];
    }),
  );
}

/** Why the sidecar does not load the object (in `namespace`), or undefined where it does. */
export function whyNotLoaded(r: Resource, namespace: string, s: Sidecar): string | undefined {
  if (!s.kinds.has(r.kind)) return `it reads ${[...s.kinds].join(' and ')} only`;
  if (s.namespaces && !s.namespaces.has(namespace)) return `it reads ${[...s.namespaces].join(', ')} only, and this is in ${namespace || 'no namespace'}`;
  const value = dig(r.object, ['metadata', 'labels', s.label]);
  if (value === undefined) return `it loads objects labelled ${s.label}, and this one is not`;
  if (s.value !== undefined && str(value) !== s.value) return `it loads ${s.label}: "${s.value}", and this one's is ${JSON.stringify(value ?? null)}`;
  return undefined;
}

/** The sidecars of the cluster: the rendered ones, else the ones the values set up. */
export function grafanaSidecars(repo: Repo, resources: readonly Resource[]): Sidecar[] {
  const rendered = renderedSidecars(repo, resources);
  return rendered.length > 0 ? rendered : valuesSidecars(repo);
}
