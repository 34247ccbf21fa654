/**
 * An Ingress host under a domain one keystroke from the lab's (closure-ingress-rules): the proxies serve any host they
 * are given, and the API server takes any name, but clients look the app up under the operator's zone. A host whose
 * domain no other Ingress uses and that is one slip from one they do, in the zone itself (`radarr.lan.exmaple.net`
 * beside every `*.lan.example.net`), is a name no client resolves to the proxy: the app is unreachable at the name it
 * was meant to have. A domain of its own that is no slip of another (a second zone), or a slip within a zone the
 * others use (`lab.example.net`, which that zone's DNS may serve), is left alone.
 */
import { ingressHosts, zoneOf } from '../../model/cluster/ingress-routes.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import { nearestName, suggesting } from '../../model/core/did-you-mean.ts';

/** The domain a host is named under: the host without its first label (`lan.example.net`), or undefined for a bare name. */
const domainOf = (host: string): string | undefined => (host.includes('.') ? host.slice(host.indexOf('.') + 1).toLowerCase() : undefined);

export function slippedDomainFindings(ctx: CheckContext, ingresses: readonly Resource[]): void {
  // Each Ingress host with where its rule names it (ingressHosts), an empty one (every host) aside.
  const named = ingresses.flatMap((ingress) => ingressHosts(ingress).flatMap(({ host, at }) => (host === '' ? [] : [{ ingress, host, at }])));
  // Each domain with the distinct hosts named under it.
  const hostsUnder = new Map<string, Set<string>>();
  for (const { host } of named) {
    const domain = domainOf(host);
    if (domain) hostsUnder.set(domain, (hostsUnder.get(domain) ?? new Set()).add(host.toLowerCase()));
  }
  for (const { ingress, host, at } of named) {
    const domain = domainOf(host);
    if (!domain || [...hostsUnder.get(domain)!].some((h) => h !== host.toLowerCase())) continue;
    const meant = nearestName(
      domain,
      [...hostsUnder.keys()].filter((d) => d !== domain),
    );
    // A slip inside a zone the others use (lab.example.net beside lan.example.net) may be a name of that zone: left alone.
    if (meant === undefined || zoneOf(meant) === zoneOf(domain)) continue;
    ctx.fail(
      { resource: ingress, path: at },
      `Ingress ${ingress.name} serves ${host}, the one host under ${domain}, one slip from ${meant}, where the other Ingresses' ${hostsUnder.get(meant)!.size} host(s) are${suggesting(`${host.slice(0, host.indexOf('.'))}.${meant}`)}: no client looks the app up under that domain, and it is unreachable at its name`,
      `name the host under ${meant}, as the others are`,
    );
  }
}
