/**
 * The address an image's program gives its clients for itself (`selfUrl`: the variables that name it, such as the
 * API's BASE_URL, which its OpenAPI document lists as its server): the host is one an Ingress routes to the workload's
 * own Service. A slip in the host (`portfolio.example.nte`) starts the program all the same, and every client that
 * follows the address it publishes goes elsewhere. Judged where an Ingress of the repository routes to the workload;
 * an address whose value the gate does not read, or a workload no Ingress reaches, is said not judged.
 */
import { ingressRoutes } from '../../model/cluster/ingress-routes.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { servicesOfPod } from './listens.ts';
import { textOf, valuePath, type Held } from './variables.ts';
import { fromSecret, secretShown } from '../../model/cluster/environment.ts';

/** The hosts the repository's Ingresses route to one of `services` (by name, in their namespace). */
function hostsRoutedTo(held: Held, services: ReadonlySet<string>): Set<string> {
  const { ctx, resource } = held;
  const namespace = namespaceOrDestination(ctx.repo, resource);
  const hosts = new Set<string>();
  for (const ingress of ctx.resources.filter((r) => r.kind === 'Ingress' && namespaceOrDestination(ctx.repo, r) === namespace))
    for (const route of ingressRoutes(ingress)) if (route.host && route.service && services.has(route.service.name)) hosts.add(route.host);
  return hosts;
}

export function selfUrlNeed(held: Held): void {
  const { ctx, resource, c, image, need, env } = held;
  for (const name of need.selfUrl ?? []) {
    const path = env.get(name);
    if (!path) continue;
    const at = { resource, path: valuePath(path) };
    const setting = held.variable(name);
    const text = textOf(setting);
    let host: string;
    try {
      host = new URL(text ?? '').hostname;
    } catch {
      // A value not read, or no absolute URL (envFormat's to say).
      if (text === undefined)
        ctx.notJudged(at, `container ${c.name} sets ${name} from a source whose value is not read: whether its host routes to it is not judged`);
      continue;
    }
    const hosts = hostsRoutedTo(held, new Set(servicesOfPod(held).map((s) => s.name)));
    if (hosts.size === 0) {
      ctx.notJudged(
        at,
        `container ${c.name}'s ${name} names ${secretShown(setting, host)}, and no Ingress of the repository routes to ${resource.kind} ${resource.name}: whether the host reaches it is not judged`,
      );
      continue;
    }
    if (!hosts.has(host))
      ctx.fail(
        at,
        `container ${c.name} gives ${image} ${name} with ${secretShown(setting, `host ${host}`)}, and the Ingresses route ${[...hosts].join(', ')} to it, not that host${fromSecret(setting) ? '' : didYouMean(host, hosts)}: every client that follows the address the program publishes for itself goes elsewhere (${need.source})`,
        `name a host an Ingress routes to ${resource.name} in ${name}`,
      );
  }
}
