/**
 * What a Prometheus the operator runs asks the API server, as the operator writes its configuration (v0.93,
 * pkg/prometheus/promcfg.go) and Prometheus' Kubernetes discovery reads it (kubernetes-sd.ts):
 * - each ServiceMonitor it loads: the endpoints role (endpointslice where the monitor's serviceDiscoveryRole, else the
 *   Prometheus', is EndpointSlice), node metadata where the monitor's attachMetadata, else its scrape class', asks
 *   for it (Prometheus 2.37 and later);
 * - each PodMonitor: the pod role, node metadata likewise (2.35 and later);
 * - each Probe whose targets are ingresses (a static config wins over them): the ingress role;
 * - each Alertmanager of `alerting.alertmanagers`: the Prometheus' endpoints role in its namespace (the Prometheus' own
 *   where unset).
 * A monitor's namespaces are getNamespacesFromNamespaceSelector's: its own with ignoreNamespaceSelectors, every one
 * with `any`, else `matchNames`, else its own. What the gate does not read is said: an `apiserverConfig` (another API
 * server, other credentials), additional scrape or Alertmanager configurations (a Secret's text), the Kubernetes
 * discoveries of the ScrapeConfig objects it loads, topology sharding (node metadata by the cluster's version).
 */
import { dig, list, objects, str, type Obj } from '../core/dig.ts';
import { roleRequests } from './kubernetes-sd.ts';
import { atLeast, prometheusFields, type PromVersion } from './relabel.ts';

/** A ServiceMonitor, PodMonitor, Probe or ScrapeConfig a Prometheus loads. */
export interface LoadedMonitor {
  kind: string;
  name: string;
  namespace: string;
  spec: Obj;
}

export interface PrometheusRequests {
  requests: string[];
  /** What the Prometheus may also ask that the gate does not read, with why. */
  unread: string[];
}

/** endpointRoleFlavor: EndpointSlice where asked and Prometheus reads it (2.21; the cluster serves it since Kubernetes 1.21). */
const endpointRole = (asked: unknown, version: PromVersion): string =>
  asked === 'EndpointSlice' && atLeast(version, [2, 21, 0]) ? 'endpointslice' : 'endpoints';

/** One Kubernetes discovery the operator writes: its role, its namespaces (`''` for every one), node metadata or not. */
export interface Discovery {
  role: string;
  namespaces: string[];
  attachNode: boolean;
}

/**
 * How the operator writes one entry of `alerting.alertmanagers` (generateAlertmanagerConfig): the Prometheus' endpoints
 * role in the entry's namespace (the Prometheus' own where unset), the endpoints kept to the Service it names and, for a
 * port name, the endpoint port of that name; for a port number, the pod's container port of that number (a quoted
 * number is a name, as intstr decodes it); and the path prefix Prometheus posts under.
 */
export interface AlertmanagerTarget {
  discovery: Discovery;
  service: string;
  port?: { name: string } | { containerPort: number };
  pathPrefix?: string;
}

export function alertmanagerTarget(entry: Obj, prometheusNamespace: string, prometheus: Obj): AlertmanagerTarget {
  const role = endpointRole(prometheus.serviceDiscoveryRole, prometheusFields(prometheus).version);
  const port =
    typeof entry.port === 'string' && entry.port !== ''
      ? { name: entry.port }
      : typeof entry.port === 'number' && entry.port !== 0
        ? { containerPort: entry.port }
        : undefined;
  return {
    discovery: { role, namespaces: [str(entry.namespace) || prometheusNamespace], attachNode: false },
    service: str(entry.name),
    ...(port ? { port } : {}),
    ...(entry.pathPrefix !== undefined ? { pathPrefix: str(entry.pathPrefix) } : {}),
  };
}

/** getNamespacesFromNamespaceSelector: `''` stands for every namespace. */
export function monitorNamespaces(selector: unknown, own: string, ignoreSelectors: boolean): string[] {
  if (ignoreSelectors) return [own];
  if (dig(selector, ['any']) === true) return [''];
  const names = list(dig(selector, ['matchNames'])).map(str);
  return names.length > 0 ? names : [own];
}

/** mergeAttachMetadataWithScrapeClass, then the version the operator writes attach_metadata for. */
function attachesNode(monitor: Obj, prometheus: Obj, least: PromVersion, version: PromVersion): boolean {
  const classes = objects(prometheus.scrapeClasses);
  const name = str(monitor.scrapeClassName);
  const scrapeClass = name !== '' ? classes.find((c) => c.name === name) : classes.find((c) => c.default === true);
  const metadata = monitor.attachMetadata ?? scrapeClass?.attachMetadata;
  return dig(metadata, ['node']) === true && atLeast(version, least);
}

/** The discovery the operator writes for a monitor a Prometheus loads (none for a Probe of static targets or a ScrapeConfig). */
export function monitorDiscovery(m: Pick<LoadedMonitor, 'kind' | 'namespace' | 'spec'>, prometheus: Obj): Discovery | undefined {
  const { version } = prometheusFields(prometheus);
  const ignore = prometheus.ignoreNamespaceSelectors === true;
  const namespaces = (selector: unknown) => monitorNamespaces(selector, m.namespace, ignore);
  if (m.kind === 'ServiceMonitor') {
    const role = endpointRole(m.spec.serviceDiscoveryRole ?? prometheus.serviceDiscoveryRole, version);
    return { role, namespaces: namespaces(m.spec.namespaceSelector), attachNode: attachesNode(m.spec, prometheus, [2, 37, 0], version) };
  }
  if (m.kind === 'PodMonitor')
    return { role: 'pod', namespaces: namespaces(m.spec.namespaceSelector), attachNode: attachesNode(m.spec, prometheus, [2, 35, 0], version) };
  const ingress = dig(m.spec, ['targets', 'ingress']);
  if (m.kind !== 'Probe' || dig(m.spec, ['targets', 'staticConfig']) !== undefined || ingress === undefined) return undefined;
  return { role: 'ingress', namespaces: namespaces(dig(ingress, ['namespaceSelector'])), attachNode: false };
}

const discoveryRequests = (d: Discovery | undefined): string[] => (d ? roleRequests(d.role, d.namespaces, d.attachNode) : []);

/** What the gate does not read of a Prometheus' discoveries, with why. */
function unreadOf(prometheus: Obj, monitors: readonly LoadedMonitor[]): string[] {
  const unread: string[] = [];
  if (prometheus.additionalScrapeConfigs !== undefined) unread.push("its additionalScrapeConfigs' discoveries (a Secret's text the gate does not read)");
  if (dig(prometheus, ['alerting', 'alertmanagers']) !== undefined && prometheus.additionalAlertManagerConfigs !== undefined)
    unread.push("its additionalAlertManagerConfigs' discoveries (a Secret's text the gate does not read)");
  if (dig(prometheus, ['shardingStrategy', 'mode']) === 'Topology') unread.push("its topology sharding's node metadata (it depends on the cluster's version)");
  for (const m of monitors)
    if (m.kind === 'ScrapeConfig' && m.spec.kubernetesSDConfigs !== undefined)
      unread.push(`ScrapeConfig ${m.namespace}/${m.name}'s kubernetesSDConfigs (not read)`);
  return unread;
}

/** The requests a Prometheus' discoveries send, from the monitors it loads and its Alertmanagers, and what it may also ask that the gate does not read. */
export function prometheusApiRequests(prometheus: Obj, namespace: string, monitors: readonly LoadedMonitor[]): PrometheusRequests {
  if (prometheus.apiserverConfig !== undefined)
    return { requests: [], unread: ['its discoveries, which its apiserverConfig sends to another API server with other credentials'] };
  const requests = monitors.flatMap((m) => discoveryRequests(monitorDiscovery(m, prometheus)));
  for (const am of objects(dig(prometheus, ['alerting', 'alertmanagers'])))
    requests.push(...discoveryRequests(alertmanagerTarget(am, namespace, prometheus).discovery));
  return { requests: [...new Set(requests)], unread: unreadOf(prometheus, monitors) };
}
