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
import { endpointPath, monitorServices, scrapedPorts } from '../../model/prometheus-operator/scrape-targets.ts';
import { dig, objects, type Obj } from '../../model/core/dig.ts';
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

function scrapesOf(ctx: CheckContext, monitor: Resource, namespace: string): Scrape[] {
  const services = monitorServices(ctx.repo, ctx.resources, monitor, namespace);
  return objects(dig(monitor.object, ['spec', 'endpoints'])).flatMap((e: Obj, endpoint) => {
    const path = endpointPath(e);
    const how = `${scalarText(e.scheme ?? 'http')} ${path} ${JSON.stringify(e.params ?? {})}`;
    return services.flatMap((service) =>
      scrapedPorts(service, e).map((port) => {
        const what = `port ${port} ${how}`;
        return { monitor, monitorAt: `${namespace}/${monitor.name}`, endpoint, service, what, key: `${service.namespace ?? ''}/${service.name} ${what}` };
      }),
    );
  });
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
