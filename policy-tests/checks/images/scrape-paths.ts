/**
 * A scrape asks a path the image serves: a ServiceMonitor endpoint fetches its path (`/metrics` where none is given)
 * from each container behind each Service port it scrapes, and an image that serves only the paths its facts list
 * (`servedPaths`) answers any other with a 404: every scrape fails, `up` is 0, and every series of the job is gone.
 * The Services Rook's operator makes for a CephCluster's managers (model/rook/services.ts) are scraped the same way, and
 * held to what the model knows answers behind their ports.
 */
import type { CheckContext, FailurePlace } from '../../model/checks/kit.ts';
import { dig, objects } from '../../model/core/dig.ts';
import { scalarText } from '../../model/core/text.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { containersBehind, endpointPath, monitorServices, scrapedPorts } from '../../model/prometheus-operator/scrape-targets.ts';
import { imageKey, type ImageNeeds } from '../../model/repository/image-facts.ts';
import { rookOperatorServices, rookServedPaths } from '../../model/rook/services.ts';
import type { Resource } from '../../model/core/manifest.ts';

/** A path Rook's manager does not serve metrics at: said at the endpoint, with what answers it instead. */
function operatorPath(ctx: CheckContext, monitor: Resource, at: { place: FailurePlace; path: string; service: Resource; port: string }): boolean {
  const { service, port } = at;
  const served = rookServedPaths(service, port);
  if (!served) return false;
  if (!served.paths.includes(at.path))
    ctx.fail(
      at.place,
      `ServiceMonitor ${monitor.name} scrapes Service ${service.name} (port ${port}), which Rook's operator makes for the Ceph managers, at ${at.path}, where they serve no metrics (${served.source}): the answer is ${served.otherwise}, so every scrape fails and up is 0`,
      `scrape ${served.paths.join(' or ')}`,
    );
  return true;
}

export function scrapePathNeeds(ctx: CheckContext, needs: ReadonlyMap<string, ImageNeeds>): void {
  const operatorMade = rookOperatorServices(ctx.repo, ctx.resources);
  const resources = operatorMade.length > 0 ? [...ctx.resources, ...operatorMade] : ctx.resources;
  for (const monitor of ctx.resources.filter((r) => r.kind === 'ServiceMonitor')) {
    const namespace = namespaceOrDestination(ctx.repo, monitor) ?? '';
    const services = monitorServices(ctx.repo, resources, monitor, namespace);
    objects(dig(monitor.object, ['spec', 'endpoints'])).forEach((e, i) => {
      const path = endpointPath(e).split('?')[0]!;
      const place: FailurePlace = { resource: monitor, path: ['spec', 'endpoints', i, ...(typeof e.path === 'string' ? ['path'] : [])] };
      for (const service of services)
        for (const port of scrapedPorts(service, e)) {
          if (operatorPath(ctx, monitor, { place, path, service, port })) continue;
          for (const { c } of containersBehind(ctx.repo, service, port, namespaceOrDestination(ctx.repo, service) ?? '')) {
            const image = scalarText(c.container.image ?? '');
            const need = needs.get(imageKey(image));
            if (!need?.servedPaths || need.servedPaths.includes(path)) continue;
            const served = need.servedPaths;
            ctx.fail(
              place,
              `ServiceMonitor ${monitor.name} scrapes ${image} (Service ${service.name}, port ${port}, container ${c.name}) at ${path}, which it does not serve (${need.source}): the answer is a 404, every scrape fails and up is 0`,
              `scrape ${served.filter((p) => p.includes('metrics')).join(' or ') || served.join(' or ')}`,
            );
          }
        }
    });
  }
}
