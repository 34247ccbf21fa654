/**
 * The Traefiks the repository runs, by the Ingress class each serves (`providers.kubernetesIngress.ingressClass` of
 * its chart values; undefined for one that serves every class), and whether each reads Traefik's own CRDs
 * (`providers.kubernetesCRD.enabled`, on by the chart's default). Read once here for every check that follows an
 * Ingress to the proxy that serves it.
 */
import { chartValues, type ChartValues } from '../helm/chart-values.ts';
import { dig, list } from '../core/dig.ts';
import { containersOf, podSpecOf } from '../core/workloads.ts';
import type { Resource } from '../core/manifest.ts';
import type { Repo } from '../repository/repo.ts';

/** The controller Traefik's Kubernetes Ingress provider lists IngressClasses of (a constant of its source, `GetIngressClasses`). */
export const TRAEFIK_CONTROLLER = 'traefik.io/ingress-controller';

/** Where a proxy's values name the Ingress class it serves. */
export const INGRESS_CLASS_PATH = ['providers', 'kubernetesIngress', 'ingressClass'];

export interface TraefikProxy extends ChartValues {
  /** Whether its Kubernetes CRD provider is on: the Middlewares an Ingress names are read through it. */
  crd: boolean;
  /** Whether its CRD provider lets a chain name a Middleware of another namespace (`allowCrossNamespace`, off by the chart's default). */
  crossNamespace: boolean;
  /** Whether its Kubernetes Ingress provider is on (the chart's default). */
  servesIngresses: boolean;
  /** The class its Ingress provider serves, as its values write it; undefined for none. */
  ingressClass: string | undefined;
}

/** Every Traefik the repository runs, with its providers as its values set them. */
export function traefikProxies(repo: Repo): TraefikProxy[] {
  return chartValues(repo, 'traefik').map((v) => ({
    ...v,
    crd: dig(v.values, ['providers', 'kubernetesCRD', 'enabled']) !== false,
    crossNamespace: dig(v.values, ['providers', 'kubernetesCRD', 'allowCrossNamespace']) === true,
    servesIngresses: dig(v.values, ['providers', 'kubernetesIngress', 'enabled']) !== false,
    ingressClass: dig(v.values, INGRESS_CLASS_PATH) as string | undefined,
  }));
}

export function traefikProxiesByClass(repo: Repo): Map<string | undefined, TraefikProxy> {
  return new Map(traefikProxies(repo).map((proxy) => [proxy.ingressClass, proxy]));
}

/** The Traefik that serves `ingress`'s class, if the repository runs one. */
export function traefikServing(proxies: ReadonlyMap<string | undefined, TraefikProxy>, ingress: Resource): TraefikProxy | undefined {
  return proxies.get(dig(ingress.object, ['spec', 'ingressClassName']) as string | undefined);
}

/**
 * The entry points `proxy` runs, by name, from the `--entryPoints.<name>.…` flags its rendered workload runs with (the
 * chart writes one address per port of its values, and `http.tls` for websecure), read case aside as Traefik reads
 * them, the name kept as written: each with the port its address listens on and whether it speaks TLS. Undefined where
 * its chart is not rendered.
 */
function entryPointFlags(proxy: TraefikProxy, resources: readonly Resource[]): Map<string, { port?: number; tls: boolean }> | undefined {
  const workloads = resources.filter((r) => r.rendered?.app === proxy.appName && (r.kind === 'Deployment' || r.kind === 'DaemonSet'));
  if (workloads.length === 0) return undefined;
  const points = new Map<string, { port?: number; tls: boolean }>();
  for (const workload of workloads)
    for (const { container } of containersOf(podSpecOf(workload) ?? { spec: {}, at: [] }))
      for (const arg of list(container.args)) {
        const flag = typeof arg === 'string' ? /^--entrypoints\.([^.=]+)\.(address|http\.tls)(?:=(.*))?$/i.exec(arg) : null;
        if (!flag) continue;
        const [, name, key, value] = flag as unknown as [string, string, string, string | undefined];
        const point = points.get(name) ?? { tls: false };
        if (key.toLowerCase() === 'address') point.port = Number(/:(\d+)/.exec(value ?? '')?.[1]);
        else point.tls ||= value === undefined || value.toLowerCase() === 'true';
        points.set(name, point);
      }
  return points;
}

/** The entry points `proxy` listens on, by name (entryPointFlags); undefined where its chart is not rendered. */
export function entryPointsOf(proxy: TraefikProxy, resources: readonly Resource[]): Set<string> | undefined {
  const points = entryPointFlags(proxy, resources);
  return points && new Set([...points].filter(([, p]) => p.port !== undefined).map(([name]) => name));
}

/** Where a client reaches a proxy: a port of its LoadBalancer Service, and the scheme its entry point speaks there. */
export interface ProxyListener {
  port: number;
  scheme: 'http:' | 'https:';
  entryPoint: string;
}

/**
 * The ports clients reach `proxy` at, from its rendered LoadBalancer Services: each port sends to the entry point its
 * targetPort names (the chart names each container port after its entry point) or listens on (`--entryPoints.<name>
 * .address=:<port>`), which speaks TLS where the workload runs with `--entryPoints.<name>.http.tls=true` (the chart's
 * websecure). Undefined where its chart's Service or workload is not rendered, as the TLS of none is known then.
 */
export function proxyListeners(proxy: TraefikProxy, resources: readonly Resource[]): ProxyListener[] | undefined {
  const services = resources.filter((r) => r.rendered?.app === proxy.appName && r.kind === 'Service' && dig(r.object, ['spec', 'type']) === 'LoadBalancer');
  const points = entryPointFlags(proxy, resources);
  if (services.length === 0 || !points) return undefined;
  const byPort = new Map([...points].flatMap(([name, p]) => (p.port === undefined ? [] : [[p.port, name] as const])));
  return services.flatMap((service) =>
    list(dig(service.object, ['spec', 'ports'])).flatMap((p) => {
      const port = dig(p, ['port']);
      const target = dig(p, ['targetPort']);
      const entryPoint = typeof target === 'string' ? target : typeof target === 'number' ? byPort.get(target) : undefined;
      return typeof port === 'number' && entryPoint
        ? [{ port, scheme: points.get(entryPoint)?.tls ? ('https:' as const) : ('http:' as const), entryPoint }]
        : [];
    }),
  );
}
