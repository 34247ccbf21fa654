/**
 * The Services Rook's operator (v1.20) keeps for a CephCluster's managers, which no manifest holds: the metrics
 * Service it always makes (pkg/operator/ceph/cluster/mgr: reconcileServices, MakeMetricsService; `rook-ceph-mgr`,
 * labelled `app: rook-ceph-mgr` and `rook_cluster: <the cluster's namespace>` by controller.AppLabels, port
 * `http-metrics` 9283) and, with the dashboard enabled, the dashboard's (makeDashboardService; its port named by
 * `ssl`, at `dashboard.port` or 8443 with SSL and 7000 without, with `labels.dashboard`). A monitor or a route is
 * held to these as to any Service. An external cluster's managers run elsewhere: none is modelled for it.
 */
import { isMap, obj, type Obj } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';

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

/** The manager Services Rook makes for `cluster` (a CephCluster, its namespace resolved), as they will be. */
export function rookManagerServices(cluster: Resource): Resource[] {
  const spec = obj(obj(cluster.object).spec);
  const namespace = cluster.namespace;
  if (!namespace || obj(spec.external).enable === true) return [];
  const labels = { app: APP, rook_cluster: namespace };
  const out = [service(namespace, APP, labels, { name: 'http-metrics', port: METRICS_PORT })];
  const dashboard = obj(spec.dashboard);
  if (dashboard.enabled === true) {
    const ssl = dashboard.ssl === true;
    const port = typeof dashboard.port === 'number' && dashboard.port > 0 ? dashboard.port : ssl ? 8443 : 7000;
    const extra = isMap(obj(spec.labels).dashboard) ? (obj(spec.labels).dashboard as Obj) : {};
    out.push(service(namespace, `${APP}-dashboard`, { ...labels, ...extra }, { name: ssl ? 'https-dashboard' : 'http-dashboard', port }));
  }
  return out;
}
