/**
 * The clusters Argo CD knows (util/db/cluster.go): the cluster Secrets the repository declares, and the local one
 * unless argocd-cm disables it; and the cluster an Application's destination resolves to (GetDestinationCluster), or
 * Argo CD's words for why it resolves to none.
 */
import { dig } from '../core/dig.ts';
import type { Resource } from '../core/manifest.ts';
import { secretValue } from '../core/secrets.ts';
import { goParseBool } from '../core/text.ts';
import type { Repo } from '../repository/repo.ts';
import { argocdNamespace, IN_CLUSTER_NAME, IN_CLUSTER_SERVER, namespaceOrDestination, type ArgoApp } from './argocd.ts';

/** The label that makes a Secret of Argo CD's namespace a cluster Secret (its value `cluster`). */
export const CLUSTER_SECRET_LABEL = 'argocd.argoproj.io/secret-type';

export interface Cluster {
  server: string;
  name?: string;
  /** The AppProject the cluster is scoped to (its Secret's `project`). */
  project?: string;
  /** The cluster Secret that declares it; absent for the local cluster Argo CD knows by itself. */
  secret?: Resource;
}

/** The annotation that stops the controller reconciling an Application, or every Application of a cluster on its Secret. */
export const SKIP_RECONCILE = 'argocd.argoproj.io/skip-reconcile';

/**
 * Whether a cluster's Secret stops the controller processing every Application that syncs to it: its skip-reconcile
 * annotation read as Go's ParseBool reads it (controller/sharding/cache.go IsManagedCluster; the annotations are the
 * Secret's, util/db/cluster.go SecretToCluster).
 */
export function clusterSkipsReconcile(cluster: Cluster): boolean {
  return goParseBool(dig(cluster.secret?.object, ['metadata', 'annotations', SKIP_RECONCILE])) === true;
}

/**
 * Whether a resource lands in Argo CD's namespace, the only one whose labelled Secrets and argocd-cm it reads as its
 * settings (util/db `listSecretsByType` and util/settings list in the settings manager's namespace): a cluster
 * Secret anywhere else declares no cluster. Where no root app says which namespace that is, any.
 */
export function inArgocdNamespace(repo: Repo, r: Resource): boolean {
  const home = argocdNamespace(repo);
  return home === undefined || namespaceOrDestination(repo, r) === home;
}

/** The Secrets Argo CD reads as cluster Secrets: labelled so, in its namespace. */
export function clusterSecrets(repo: Repo, resources: readonly Resource[] = repo.resources): Resource[] {
  return resources.filter(
    (r) => r.kind === 'Secret' && dig(r.object, ['metadata', 'labels', CLUSTER_SECRET_LABEL]) === 'cluster' && inArgocdNamespace(repo, r),
  );
}

/**
 * The clusters Argo CD knows from the repository: its cluster Secrets, and the local one unless argocd-cm disables it.
 * `resources` is what a check's view holds (every resource of the repository by default).
 */
export function knownClusters(repo: Repo, resources: readonly Resource[] = repo.resources): { clusters: Cluster[]; written: boolean } {
  const declared: Cluster[] = [];
  for (const r of clusterSecrets(repo, resources)) {
    const server = secretValue(r.object, 'server');
    const name = secretValue(r.object, 'name');
    const project = secretValue(r.object, 'project');
    if (server) declared.push({ server: server.replace(/\/+$/, ''), ...(name ? { name } : {}), ...(project ? { project } : {}), secret: r });
  }
  const cm = resources.find((r) => r.kind === 'ConfigMap' && r.name === 'argocd-cm' && inArgocdNamespace(repo, r));
  const inClusterEnabled = dig(cm?.object, ['data', 'cluster.inClusterEnabled']) !== 'false';
  const inCluster = declared.some((c) => c.server === IN_CLUSTER_SERVER) ? [] : [{ server: IN_CLUSTER_SERVER, name: IN_CLUSTER_NAME }];
  const clusters = inClusterEnabled ? [...declared, ...inCluster] : declared.filter((c) => c.server !== IN_CLUSTER_SERVER);
  return { clusters, written: clusterSecretWriters(repo, resources).length > 0 };
}

/** Where an ExternalSecret's target Secret takes its metadata from. */
export const TARGET_METADATA = ['spec', 'target', 'template', 'metadata'] as const;

/** The ExternalSecrets that write cluster Secrets in Argo CD's namespace: what those declare is the store's, which the gate cannot read. */
export function clusterSecretWriters(repo: Repo, resources: readonly Resource[] = repo.resources): Resource[] {
  return resources.filter(
    (r) => r.kind === 'ExternalSecret' && dig(r.object, [...TARGET_METADATA, 'labels', CLUSTER_SECRET_LABEL]) === 'cluster' && inArgocdNamespace(repo, r),
  );
}

/**
 * The known cluster an Application's destination resolves to: by its server (trailing slashes dropped), or by its
 * name when it names one cluster; undefined where it resolves to none (argocd-destination says why).
 */
export function destinationCluster(app: ArgoApp, clusters: readonly Cluster[]): { server: string; name: string } | undefined {
  const destination = destinationOf(app.resource.object);
  const server = (destination.server ?? '').replace(/\/+$/, '');
  const name = destination.name ?? '';
  if (server !== '' && name !== '') return undefined;
  const found = server !== '' ? clusters.filter((c) => c.server === server) : clusters.filter((c) => (c.name ?? '') === name);
  return found.length === 1 ? { server: found[0]!.server, name: found[0]!.name ?? '' } : undefined;
}

/** An Application's `spec.destination` server and name, where each is a string (what else is written counts as absent). */
export function destinationOf(application: unknown): { server?: string; name?: string } {
  const d = dig(application, ['spec', 'destination']);
  const { server, name } = (typeof d === 'object' && d !== null ? d : {}) as { server?: unknown; name?: unknown };
  return { ...(typeof server === 'string' ? { server } : {}), ...(typeof name === 'string' ? { name } : {}) };
}

/** Argo CD's words for a destination it cannot resolve, or undefined when it resolves to one known cluster. */
export function destinationProblem(destination: { server?: string; name?: string }, clusters: readonly Cluster[]): string | undefined {
  const { server = '', name = '' } = destination;
  if (name && server) return `application destination can't have both name and server defined: ${name} ${server}`;
  if (server) {
    const trimmed = server.replace(/\/+$/, '');
    return clusters.some((c) => c.server === trimmed)
      ? undefined
      : `error getting cluster by server "${server}": rpc error: code = NotFound desc = cluster "${trimmed}" not found`;
  }
  if (name) {
    const servers = clusters.filter((c) => (c.name ?? '') === name).map((c) => c.server);
    if (servers.length === 0) return `there are no clusters with this name: ${name}`;
    if (servers.length > 1) return `there are ${servers.length} clusters with the same name: [${servers.join(' ')}]`;
    return undefined;
  }
  return 'Destination server missing from app spec';
}

/** Whether a destination problem is only that no cluster the repository declares matches: one an ExternalSecret writes may. */
export const namesUnknownCluster = (problem: string): boolean =>
  !problem.startsWith('application destination') && !problem.startsWith('Destination server missing');
