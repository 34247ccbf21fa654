/**
 * The datasources Grafana provisions at start: the YAML files its datasources sidecar writes from the ConfigMaps and
 * Secrets it loads (kube-prometheus-stack's own, with the chart's Prometheus and the values' additionalDataSources,
 * and any other of the repository), or offline the values' additionalDataSources beside the chart's default
 * Prometheus. Grafana reads every file of the folder together (pkg/services/provisioning/datasources).
 */
import { parse } from 'yaml';
import { dig, isMap, list, objects, str } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { secretEntries } from '../core/secrets.ts';
import type { DataFile, Repo } from '../repository/repo.ts';
import { chartValues } from '../helm/chart-values.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import { GRAFANA_CHART, grafanaSidecars, whyNotLoaded } from './sidecars.ts';

export interface ProvisionedDatasource {
  name: string;
  uid: string;
  /** Its plugin type and URL as Grafana reads them: '' where the entry sets none (a misspelt `urll` is none). */
  type: string;
  url: string;
  /** The entry as written, each key with its value. */
  fields: Record<string, unknown>;
  orgId: number;
  isDefault: boolean;
  /** Where it is written: an object's key, or a values file's path. */
  where: { resource: Resource; path: string[] } | { data: DataFile; path: (string | number)[] };
}

/**
 * The keys of a provisioned datasource Grafana reads, each with how it decodes the value
 * (pkg/services/provisioning/datasources/types.go, upsertDataSourceFromConfigV1: `text` a values.StringValue, whose
 * UnmarshalYAML decodes into a Go string; `map` a values.JSONValue or StringMapValue; `other` a bool, a number or a
 * list, not judged; `password` and `basicAuthPassword` of its releases before 9, `description` of its later ones).
 * A key one slip from one of them is a misspelling Grafana drops unread, never one of them.
 */
const DATASOURCE_FIELDS: Readonly<Record<string, 'text' | 'map' | 'other'>> = {
  orgId: 'other',
  orgName: 'text',
  version: 'other',
  name: 'text',
  description: 'text',
  type: 'text',
  access: 'text',
  url: 'text',
  user: 'text',
  database: 'text',
  basicAuth: 'other',
  basicAuthUser: 'text',
  password: 'text',
  basicAuthPassword: 'text',
  withCredentials: 'other',
  isDefault: 'other',
  correlations: 'other',
  jsonData: 'map',
  secureJsonData: 'map',
  editable: 'other',
  uid: 'text',
};
export const DATASOURCE_KEYS: ReadonlySet<string> = new Set(Object.keys(DATASOURCE_FIELDS));

/** Grafana's core datasource plugins that query their backend at the datasource's URL, and fail every query without one. */
export const QUERIED_OVER_HTTP = new Set([
  'prometheus',
  'loki',
  'tempo',
  'alertmanager',
  'jaeger',
  'zipkin',
  'elasticsearch',
  'graphite',
  'influxdb',
  'opentsdb',
]);

/** Each field of a datasource Grafana cannot decode, with what it reads there. */
export function undecodableFields(d: ProvisionedDatasource): { key: string; reads: string }[] {
  const out: { key: string; reads: string }[] = [];
  for (const [key, value] of Object.entries(d.fields)) {
    if (value === null || value === undefined) continue;
    // A list or a map where text is read, or anything but a map where a map is: yaml.v3 refuses it, and the whole provisioning.
    const kind = DATASOURCE_FIELDS[key];
    if (kind === 'text' && typeof value === 'object') out.push({ key, reads: 'text' });
    else if (kind === 'map' && !isMap(value)) out.push({ key, reads: 'a map' });
  }
  return out;
}

/** A Grafana bool as its provisioning reads one (values.BoolValue: a YAML bool, or the strings true and false). */
const grafanaBool = (v: unknown): boolean => v === true || str(v) === 'true';

function fromList(items: unknown, where: (i: number) => ProvisionedDatasource['where']): ProvisionedDatasource[] {
  return objects(items).map((d, i) => ({
    name: str(d.name),
    uid: str(d.uid),
    type: str(d.type),
    url: str(d.url),
    fields: d,
    orgId: typeof d.orgId === 'number' && d.orgId !== 0 ? d.orgId : 1,
    isDefault: grafanaBool(d.isDefault),
    where: where(i),
  }));
}

/** The provisioning files of the objects the datasources sidecar loads, each file's datasources. */
function loadedDatasources(repo: Repo, resources: readonly Resource[]): ProvisionedDatasource[] {
  const sidecars = grafanaSidecars(repo, resources).filter((s) => s.what === 'datasources');
  const out: ProvisionedDatasource[] = [];
  for (const r of resources.filter((x) => x.kind === 'ConfigMap' || x.kind === 'Secret')) {
    const namespace = namespaceOrDestination(repo, r) ?? '';
    if (!sidecars.some((s) => !s.unread && whyNotLoaded(r, namespace, s) === undefined)) continue;
    const files =
      r.kind === 'Secret'
        ? secretEntries(r.object).map((e) => ({ key: e.key, text: e.value, field: e.field }))
        : Object.entries(isMap(r.object.data) ? r.object.data : {}).map(([key, text]) => ({ key, text: str(text), field: 'data' }));
    for (const f of files.filter((x) => /\.ya?ml$/.test(x.key))) {
      let doc: unknown;
      try {
        doc = parse(f.text);
      } catch {
        continue; // a file Grafana cannot read is said by its own reading, not here
      }
      out.push(...fromList(dig(doc, ['datasources']), () => ({ resource: r, path: [f.field, f.key] })));
    }
  }
  return out;
}

/** kube-prometheus-stack's own Prometheus datasource, as its values set it up (enabled and default unless they say not). */
function chartPrometheus(values: Record<string, unknown>, data: DataFile): ProvisionedDatasource[] {
  const set = dig(values, ['grafana', 'sidecar', 'datasources']);
  const at = (key: string): unknown => (isMap(set) ? set[key] : undefined);
  if (at('defaultDatasourceEnabled') === false) return [];
  return [
    {
      name: str(at('name')) || 'Prometheus',
      uid: str(at('uid')) || 'prometheus',
      type: 'prometheus',
      // Where the values set none, the chart writes its own, to its Prometheus Service (prometheusServiceName).
      url: str(at('url')) || `http://${str(at('prometheusServiceName')) || 'prometheus-operated'}:9090`,
      fields: {},
      orgId: 1,
      isDefault: at('isDefaultDatasource') !== false,
      where: { data, path: ['grafana', 'sidecar', 'datasources'] },
    },
  ];
}

/**
 * Every datasource Grafana provisions: those of the objects its sidecar loads, and where the chart is not rendered
 * (offline) the ones its values set up, which its own ConfigMap would hold.
 */
export function provisionedDatasources(repo: Repo, resources: readonly Resource[]): ProvisionedDatasource[] {
  const loaded = loadedDatasources(repo, resources);
  const chart = chartValues(repo, GRAFANA_CHART);
  const written = chart.flatMap((c) =>
    fromList(list(dig(c.values, ['grafana', 'additionalDataSources'])), (i) => ({ data: c.source, path: ['grafana', 'additionalDataSources', i] })),
  );
  // Rendered, a datasource the values wrote is found on their line, not on the chart's ConfigMap.
  if (resources.some((r) => r.rendered && chart.some((c) => c.appName === r.rendered!.app)))
    return loaded.map((d) => {
      const source = 'resource' in d.where && d.where.resource.rendered ? written.find((w) => w.name === d.name) : undefined;
      return source ? { ...d, where: source.where } : d;
    });
  return [...chart.flatMap((c) => chartPrometheus(c.values, c.source)), ...written, ...loaded];
}
