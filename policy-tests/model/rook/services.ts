/**
 * The Services Rook's operator (v1.20) keeps for a CephCluster's managers, which no manifest holds: the metrics
 * Service it always makes (pkg/operator/ceph/cluster/mgr: reconcileServices, MakeMetricsService; `rook-ceph-mgr`,
 * labelled `app: rook-ceph-mgr` and `rook_cluster: <the cluster's namespace>` by controller.AppLabels, port
 * `http-metrics` 9283) and, with the dashboard enabled, the dashboard's (makeDashboardService; its port named by
 * `ssl`, at `dashboard.port` or 8443 with SSL and 7000 without, with `labels.dashboard`). A monitor or a route is
 * held to these as to any Service. An external cluster's managers run elsewhere: none is modelled for it. Behind the
 * metrics port, the manager's prometheus module answers metrics at `/metrics` alone (`rookServedPaths`).
 */
import { isMap, obj, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { namespaceOrDestination } from '../argocd/argocd.ts';
import type { Repo } from '../repository/repo.ts';

const APP = 'rook-ceph-mgr';
const METRICS_PORT = 9283;

const service = (namespace: string, name: string, labels: Obj, port: { name: string; port: number }): Resource =>
  ({
    kind: 'Service',
    apiVersion: 'v1',
    name,
    namespace,
    object: { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace, labels }, spec: { ports: [port] } },
  }) as unknown as Resource;

/** What answers behind a port of a Service Rook makes: the paths it serves metrics at, and what any other answers. */
export interface ServedPaths {
  port: string;
  paths: string[];
  otherwise: string;
  source: string;
}

const MANAGER_METRICS: Omit<ServedPaths, 'port'> = {
  paths: ['/metrics'],
  otherwise: 'its index page, HTML, which no scrape parses',
  source:
    "Ceph's mgr prometheus module (src/pybind/mgr/prometheus/module.py, serve): Root exposes index and metrics, and its _cp_dispatch collapses every other path to the index",
};

/** The Services `rookManagerServices` made, by their objects (an index copies a Resource, not its object), with what answers behind their ports. */
const served = new WeakMap<object, ServedPaths>();

/** What serves behind `port` of a Service Rook's operator makes, where the model knows it. */
export const rookServedPaths = (service: Resource, port: string): ServedPaths | undefined => {
  const known = served.get(service.object);
  return known?.port === port ? known : undefined;
};

/** The manager Services Rook makes for `cluster` (a CephCluster, its namespace resolved), as they will be. */
export function rookManagerServices(cluster: Resource): Resource[] {
  const spec = obj(obj(cluster.object).spec);
  const namespace = cluster.namespace;
  if (!namespace || obj(spec.external).enable === true) return [];
  const labels = { app: APP, rook_cluster: namespace };
  const metrics = service(namespace, APP, labels, { name: 'http-metrics', port: METRICS_PORT });
  served.set(metrics.object, { port: 'http-metrics', ...MANAGER_METRICS });
  const out = [metrics];
  const dashboard = obj(spec.dashboard);
  if (dashboard.enabled === true) {
    const ssl = dashboard.ssl === true;
    const port = typeof dashboard.port === 'number' && dashboard.port > 0 ? dashboard.port : ssl ? 8443 : 7000;
    const extra = isMap(obj(spec.labels).dashboard) ? (obj(spec.labels).dashboard as Obj) : {};
    out.push(service(namespace, `${APP}-dashboard`, { ...labels, ...extra }, { name: ssl ? 'https-dashboard' : 'http-dashboard', port }));
  }
  return out;
}

/** The manager Services Rook makes for every CephCluster among `resources`, each in the namespace Argo CD puts it in. */
export const rookOperatorServices = (repo: Repo, resources: readonly Resource[]): Resource[] =>
  resources.filter((r) => r.kind === 'CephCluster').flatMap((c) => rookManagerServices({ ...c, namespace: namespaceOrDestination(repo, c) }));
