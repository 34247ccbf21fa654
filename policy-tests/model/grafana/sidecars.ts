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
import { containerEnv } from '../core/workloads.ts';
import type { Path } from '../core/positions.ts';
import { containerEnvironment } from '../cluster/environment.ts';

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
  /** The rendered workload whose pod runs it (none for one the values set up), and where its container is. */
  workload?: Resource;
  at?: Path;
  /** The variable of its selection set from a value the gate does not read (an envFrom Secret, a field): what it loads is not known. */
  unread?: string;
}

/** A k8s-sidecar is known by the two settings its chart always writes in its env; an envFrom that may hold them does not make one. */
const isK8sSidecar = (container: Record<string, unknown>): boolean => {
  const env = containerEnv(container);
  return env.has('LABEL') && env.has('FOLDER');
};

const KINDS: Record<string, string[]> = { configmap: ['ConfigMap'], secret: ['Secret'], both: ['ConfigMap', 'Secret'] };

/** A sidecar's selection from its settings, as k8s-sidecar reads its environment. */
function sidecar(name: string, own: string, env: { label: string; value: string; namespace: string; resource: string }, what: Sidecar['what']): Sidecar {
  const namespaces = env.namespace === 'ALL' ? undefined : new Set(env.namespace ? env.namespace.split(',').map((n) => n.trim()) : [own]);
  return { what, name, label: env.label, value: env.value || undefined, namespaces, kinds: new Set(KINDS[env.resource.toLowerCase()] ?? KINDS.both) };
}

/**
 * The k8s-sidecar containers the rendered workloads run: a container with LABEL and FOLDER in its env (the two its
 * chart always writes there). Its selection is read from its environment as the kubelet sets it (an envFrom
 * ConfigMap's keys, a `$(NAME)`, a ConfigMap key's reference among it: model/cluster/environment.ts).
 */
export function renderedSidecars(repo: Repo, resources: readonly Resource[]): Sidecar[] {
  const out: Sidecar[] = [];
  for (const workload of resources.filter((r) => r.rendered && (r.kind === 'Deployment' || r.kind === 'StatefulSet')))
    for (const { spec, at } of podSpecs(workload))
      for (const [field, list] of [
        ['containers', spec.containers],
        ['initContainers', spec.initContainers],
      ] as const)
        objects(list).forEach((container, i) => {
          if (!isK8sSidecar(container)) return;
          const namespace = namespaceOrDestination(repo, workload) ?? '';
          const { text } = containerEnvironment({ repo, resources }, namespace, container);
          const read = (name: string) => text(name) ?? undefined;
          out.push({
            ...sidecar(
              `${workload.kind} ${workload.name}'s ${str(container.name)}`,
              namespace,
              // k8s-sidecar 2.10 reads configmaps alone where RESOURCE is unset (sidecar.py).
              { label: read('LABEL') ?? '', value: read('LABEL_VALUE') ?? '', namespace: read('NAMESPACE') ?? '', resource: read('RESOURCE') ?? 'configmap' },
              str(container.name).includes('datasource') ? 'datasources' : str(container.name).includes('dashboard') ? 'dashboards' : 'other',
            ),
            workload,
            at: [...at, field, i],
            unread: SELECTION.find((name) => text(name) === null),
          });
        });
  return out;
}

/** The variables of a k8s-sidecar's selection: which objects it loads. */
const SELECTION = ['LABEL', 'LABEL_VALUE', 'NAMESPACE', 'RESOURCE'];

const PLURAL: Readonly<Record<string, string>> = { configmap: 'configmaps', secret: 'secrets' };

/**
 * What k8s-sidecar 2.10 (src/sidecar.py, src/resources.py) asks the API server, from its container's environment:
 * for each kind RESOURCE names (configmap, its default; secret; both) and each namespace NAMESPACE lists (ALL: every
 * namespace at once; none: the pod's own), a list of the objects labelled LABEL (=LABEL_VALUE) at start, then, unless
 * METHOD is LIST, a watch of the same (METHOD SLEEP lists again instead); where RESOURCE_NAME names objects of that
 * namespace and kind, a get of each instead of the list, and no watch; with IGNORE_ALREADY_PROCESSED, the server's
 * version. Undefined for a container that is no k8s-sidecar (it sets no LABEL and FOLDER); `unread` where a variable
 * it reads is set from somewhere the gate does not read. `variable` reads the container's variables as the kubelet
 * sets them (model/cluster/provided-keys.ts: its envFrom sources too); without it, its `env` alone.
 */
export function k8sSidecarRequests(
  container: Record<string, unknown>,
  ownNamespace: string,
  variable?: (name: string) => string | undefined | null,
): { requests: string[] } | { unread: string } | undefined {
  if (!isK8sSidecar(container)) return undefined;
  const env = containerEnv(container);
  variable ??= (name) => env.get(name);
  const unread = ['LABEL', 'LABEL_VALUE', 'NAMESPACE', 'RESOURCE', 'RESOURCE_NAME', 'METHOD'].find((name) => variable(name) === null);
  if (unread) return { unread };
  const get = (name: string) => variable(name) ?? undefined;
  const label = get('LABEL')!;
  const selector = encodeURIComponent(get('LABEL_VALUE') ? `${label}=${get('LABEL_VALUE')}` : label);
  const resource = get('RESOURCE') ?? 'configmap';
  const kinds = resource === 'both' ? ['secret', 'configmap'] : [resource];
  const resourceName = get('RESOURCE_NAME') ?? '';
  const method = get('METHOD');
  const requests = get('IGNORE_ALREADY_PROCESSED')?.toLowerCase() === 'true' ? ['GET /version'] : [];
  for (const kind of kinds)
    for (const namespace of (get('NAMESPACE') ?? ownNamespace).split(',')) {
      const collection = namespace === 'ALL' ? `/api/v1/${PLURAL[kind] ?? kind}` : `/api/v1/namespaces/${namespace}/${PLURAL[kind] ?? kind}`;
      const names =
        namespace === 'ALL' || !resourceName
          ? []
          : resourceName.split(',').flatMap((rn) => {
              // `namespace/kind/name` is for its namespace only, `kind/name` for its kind only (any other form stands).
              const parts = rn.split('/').reverse();
              return (parts.length === 3 && parts[2] !== namespace) || (parts.length === 2 && parts[1] !== kind) ? [] : [parts[0]!];
            });
      if (names.length > 0) requests.push(...names.map((name) => `GET ${collection}/${name}`));
      else requests.push(`GET ${collection}?labelSelector=${selector}&limit=5`);
      // The watch loop lists again instead of watching in SLEEP mode, and wherever RESOURCE_NAME is set in a namespace.
      if (method !== 'LIST' && method !== 'SLEEP' && !(namespace !== 'ALL' && resourceName))
        requests.push(`GET ${collection}?labelSelector=${selector}&watch=True`);
    }
  return { requests };
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
