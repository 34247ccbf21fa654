/**
 * The LAN's machines a manifest names (closure-node-network): an NFS volume's server, which the kubelet hands to
 * mount.nfs on the node, is resolved by the node's resolver. A name it does not know (`nas.aln`) fails the mount
 * ("Failed to resolve server"), and every pod that uses the volume stays ContainerCreating; the API server takes it.
 * The cluster facts' nodeNetwork lists the LAN machines the cluster reaches by name (`hosts`); a server named by an
 * address, or any name where the facts list none, is not judged here.
 */
import { isIP } from 'node:net';
import { dig, objects } from '../../model/core/dig.ts';
import type { Resource } from '../../model/core/manifest.ts';
import type { CheckContext } from '../../model/checks/kit.ts';
import type { Path } from '../../model/core/positions.ts';
import { didYouMean } from '../../model/core/did-you-mean.ts';
import { podSpecOf } from '../../model/core/workloads.ts';
import { CLUSTER_FACTS_FILE } from '../../model/repository/cluster-facts.ts';

/** Every NFS server the resources name: a PersistentVolume's, and a pod template's volume's, with where each is written. */
function nfsServers(resources: readonly Resource[]): { resource: Resource; server: unknown; at: Path }[] {
  return resources.flatMap((resource) => {
    if (resource.kind === 'PersistentVolume') return [{ resource, server: dig(resource.object, ['spec', 'nfs', 'server']), at: ['spec', 'nfs', 'server'] }];
    const pod = podSpecOf(resource);
    return objects(pod?.spec.volumes).flatMap((v, i) =>
      v.nfs === undefined ? [] : [{ resource, server: dig(v, ['nfs', 'server']), at: [...pod!.at, 'volumes', i, 'nfs', 'server'] }],
    );
  });
}

export const LAN_HOST_FIX = `name a machine of nodeNetwork's hosts in ${CLUSTER_FACTS_FILE} as the NFS server, or add the LAN machine there`;

/** Each NFS server named by a host name the facts' LAN hosts do not hold. */
export function lanHostFindings(ctx: CheckContext, hosts: readonly string[] | undefined): void {
  if (!hosts) return;
  const known = new Set(hosts.map((h) => h.toLowerCase()));
  for (const { resource, server, at } of nfsServers(ctx.resources)) {
    // No server, or an address, is the API server's or the network's to judge.
    if (typeof server !== 'string' || server === '' || isIP(server) !== 0 || known.has(server.toLowerCase().replace(/\.$/, ''))) continue;
    ctx.fail(
      { resource, path: at },
      `${resource.kind} ${resource.name} mounts NFS from ${server}, which is none of the LAN's machines nodeNetwork names (${hosts.join(', ')})${didYouMean(server, hosts)}: the node cannot resolve it, the mount fails, and every pod that uses the volume stays ContainerCreating`,
      LAN_HOST_FIX,
    );
  }
}
