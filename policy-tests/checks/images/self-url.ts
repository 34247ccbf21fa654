/**
 * The addresses an image's program gives its clients for itself (`selfUrl`, model/programs/self-url.ts: the API's
 * BASE_URL, Plex's custom connections): each host is one that reaches the workload. A name is one an Ingress of the
 * repository routes to the workload's own Service; an address is one a LoadBalancer Service of its pod asks for. A
 * slip in the host (`portfolio.example.nte`) starts the program all the same, and every client that follows the
 * address it publishes goes elsewhere. A name where no Ingress routes to the workload, an address no Service of it
 * asks for (a node's, a router's), or a value whose text the gate does not read is said not judged.
 */
import { urlPort } from '../../model/cluster/service-addresses.ts';
import { isIP } from 'node:net';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { dig, list, str } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import { routesToServices, servicesOfPod } from './listens.ts';
import { textOf, valuePath, type Held } from './variables.ts';
import { fromSecret, secretShown } from '../../model/cluster/environment.ts';
import { selfUrlName, selfUrlValues } from '../../model/programs/self-url.ts';
import { proxyListeners, traefikProxiesByClass, traefikServing, type ProxyListener } from '../../model/traefik/proxies.ts';
import type { FailurePlace } from '../../model/checks/kit.ts';

/** The hosts the repository's Ingresses route to one of `services` (by name, in their namespace), each with the Ingresses that do. */
function hostsRoutedTo(held: Held, services: readonly Resource[]): Map<string, Resource[]> {
  const hosts = new Map<string, Resource[]>();
  for (const { ingress, route } of routesToServices(held, services)) if (route.host) hosts.set(route.host, [...(hosts.get(route.host) ?? []), ingress]);
  return hosts;
}

/**
 * Whether the proxies that serve the host's Ingresses listen where the URL says: its port (its scheme's where it names
 * none) a port of their LoadBalancer Service, whose entry point speaks its scheme. A client that follows an address
 * of another port or scheme reaches nothing, or a TLS listener in plain HTTP (400). Undefined where a proxy's chart is
 * not rendered, or no proxy of the repository serves the class.
 */
function reachedAt(held: Held, ingresses: readonly Resource[], url: URL): { ok: boolean; listeners: ProxyListener[] } | undefined {
  const proxies = traefikProxiesByClass(held.ctx.repo);
  const port = urlPort(url);
  const listeners: ProxyListener[] = [];
  for (const ingress of ingresses) {
    const proxy = traefikServing(proxies, ingress);
    const found = proxy && proxyListeners(proxy, held.ctx.resources);
    if (!found) return undefined;
    listeners.push(...found);
  }
  return { ok: listeners.some((l) => l.port === port && l.scheme === url.protocol), listeners };
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

/** A URL as the program's clients read it, with its host (an IPv6 address without its brackets); undefined where it names no http(s) host. */
function parsedUrl(url: string): { url: URL; host: string; value: string } | undefined {
  if (!URL.canParse(url)) return undefined;
  const parsed = new URL(url);
  return ['http:', 'https:'].includes(parsed.protocol) && parsed.hostname !== ''
    ? { url: parsed, host: parsed.hostname.replace(/^\[(.*)\]$/, '$1'), value: url }
    : undefined;
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
    for (const { url, host, value } of selfUrlValues(entry, text).flatMap((value) => parsedUrl(value) ?? [])) {
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
          `container ${c.name} gives ${image} ${name} with ${shown}, and the Ingresses route ${[...hosts.keys()].join(', ')} to it, not that host${fromSecret(setting) ? '' : didYouMean(host, hosts.keys())}: every client that follows the address the program publishes for itself goes elsewhere (${need.source})`,
          `name a host an Ingress routes to ${resource.name} in ${name}`,
        );
      else judgePort(held, { at, name, shown: secretShown(setting, value), url }, hosts.get(host)!);
    }
  }
}

/** The port and scheme of an address whose host an Ingress routes to the workload: one its proxy listens on, speaking that scheme. */
function judgePort(held: Held, o: { at: FailurePlace; name: string; shown: string; url: URL }, ingresses: readonly Resource[]): void {
  const { ctx, c, image } = held;
  const reached = reachedAt(held, ingresses, o.url);
  if (!reached)
    return ctx.notJudged(
      o.at,
      `container ${c.name}'s ${o.name} names ${o.shown}: whether its proxy listens at that port and scheme is judged where the proxy's chart renders`,
    );
  if (!reached.ok)
    ctx.fail(
      o.at,
      `container ${c.name} gives ${image} ${o.name} with ${o.shown}, and the proxy that serves its host listens at ${reached.listeners.map((l) => `${l.scheme.slice(0, -1)} on ${l.port}`).join(', ')}: every client that follows the address the program publishes for itself reaches nothing there, or a TLS listener in plain HTTP`,
      `name the host at a port and scheme its proxy listens on (https on 443)`,
    );
}
