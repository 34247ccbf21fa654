/**
 * monitoring-scraped-once: a target scraped by two monitors that one Prometheus loads is scraped twice. The operator
 * makes a scrape job of each ServiceMonitor endpoint; two of them over one Service port, at one path with the same
 * parameters, fetch the same series twice, under two jobs where their relabelling differs (a sum or a count over
 * them doubles, an alert on one job's series fires for the other's too) or as one series from two jobs, whose
 * samples collide. The usual cause: a monitor's selector made wider than its app (an empty one selects every Service
 * of its namespaces).
 */
import type { CheckContext, PolicyCheck } from '../../model/checks/kit.ts';
import { namespaceLabels } from '../../model/cluster/pod-templates.ts';
import { serviceIndex } from '../../model/cluster/service-addresses.ts';
import { dig, list, objects, obj, type Obj } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { scalarText } from '../../model/core/text.ts';
import { notLoadedBecause, prometheusViews, selectable } from '../../model/prometheus-operator/selection.ts';

/** One scrape a ServiceMonitor endpoint asks of one Service: what Prometheus fetches, and where it is said. */
interface Scrape {
  monitor: Resource;
  /** The monitor as the cluster holds it, `namespace/name`: one object written twice is one there. */
  monitorAt: string;
  endpoint: number;
  service: Resource;
  /** The port, the scheme, the path and the parameters it asks the Service's pods for. */
  what: string;
  /** The Service and what: two scrapes of one key fetch the same thing. */
  key: string;
}

/** The Services a monitor selects: in its own namespace, the ones its namespaceSelector names, or every one. */
function selectedServices(ctx: CheckContext, monitor: Resource, namespace: string): Resource[] {
  const index = serviceIndex(ctx.repo, ctx.resources);
  const nsSelector = obj(dig(monitor.object, ['spec', 'namespaceSelector']));
  const names = list(nsSelector.matchNames).map(String);
  const selector = obj(dig(monitor.object, ['spec', 'selector']));
  return nsSelector.any === true ? index.matching(selector) : index.select(names.length ? names : [namespace], selector);
}

function scrapesOf(ctx: CheckContext, monitor: Resource, namespace: string): Scrape[] {
  const services = selectedServices(ctx, monitor, namespace);
  return objects(dig(monitor.object, ['spec', 'endpoints'])).flatMap((e: Obj, endpoint) => {
    const path = typeof e.path === 'string' && e.path !== '' ? e.path : '/metrics';
    const how = `${scalarText(e.scheme ?? 'http')} ${path} ${JSON.stringify(e.params ?? {})}`;
    return services.flatMap((service) =>
      scrapedPorts(service, e).map((port) => {
        const what = `port ${port} ${how}`;
        return { monitor, monitorAt: `${namespace}/${monitor.name}`, endpoint, service, what, key: `${service.namespace ?? ''}/${service.name} ${what}` };
      }),
    );
  });
}

/**
 * The ports of a Service an endpoint scrapes, by name (or number where unnamed), as the operator's relabelling keeps
 * them: the one its `port` names, the ones whose target is its `targetPort`, or, with neither, every one.
 */
function scrapedPorts(service: Resource, e: Obj): string[] {
  const ports = objects(dig(service.object, ['spec', 'ports']));
  const named = (p: Obj) => scalarText(p.name ?? p.port);
  if (e.port !== undefined) return ports.filter((p) => p.name === e.port).map(named);
  if (e.targetPort !== undefined) return ports.filter((p) => scalarText(p.targetPort ?? p.port) === scalarText(e.targetPort)).map(named);
  return ports.map(named);
}

export const scrapedOnceCheck: PolicyCheck = {
  id: 'monitoring-scraped-once',
  description:
    'No Service port is scraped twice, at one path with the same parameters, by the ServiceMonitors one Prometheus loads: each endpoint is a scrape job of its own, so the same series would come twice, under two jobs where their relabelling differs (a sum or a count over them doubles, and an alert on one job fires for the other) or as one series whose samples collide (invariants A8, A17).',
  invariants: ['A8', 'A17'],
  remediation:
    "narrow the monitor's selector to its own app's Services (an empty selector selects every Service of its namespaces), or drop one of the two monitors",
  reads: { kinds: ['ServiceMonitor', 'Service', 'Prometheus', 'Namespace'], charts: ['kube-prometheus-stack'], renders: true },
  exemptible: false,
  run(ctx) {
    const prometheuses = prometheusViews(ctx);
    const namespaces = namespaceLabels(ctx.repo);
    const monitors = ctx.resources.filter((r) => r.kind === 'ServiceMonitor');
    for (const prometheus of prometheuses) {
      const first = new Map<string, Scrape>();
      for (const monitor of monitors) {
        const selected = selectable(ctx, monitor);
        if (notLoadedBecause(prometheus, selected, namespaces) !== undefined) continue;
        for (const scrape of scrapesOf(ctx, monitor, selected.namespace)) {
          const earlier = first.get(scrape.key);
          if (!earlier) {
            first.set(scrape.key, scrape);
            continue;
          }
          // One object written twice (a Service or a monitor declared again) is one in the cluster: duplicate-resource's.
          if (earlier.monitorAt === scrape.monitorAt && earlier.endpoint === scrape.endpoint) continue;
          ctx.fail(
            { resource: monitor, path: ['spec', 'endpoints', scrape.endpoint] },
            `ServiceMonitor ${monitor.name} scrapes Service ${scrape.service.namespace ?? ''}/${scrape.service.name} (${scrape.what}) as ServiceMonitor ${earlier.monitor.name} already does, for Prometheus ${prometheus.name}: the target is scraped twice, and every series of it comes twice`,
          );
        }
      }
    }
  },
};
