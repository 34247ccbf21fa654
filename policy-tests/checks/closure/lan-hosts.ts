/**
 * The LAN's machines a manifest names (closure-node-network), as the cluster facts' nodeNetwork lists them (`hosts`,
 * the names the nodes' resolver knows).
 * - An NFS volume's server, which the kubelet hands to mount.nfs on the node: a name the resolver does not know
 *   (`nas.aln`) fails the mount ("Failed to resolve server"), and every pod that uses the volume stays
 *   ContainerCreating. Every name is held to the list.
 * - A machine an exporter is sent to probe (a ServiceMonitor endpoint's `params.target`, a Probe's static targets):
 *   the exporter cannot resolve it, every scrape of it fails, and its metrics are gone. Held where the name is in the
 *   LAN's domain (the last label of a listed name: `pve4.lan`) or one slip from a listed one (`pve1.aln`), and is no
 *   host an Ingress of the repository serves; any other name is somewhere else, and not judged.
 * - A URL a container is given in a variable's written value (unpoller's `UP_UNIFI_DEFAULT_URL: https://gateway.lan`):
 *   the program cannot resolve its host, and every call it makes there fails. Held as a target is.
 * An address, or any name where the facts list no hosts, is not judged here; the API server takes them all.
 */
import { isIP } from 'node:net';
import { dig, list, objects } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Path } from '../../model/core/positions.ts';
import { didYouMean, nearestName } from '../../model/core/did-you-mean.ts';
import { containersOf, podSpecOf } from '../../model/core/workloads.ts';
import { servedHosts } from '../../model/cluster/ingress-routes.ts';
import { containerEnvironment, givenVariablePath } from '../../model/cluster/environment.ts';
import { namespaceOrDestination } from '../../model/argocd/argocd.ts';
import { CLUSTER_FACTS_FILE } from '../../model/repository/cluster-facts.ts';

/** One name a manifest gives a LAN machine: an NFS server, or a target an exporter probes. */
interface NamedMachine {
  resource: Resource;
  name: unknown;
  at: Path;
  use: 'nfs' | 'target' | 'url';
  /** The variable a URL is given in. */
  variable?: string;
}

/** Every NFS server the resources name: a PersistentVolume's, and a pod template's volume's, with where each is written. */
function nfsServers(resource: Resource): NamedMachine[] {
  if (resource.kind === 'PersistentVolume')
    return [{ resource, name: dig(resource.object, ['spec', 'nfs', 'server']), at: ['spec', 'nfs', 'server'], use: 'nfs' }];
  const pod = podSpecOf(resource);
  return objects(pod?.spec.volumes).flatMap((v, i) =>
    v.nfs === undefined ? [] : [{ resource, name: dig(v, ['nfs', 'server']), at: [...pod!.at, 'volumes', i, 'nfs', 'server'], use: 'nfs' as const }],
  );
}

/** The machines an exporter is sent to probe: each ServiceMonitor endpoint's `target` parameter, each Probe's static target. */
function probedTargets(resource: Resource): NamedMachine[] {
  const named = (values: unknown, at: Path): NamedMachine[] => list(values).map((name, i) => ({ resource, name, at: [...at, i], use: 'target' as const }));
  if (resource.kind === 'ServiceMonitor')
    return objects(dig(resource.object, ['spec', 'endpoints'])).flatMap((e, i) =>
      named(dig(e, ['params', 'target']), ['spec', 'endpoints', i, 'params', 'target']),
    );
  if (resource.kind === 'Probe')
    return named(dig(resource.object, ['spec', 'targets', 'staticConfig', 'static']), ['spec', 'targets', 'staticConfig', 'static']);
  return [];
}

/**
 * Each URL a container's env entry gives as its value (`scheme://host…`), as the kubelet sets it (`$(NAME)` expanded).
 * An entry read from a key (valueFrom) is its ConfigMap's or Secret's to name; a Secret's text is never read here.
 */
function givenUrls(ctx: CheckContext, resource: Resource): NamedMachine[] {
  const pod = podSpecOf(resource);
  if (!pod) return [];
  // The one reading of a container's environment, its env entries' written values alone.
  return containersOf(pod).flatMap((c) =>
    containerEnvironment(ctx, namespaceOrDestination(ctx.repo, resource), c.container).entries.flatMap((e) =>
      e.at[0] === 'env' && e.valueAt !== 'valueFrom' && typeof e.value === 'string' && /^[a-z][a-z0-9+.-]*:\/\//i.test(e.value)
        ? [{ resource, name: e.value, at: [...c.at, ...givenVariablePath(e, 'value')], use: 'url' as const, variable: `${c.name}'s ${e.name}` }]
        : [],
    ),
  );
}

/** A target's host: a URL's hostname, or the text before its port. */
function hostOf(target: string): string {
  if (target.includes('://')) return URL.parse(target)?.hostname.replace(/^\[(.*)\]$/, '$1') ?? target;
  return /^\[.*\]|^[^:]*$/.test(target) ? target.replace(/^\[(.*)\].*$/, '$1') : target.replace(/:\d*$/, '');
}

export const LAN_HOST_FIX = `name a machine of nodeNetwork's hosts in ${CLUSTER_FACTS_FILE}, or add the LAN machine there`;

const WHAT = {
  nfs: (r: Resource, host: string) => `${r.kind} ${r.name} mounts NFS from ${host}`,
  target: (r: Resource, host: string) => `${r.kind} ${r.name} has its exporter probe ${host}`,
  url: (r: Resource, host: string, variable?: string) => `${r.kind} ${r.name} gives ${variable} a URL on ${host}`,
} as const;
const THEN = {
  nfs: 'the node cannot resolve it, the mount fails, and every pod that uses the volume stays ContainerCreating',
  target: 'the exporter cannot resolve it, every scrape of it fails, and its metrics are gone',
  url: 'the program cannot resolve it, and every call it makes there fails',
} as const;

/** Each machine named by a host name the facts' LAN hosts do not hold (of a target, one that is the LAN's). */
export function lanHostFindings(ctx: CheckContext, hosts: readonly string[] | undefined): void {
  if (!hosts) return;
  const known = new Set(hosts.map((h) => h.toLowerCase()));
  const domains = new Set(hosts.flatMap((h) => (h.includes('.') ? [h.toLowerCase().split('.').at(-1)!] : [])));
  const served = servedHosts(ctx.resources);
  for (const { resource, name, at, use, variable } of ctx.resources.flatMap((r) => [...nfsServers(r), ...probedTargets(r), ...givenUrls(ctx, r)])) {
    if (typeof name !== 'string' || name === '') continue;
    const host = (use === 'nfs' ? name : hostOf(name)).toLowerCase().replace(/\.$/, '');
    if (host === '' || isIP(host) !== 0 || known.has(host)) continue;
    // A target elsewhere (a public site, a name the cluster serves) is not the LAN's to know.
    if (use !== 'nfs' && (served.has(host) || (!domains.has(host.split('.').at(-1)!) && nearestName(host, known) === undefined))) continue;
    ctx.fail(
      { resource, path: at },
      `${WHAT[use](resource, host, variable)}, which is none of the LAN's machines nodeNetwork names (${hosts.join(', ')})${didYouMean(host, hosts)}: ${THEN[use]}`,
      LAN_HOST_FIX,
    );
  }
}
