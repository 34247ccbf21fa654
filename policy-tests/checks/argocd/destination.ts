/**
 * An Application's destination, as Argo CD resolves it before anything syncs
 * (util/argo/argo.go GetDestinationServer and GetDestinationCluster, and
 * util/db/cluster.go): a server or a name, never both; a server Argo CD
 * knows (the in-cluster API server unless argocd-cm disables it, or a
 * cluster Secret the repository declares); a name one known cluster bears
 * ("in-cluster" for the local one, unless a cluster Secret renames it).
 * Anything else is an InvalidSpecError and the app never syncs. A cluster
 * Secret an ExternalSecret writes is not visible here: a destination only it
 * could name is not judged.
 */
import { applications, IN_CLUSTER_NAME, IN_CLUSTER_SERVER } from '../../model/argocd/argocd.ts';
import { destinationOf, destinationProblem, knownClusters, namesUnknownCluster } from '../../model/argocd/clusters.ts';
import type { PolicyCheck } from '../../model/checks/kit.ts';

export const argocdDestinationCheck: PolicyCheck = {
  id: 'argocd-destination',
  description:
    'Argo CD resolves every Application destination to one known cluster: a server or a name, not both; the in-cluster API server (unless argocd-cm disables it) or a cluster Secret the repository declares (invariants P1).',
  invariants: ['P1'],
  remediation: `set spec.destination.server to ${IN_CLUSTER_SERVER} (or name: ${IN_CLUSTER_NAME}), or declare the cluster's Secret`,
  reads: { kinds: ['Application', 'Secret', 'ConfigMap', 'ExternalSecret'] },
  exemptible: false,
  run(ctx) {
    const { clusters, written } = knownClusters(ctx.repo, ctx.resources);
    for (const app of applications(ctx.repo)) {
      const problem = destinationProblem(destinationOf(app.resource.object), clusters);
      if (!problem) continue;
      const place = { resource: app.resource, path: ['spec', 'destination'] };
      if (written && namesUnknownCluster(problem))
        ctx.notJudged(
          place,
          `Application ${app.name}: its destination names a cluster no Secret here declares, and an ExternalSecret writes cluster Secrets: ${problem}`,
        );
      else ctx.fail(place, `Application ${app.name}: Argo CD refuses its destination, and never syncs it: Unable to get cluster: ${problem}`);
    }
  },
};
