/**
 * What the ApplicationSet controller refuses of the Applications it generated before it makes any
 * (applicationset/controllers `validateGeneratedApplications`, v3.5.1): a name made twice, a project Argo CD's
 * namespace does not hold, a destination that resolves to no cluster (util/argo `GetDestinationCluster`). Each
 * refusal is kept by the Application's qualified name (namespace/name), and the controller makes only the
 * Applications whose qualified name has none: so both of a name made twice are left out. Pure, so Argo CD's own cases
 * judge it (`npm run conformance -- --argocd`).
 */
import { destinationProblem, namesUnknownCluster, type Cluster } from '../argocd/clusters.ts';

export interface GeneratedApplication {
  name: string;
  namespace: string;
  project: string;
  destination: { server?: string; name?: string };
}

export interface KnownToController {
  /** The AppProjects of Argo CD's namespace, `default` among them (argocd-server makes it where it is missing). */
  projects: ReadonlySet<string>;
  clusters: readonly Cluster[];
  /** An ExternalSecret writes cluster Secrets: a destination no declared cluster resolves may resolve to one of those. */
  clustersWritten: boolean;
}

/** `QualifiedName`: the name alone where the Application names no namespace. */
export const qualifiedName = (app: { name: string; namespace: string }): string => (app.namespace ? `${app.namespace}/${app.name}` : app.name);

/** Each refused Application's qualified name with the controller's error, in its words. */
export function generatedApplicationErrors(setName: string, apps: readonly GeneratedApplication[], known: KnownToController): Map<string, string> {
  const errors = new Map<string, string>();
  const names = new Set<string>();
  for (const app of apps) {
    const key = qualifiedName(app);
    if (names.has(app.name)) {
      errors.set(key, `ApplicationSet ${setName} contains applications with duplicate name: ${app.name}`);
      continue;
    }
    names.add(app.name);
    if (!known.projects.has(app.project)) {
      errors.set(key, `application references project ${app.project} which does not exist`);
      continue;
    }
    const problem = destinationProblem(app.destination, known.clusters);
    if (problem && !(known.clustersWritten && namesUnknownCluster(problem))) errors.set(key, `application destination spec is invalid: ${problem}`);
  }
  return errors;
}
