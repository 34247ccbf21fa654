/**
 * The addresses an image's program gives its clients for itself (`selfUrl`, model/programs/self-url.ts: the API's
 * BASE_URL, Plex's custom connections): each host is one that reaches the workload. A name is one an Ingress of the
 * repository routes to the workload's own Service; an address is one a LoadBalancer Service of its pod asks for. A
 * slip in the host (`portfolio.example.nte`) starts the program all the same, and every client that follows the
 * address it publishes goes elsewhere. A name where no Ingress routes to the workload, an address no Service of it
 * asks for (a node's, a router's), or a value whose text the gate does not read is said not judged.
 */
import { isIP } from 'node:net';
import { ingressRoutes } from '../../model/cluster/ingress-routes.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { dig, list, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { servicesOfPod } from './listens.ts';
import { textOf, valuePath, type Held } from './variables.ts';
import { fromSecret, secretShown } from '../../model/cluster/environment.ts';
import { selfUrlName, selfUrlValues } from '../../model/programs/self-url.ts';

/** The hosts the repository's Ingresses route to one of `services` (by name, in their namespace). */
function hostsRoutedTo(held: Held, services: readonly Resource[]): Set<string> {
  const { ctx, resource } = held;
  const names = new Set(services.map((s) => s.name));
  const namespace = namespaceOrDestination(ctx.repo, resource);
  const hosts = new Set<string>();
  for (const ingress of ctx.resources.filter((r) => r.kind === 'Ingress' && namespaceOrDestination(ctx.repo, r) === namespace))
    for (const route of ingressRoutes(ingress)) if (route.host && route.service && names.has(route.service.name)) hosts.add(route.host);
  return hosts;
}

/** The addresses a LoadBalancer Service of the pod asks for (MetalLB's annotation, or the legacy field). */
const askedAddresses = (services: readonly Resource[]): Set<string> =>
  new Set(
    services
      .filter((s) => dig(s.object, ['spec', 'type']) === 'LoadBalancer')
      .flatMap((s) => [
        ...str(dig(s.object, ['metadata', 'annotations', 'metallb.io/loadBalancerIPs'])).split(','),
        ...list(dig(s.object, ['spec', 'loadBalancerIP'])).map(String),
      ])
      .map((a) => a.trim())
      .filter((a) => a !== ''),
  );

/** A URL's host as the program's clients read it: its hostname, an IPv6 address without its brackets; undefined where none. */
function hostOf(url: string): string | undefined {
  try {
    const { hostname, protocol } = new URL(url);
    return ['http:', 'https:'].includes(protocol) && hostname !== '' ? hostname.replace(/^\[(.*)\]$/, '$1') : undefined;
  } catch {
    return undefined;
  }
}

export function selfUrlNeed(held: Held): void {
  const { ctx, resource, c, image, need, env } = held;
  for (const entry of need.selfUrl ?? []) {
    const name = selfUrlName(entry);
    const path = env.get(name);
    if (!path) continue;
    const at = { resource, path: valuePath(path) };
    const setting = held.variable(name);
    const text = textOf(setting);
    if (text === undefined) {
      ctx.notJudged(at, `container ${c.name} sets ${name} from a source whose value is not read: whether its host routes to it is not judged`);
      continue;
    }
    const services = servicesOfPod(held);
    const [hosts, addresses] = [hostsRoutedTo(held, services), askedAddresses(services)];
    // A value that is no http(s) URL is envFormat's to say.
    for (const host of selfUrlValues(entry, text).flatMap((url) => hostOf(url) ?? [])) {
      const shown = secretShown(setting, `host ${host}`);
      if (isIP(host) !== 0) {
        if (!addresses.has(host))
          ctx.notJudged(
            at,
            `container ${c.name}'s ${name} names ${shown}, which no LoadBalancer Service of ${resource.kind} ${resource.name} asks for: whether it reaches it is not judged`,
          );
      } else if (hosts.size === 0)
        ctx.notJudged(
          at,
          `container ${c.name}'s ${name} names ${shown}, and no Ingress of the repository routes to ${resource.kind} ${resource.name}: whether the host reaches it is not judged`,
        );
      else if (!hosts.has(host))
        ctx.fail(
          at,
          `container ${c.name} gives ${image} ${name} with ${shown}, and the Ingresses route ${[...hosts].join(', ')} to it, not that host${fromSecret(setting) ? '' : didYouMean(host, hosts)}: every client that follows the address the program publishes for itself goes elsewhere (${need.source})`,
          `name a host an Ingress routes to ${resource.name} in ${name}`,
        );
    }
  }
}
