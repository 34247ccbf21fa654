/**
 * A second workload behind one Service: a copy of the VPN Deployment (`gluetun-canary`, its pods labelled
 * `track: canary`) that the qbittorrent and prowlarr Services still select. The network-policy tests use it to hold
 * a policy that leaves out one workload's pods to the connections the Service sends there.
 */
import type { Resource } from '../../model/core/manifest.ts';
import type { Repo } from '../../model/repository/repo.ts';

/** The repository with the canary added, and each resource first passed through `change` (a policy narrowed). */
export function withCanary(repo: Repo, change: (r: Resource) => Resource = (r) => r): Repo {
  const gluetun = repo.resources.find((r) => r.kind === 'Deployment' && r.name === 'gluetun')!;
  const canary = structuredClone(gluetun.object) as { metadata: { name: string }; spec: { template: { metadata: { labels: Record<string, string> } } } };
  canary.metadata.name = 'gluetun-canary';
  canary.spec.template.metadata.labels.track = 'canary';
  return { ...repo, resources: [...repo.resources.map(change), { ...gluetun, name: 'gluetun-canary', object: canary } as Resource] };
}
